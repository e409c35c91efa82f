/**
 * @deltalite/merge-engine: the upsert's machinery — primary-key encoding and hashing (keys/), the
 * per-partition source key set and `keyBuckets`, and the upsert pipeline (upsert/: validate, relax,
 * per-partition stats prune and exact key probe (consulting the probe cache), streaming rewrite, one MERGE
 * commit; deletes through a boolean `deleteColumn`, exactly-once batches through `txn`), run under the budgets @deltalite/data-files holds for every engine of the process. Test hooks
 * are in `@deltalite/merge-engine/internal` (internal.ts).
 */

export { tableKeyBuckets } from "./keys/buckets.js";
export type { ColumnEncoding, FixedColumnEncoding, VariableColumnEncoding } from "./keys/column-encoding.js";
export { encodeColumn, keyTypeSignature } from "./keys/column-encoding.js";
export { EncodedKeys, type EncodeKeysOptions, encodeKeys, keySpaceOf } from "./keys/encode-keys.js";
export { keyBuckets } from "./keys/key-buckets.js";
export { defaultKeyHasher, KEY_HASH_SEED, type KeyHasher, xxh64KeyHasher } from "./keys/key-hasher.js";
export { SourceKeySet, type SourceKeySetOptions, type SourceRows } from "./keys/source-key-set.js";
export { type Seed64, seed64, xxh64, xxh64Fixed, xxh64Ranges, xxh64Words8 } from "./keys/xxh64.js";
export { xxh64FixedWasm, xxh64RangesWasm, xxh64Words8Wasm } from "./keys/xxh64-wasm.js";
export {
  type ColumnValues,
  compareCodePoints,
  type DroppedKind,
  fileHoldsSourceKey,
  type KeyRangeOptions,
  type KeyRangeSource,
  type MissingColumns,
  type PartitionDeletes,
  type PruneStrategy,
  planSource,
  type RewriteInput,
  type RewriteResult,
  rewritePartition,
  type SourcePartition,
  type SourcePlanInput,
  sourceKeyRanges,
  statsMayHoldKey,
  type UpsertOptions,
  type UpsertSource,
  type UpsertStats,
  upsert,
} from "./upsert/index.js";
