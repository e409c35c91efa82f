/**
 * @deltalite/parquet-stream: Parquet over an ObjectStore, knowing nothing of Delta. `read/` owns
 * footer-hinted ranged reads and row-group-at-a-time decoding to Arrow; `write/` owns the streaming
 * Arrow → Parquet writer that returns each written file's parsed footer.
 */
export * from "./arrow/index.js";
export { parquetEngineName } from "./engine.js";
export * from "./read/index.js";
export * from "./write/index.js";
