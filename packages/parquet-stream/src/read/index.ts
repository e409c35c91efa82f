/** The read half of parquet-stream. */

export { type ReadAdmission, type Release, recordBatchBytes } from "./admission.js";
export { type ByteSourceOptions, storeByteSource } from "./byte-source.js";
export { type ConstantColumn, constantData, withConstantColumns } from "./constant-columns.js";
export { readerCompressors } from "./decompressors.js";
export { type ByteSpan, coalesceSpans, fetchRanges, RequestLimiter, splitSpan } from "./fetch-ranges.js";
export {
  DEFAULT_FOOTER_HINT_BYTES,
  type FooterAndTail,
  parquetFooterOfBytes,
  type ReadFooterOptions,
  readFooterAndTail,
  readParquetFooter,
} from "./footer.js";
export {
  FIRST_WITH_LAYOUT_MAX_BYTES,
  type LocalColumnHashes,
  type LocalColumnOptions,
  openLocalColumnHashes,
} from "./local-column.js";
export { type ReadObjectsOptions, readParquetObjects } from "./objects.js";
export {
  type ColumnChunkRange,
  DEFAULT_RANGE_COALESCE_GAP_BYTES,
  DEFAULT_RANGE_GET_CONCURRENCY,
  DEFAULT_RANGE_GET_PART_SIZE_BYTES,
  type OpenParquetReaderOptions,
  openParquetReader,
  type ParquetMetadata,
  ParquetReader,
  type ReadRowGroupOptions,
  type ReadRowGroupsOptions,
} from "./reader.js";
export type { ColumnValueHashes } from "./value-hashes.js";
