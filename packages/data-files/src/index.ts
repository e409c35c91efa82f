/**
 * @deltalite/data-files: a Delta table's data files, between the log (@deltalite/delta-log) and the
 * engines — alignment of incoming Arrow data to the table schema, the partition split, the data-file
 * writer, the reader of one live file conformed to the table, the table scan (projection, filters,
 * pruning), `write` (append / overwrite), `deleteWhere` (delete by scan filter), the change data feed
 * read (`readChanges`), the per-call and process-wide budgets every engine of a process shares, and the
 * one bounded worker pool.
 */
export * from "./budgets/index.js";
export * from "./changes/index.js";
export { withCallDeadline } from "./deadline.js";
export * from "./delete/index.js";
export { mapLimit } from "./pool.js";
export {
  fetchLiveFile,
  type LiveFileColumns,
  type LiveFileReadContext,
  openLiveFile,
  openLiveFileOver,
  readLiveFile,
} from "./read/live-file.js";
export { openLocalKeyColumn } from "./read/local-key-column.js";
export { DEFAULT_PASSTHROUGH_MAX_BYTES, passthroughMaxBytes } from "./read/passthrough-limit.js";
export { localPassthroughSource } from "./read/passthrough-source.js";
export { SMALL_FILE_MAX_BYTES } from "./read/small-file.js";
export { fetchWholeFile, readerOverBytes, type WholeFile } from "./read/whole-file.js";
export * from "./scan/index.js";
export * from "./write/index.js";
