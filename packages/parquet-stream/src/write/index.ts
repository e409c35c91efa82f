/** The write half of parquet-stream: streaming Arrow → Parquet objects with parsed footers. */
export type { FileMetaData } from "hyparquet";
export { columnChunkSizes } from "./compression-policy.js";
export { judgedFields, plainColumns } from "./dictionary-policy.js";
export { encoderWasmMemoryBytes } from "./encoder-pool.js";
export {
  DEFAULT_CODEC,
  DEFAULT_CREATED_BY,
  DEFAULT_MAX_ROW_GROUP_BYTES,
  DEFAULT_MAX_ROW_GROUP_ROWS,
  DEFAULT_MULTIPART_CONCURRENCY,
  DEFAULT_MULTIPART_PART_SIZE_BYTES,
  DEFAULT_MULTIPART_THRESHOLD_BYTES,
  DEFAULT_TARGET_FILE_SIZE,
  type ParquetCodec,
  type WriteParquetOptions,
} from "./options.js";
export {
  FOOTER_PARSERS,
  parquetFileStream,
  startEncoderFor,
  type WriterInput,
  type WrittenFile,
  writeEmptyParquetFile,
  writeParquetFiles,
} from "./parquet-writer.js";
export {
  type ColumnChunkSizes,
  footerDecodedSize,
  handOverPassthrough,
  isPassthrough,
  type ParquetPassthrough,
  type PassthroughSource,
  passthroughFits,
  passthroughOf,
} from "./passthrough.js";
