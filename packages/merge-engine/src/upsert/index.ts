/** The upsert pipeline: validate, plan per partition, prune (stats, probe), rewrite, one MERGE commit. */
export { compareCodePoints, statsMayHoldKey } from "./stats-prune.js";
export type { PruneStrategy, UpsertOptions, UpsertStats } from "./types.js";
export { batchBytes, DEFAULT_MAX_SOURCE_BYTES, type UpsertSource, upsert } from "./upsert.js";
