/**
 * deltalite: the package applications import. `DeltaLiteTable` (create, open at a version or timestamp,
 * write, upsert, scan, compact, restore, in-memory properties, reload, history, vacuum), the error hierarchy, the storage layer and
 * the process-level probe-cache controls.
 */

export type {
  CompactOptions,
  CompactResult,
  FileSizeSummary,
  OptimizeMetrics,
  PartitionValueMatch,
  RestoreMetrics,
  RestoreOptions,
  RestoreResult,
  RestoreTarget,
  ZOrderOptions,
  ZOrderResult,
} from "@deltalite/compaction";
export {
  type BatchSource,
  ChangeFeed,
  type ChangeInstant,
  type ChangeRange,
  type ChangesMetrics,
  type ChangesOptions,
  type ChangesPlan,
  type DeleteOptions,
  type DeleteResult,
  type LimitsSnapshot,
  limitsSnapshot,
  SCAN_FILTER_OPS,
  type ScanFilterCondition,
  type ScanFilterOp,
  type ScanFilterValue,
  type ScanMetrics,
  type ScanOptions,
  type ScanPlan,
  scanTable,
  TableScan,
  type WriteOptions,
  type WriteResult,
} from "@deltalite/data-files";
export type {
  CommitHistoryEntry,
  FileStats,
  FileView,
  SetTablePropertiesOptions,
  SetTablePropertiesResult,
  VacuumOptions,
  VacuumResult,
} from "@deltalite/delta-log";
export * from "@deltalite/errors";
export type { MissingColumns, PruneStrategy, UpsertOptions, UpsertSource } from "@deltalite/merge-engine";
export {
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
export {
  clearProbeCache,
  type ProbeCacheStats,
  probeCacheStats,
  setProbeCacheMaxBytes,
} from "@deltalite/probe-cache";
export type {
  HistoryUpsertKnobs,
  HistoryUpsertOptions,
  HistoryUpsertStats,
  HistoryUpsertTimings,
} from "@deltalite/scd2-history";
export { type EnvKnobs, envKnobs } from "./env.js";
export { batchToJsonRows, batchToNdjson, type JsonValue, jsonValueReader } from "./json/index.js";
export {
  DELTALITE_HISTORY_METRIC_NAMES,
  DELTALITE_METER_NAME,
  DELTALITE_METRIC_NAMES,
  type DeltaLiteMetricName,
  type ErrorKindLabel,
  type PruneStrategyLabel,
  UPSERT_DURATION_BUCKETS_SECONDS,
} from "./metrics.js";
export {
  type CreateTableOptions,
  DeltaLiteTable,
  type OpenTableOptions,
  type TableScanOptions,
  type TableWriteOptions,
  type UpsertStats,
} from "./table.js";
