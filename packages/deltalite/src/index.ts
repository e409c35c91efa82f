/**
 * deltalite: the package applications import. `DeltaLiteTable` (open at a version or timestamp, in-memory
 * properties, reload, history, vacuum), the error hierarchy, and the storage layer. Writing, scanning and
 * upserts arrive with the parquet-stream and merge-engine work.
 */

export type {
  CommitHistoryEntry,
  FileStats,
  FileView,
  VacuumOptions,
  VacuumResult,
} from "@deltalite/delta-log";
export * from "@deltalite/errors";
export {
  CountingStore,
  FaultyStore,
  InMemoryStore,
  LocalFileStore,
  listAll,
  type ObjectMeta,
  type ObjectStore,
  type OpenStoreOptions,
  openStore,
  type PutMode,
  parseLocation,
  S3Store,
  type StorageOptions,
} from "@deltalite/object-store";
export { DeltaLiteTable, type OpenTableOptions } from "./table.js";
