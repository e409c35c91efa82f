/** The read half of parquet-stream. */
export { type ByteSourceOptions, storeByteSource } from "./byte-source.js";
export { type ReadObjectsOptions, readParquetObjects } from "./objects.js";
