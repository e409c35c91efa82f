/**
 * The upsert pipeline: validate, plan per partition, prune (stats, probe), rewrite, one MERGE commit — and
 * its building blocks for the engines built on it (the source plan with per-partition key sets, the exact
 * probe of one file, the rewrite of one partition with its dropped-rows hook, the stats pruning with its
 * null-safe mode).
 */

export { batchBytes, DEFAULT_MAX_SOURCE_BYTES, type UpsertSource } from "./ingest.js";
export { fileHoldsSourceKey } from "./probe.js";
export { type DroppedKind, type RewriteInput, type RewriteResult, rewritePartition } from "./rewrite.js";
export {
  type PartitionDeletes,
  planSource,
  type SourcePartition,
  type SourcePlanInput,
} from "./source-batch.js";
export {
  type ColumnValues,
  compareCodePoints,
  type KeyRangeOptions,
  type KeyRangeSource,
  sourceKeyRanges,
  statsMayHoldKey,
} from "./stats-prune.js";
export type { MissingColumns, PruneStrategy, UpsertOptions, UpsertStats } from "./types.js";
export { upsert } from "./upsert.js";
