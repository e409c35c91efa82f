/**
 * @deltalite/compaction: `compact` — small files of a Delta table rewritten into bins planned exactly as
 * delta-rs's `optimize.compact` plans them, streamed in bounded memory through the budgets every engine of
 * the process shares, committed as one OPTIMIZE with `dataChange: false` — and its building blocks (the
 * planner, delta-rs's file order, the metrics); `zOrder`, every file of the selected partitions rewritten in
 * delta-rs's Z-order over some columns, sorted externally when a partition exceeds its memory budget; and `restore`, one RESTORE commit back to an earlier version
 * or instant, as delta-rs's `DeltaTable.restore`.
 */
export { compact, planTableCompaction } from "./compact.js";
export { filesInDeltaRsOrder, orderByVersion } from "./file-order.js";
export { operationMetricsOf, optimizeMetrics, sizeSummary } from "./metrics.js";
export { type PartitionFilter, resolvePartitionFilter } from "./partition-filter.js";
export {
  type CompactionBin,
  type CompactionPlan,
  DEFAULT_TARGET_FILE_SIZE,
  type PlanInput,
  planCompaction,
  targetFileSizeFor,
} from "./plan.js";
export { planRestore, type RestorePlan, restoredProtocol } from "./restore/plan.js";
export { restore } from "./restore/restore.js";
export type { RestoreMetrics, RestoreOptions, RestoreResult, RestoreTarget } from "./restore/types.js";
export type { BinRewrite } from "./rewrite-bin.js";
export type {
  CompactOptions,
  CompactProgress,
  CompactResult,
  FileSizeSummary,
  OptimizeMetrics,
  PartitionValueMatch,
  ZOrderOptions,
  ZOrderResult,
} from "./types.js";
export { zOrderKeys } from "./z-order/z-key.js";
export { planTableZOrder, zOrder } from "./z-order/z-order.js";
