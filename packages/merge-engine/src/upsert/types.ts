/**
 * The upsert's public shapes: its options (the knobs this pipeline honours) and `UpsertStats`, the
 * original deltalite's counters and per-phase timings camelCased. Test hooks (the key hasher, the budget
 * observer) are not here: they live in hooks.ts, reachable through `@deltalite/merge-engine/internal`.
 */

import type { ProcessBudgets } from "@deltalite/data-files";
import type { AppTransaction, PostCommitHooks } from "@deltalite/delta-log";
import type { ParquetCodec } from "@deltalite/parquet-stream";
import type { ProbeCache } from "@deltalite/probe-cache";

export type PruneStrategy = "probe" | "stats" | "none";

/**
 * What a replaced row gets in the table columns the source lacks (key columns and the partition column are
 * never "missing": the source must carry them):
 * - `"null"` (default, the original deltalite's insert-or-replace): the source row replaces the target row
 *   whole, so those columns become NULL;
 * - `"keep"`: they keep the values of the target row being replaced (delta-rs / Spark MERGE
 *   `whenMatchedUpdateAll` + `whenNotMatchedInsertAll` on a partial source); inserted rows get NULL there;
 * - `"error"`: the upsert refuses a source that lacks any table column, with kind `schema_mismatch`
 *   naming the columns, before anything is written.
 *
 * With `"null"` and `"keep"`, a NOT NULL table column the source lacks is first relaxed to nullable
 * (inserted rows hold NULL there), as `UpsertStats.columnsRelaxed` reports.
 */
export type MissingColumns = "null" | "keep" | "error";

/**
 * Options of `upsert`.
 *
 * **Row identity.** A row is identified by its partition value and its primary key together: a source row
 * replaces the target rows of the same partition whose key equals its own (NULL never equals anything, so
 * a row with a NULL key column is always inserted). A key that arrives with another partition value than
 * the row already in the table does not move that row: it inserts a second row in the new partition and the
 * old one stays (as the original deltalite does, and as delta-rs MERGE does with the predicate
 * `t.part = s.part AND t.key = s.key`). Within one partition the source must not repeat a key.
 */
export interface UpsertOptions {
  /**
   * Primary-key columns (top-level table columns), matched within a partition (see row identity above).
   * The source must carry every one of them.
   */
  primaryKeys: readonly string[];
  /**
   * The table's partition column, given as a check: when set it must name the table's partition column
   * (an upsert supports tables with at most one), else the upsert refuses with kind `invalid_argument`
   * saying what the table is partitioned by. Rows are matched within their partition either way.
   */
  partitionKey?: string | undefined;
  /** Columns the source lacks: NULL in replaced rows (default), kept from the target, or refused. */
  missingColumns?: MissingColumns | undefined;
  /**
   * A boolean source column (never written; it must not be a table column) marking deletes: a row where
   * it is true deletes the target rows with its key (if any) and is not inserted; false or NULL upserts as
   * usual. delta-rs MERGE `whenMatchedDelete(s.flag)` + `whenMatchedUpdateAll` +
   * `whenNotMatchedInsertAll(s.flag IS NOT TRUE)`, the flag excepted. Keys must still be unique.
   */
  deleteColumn?: string | undefined;
  /**
   * Exactly-once: the MERGE commit carries this `txn` action; when the table already holds `appId` at
   * `version` or later the upsert is skipped before the source is read (`skipped: true`, `committed:
   * false`). A concurrent commit of the same appId fails the upsert with a non-retryable `conflict`.
   */
  txn?: AppTransaction | undefined;
  /** Entries written flat into commitInfo. */
  commitMetadata?: Record<string, unknown> | undefined;
  /** How candidate files are narrowed before the rewrite (default "probe"). */
  pruneStrategy?: PruneStrategy | undefined;
  /** Default: the table's `delta.targetFileSize`, else the writer's default (100 MiB). */
  targetFileSize?: number | undefined;
  maxRowGroupBytes?: number | undefined;
  maxRowGroupRows?: number | undefined;
  /** Rows per decoded batch when streaming target files (default 8192). */
  readBatchSize?: number | undefined;
  /** Parquet codec of the new files (default snappy, like delta-rs). */
  codec?: ParquetCodec | undefined;
  /** New files at least this large are streamed with a multipart put. */
  multipartThresholdBytes?: number | undefined;
  multipartPartSizeBytes?: number | undefined;
  multipartConcurrency?: number | undefined;
  /** Ranged reads of target files: largest single GET and GETs in flight per file. */
  rangeGetPartSizeBytes?: number | undefined;
  rangeGetConcurrency?: number | undefined;
  /** Row groups fetched ahead while the rewrite decodes the current one (default 1). */
  readAheadRowGroups?: number | undefined;
  /** Candidate files probed at once (default 8; each also holds a file permit). */
  probeConcurrency?: number | undefined;
  /**
   * Partitions rewritten at once (default 2; also bounded by the process-wide budget). One more partition
   * probes meanwhile, so a rewrite starts as soon as another ends; its reads hold file permits.
   */
  maxParallelPartitions?: number | undefined;
  /** Data files open at once, probes and rewrite readers together (default 4). */
  maxParallelFiles?: number | undefined;
  /** Decoded Arrow bytes of target batches in flight (default 64 MiB). */
  maxBufferedBytes?: number | undefined;
  /** Compressed bytes fetched and not yet decoded (default 128 MiB). */
  maxFetchBytes?: number | undefined;
  /** How long one wait for budget permits may last before a `timeout` error (default 10 min). */
  permitWaitTimeoutMs?: number | undefined;
  /** Deadline of the whole call: past it the upsert stops with kind `timeout`, writing nothing. */
  timeoutMs?: number | undefined;
  /** The shared budgets (default: the process-wide ones, sized from the environment). */
  processBudgets?: ProcessBudgets | undefined;
  /** The probe cache (default: the process-wide one). */
  probeCache?: ProbeCache | undefined;
  /** Source guard: Arrow buffer bytes of the whole source (default 2 GiB; 0 disables). */
  maxSourceBytes?: number | undefined;
  /** Re-plans after a retryable commit conflict (default 5). */
  maxReplans?: number | undefined;
  /** Post-commit maintenance (default: delta-log's checkpoint + log cleanup on the interval boundary). */
  hooks?: PostCommitHooks | undefined;
  signal?: AbortSignal | undefined;
}

export interface UpsertStats {
  /** The version this upsert committed, or (`committed: false`) the version of the table as it is. */
  version: number;
  /** True when this call committed a version (every upsert does, unless skipped). */
  committed: boolean;
  /** True when `txn` was already applied: nothing was read, written or committed; every count is 0. */
  skipped: boolean;
  /** Source rows, delete rows included. */
  sourceRows: number;
  /** Source rows inserted (new keys and NULL-key rows). */
  rowsInserted: number;
  /** Target rows replaced by a source row (equals the source rows that matched unless the table already
   * held a key twice: MERGE then updates every matching row). */
  rowsUpdated: number;
  /**
   * Upserting (not deleting) source rows that matched at least one target row
   * (rowsInserted + sourceRowsMatched + sourceDeleteRows = sourceRows).
   */
  sourceRowsMatched: number;
  /** Source rows flagged by `deleteColumn` (never inserted, whether or not they matched). */
  sourceDeleteRows: number;
  /** Target rows deleted by a delete row of the source (MERGE's numTargetRowsDeleted). */
  rowsDeleted: number;
  /** Target rows of rewritten files kept unchanged. */
  rowsCopied: number;
  /** Source rows with a NULL in a key column (inserted, never matched). */
  nullPkRows: number;
  partitionsTouched: number;
  /** Live files of the touched partitions. */
  filesCandidates: number;
  /** Candidate files ruled out by their Add stats. */
  filesPrunedByStats: number;
  /** Candidate files whose key columns the probe read. */
  filesProbed: number;
  /** Candidate files decided from the probe cache (no read). */
  filesProbeCached: number;
  /** Candidate files left untouched (pruned by stats or without a hit). */
  filesCarriedOver: number;
  filesRemoved: number;
  /** Removed files whose rows went to the encoder worker undecoded (rewrite-passthrough.ts). */
  filesPassedThrough: number;
  filesAdded: number;
  /** Stored size of the rewritten files. */
  bytesRead: number;
  bytesWritten: number;
  /** Non-nullable columns relaxed to nullable (by a metadata commit before the upsert's own commit). */
  columnsRelaxed: number;
  /** Plans made (1 + re-plans after commit conflicts). */
  planAttempts: number;
  ingestMs: number;
  openMs: number;
  /** The nullability-relax check and its metadata commit. */
  relaxMs: number;
  /**
   * Listing the touched partitions' files and pruning them by their stats. A partition is pruned in its probe
   * turn, while earlier partitions rewrite, so this part of it overlaps `rewriteMs`.
   */
  planMs: number;
  probeMs: number;
  rewriteMs: number;
  commitMs: number;
  /** Post-commit checkpoint + log cleanup (non-zero only on checkpoint-boundary commits); not in commitMs. */
  maintenanceMs: number;
  executionTimeMs: number;
  /** Set when post-commit maintenance failed; the upsert itself is durable. */
  maintenanceError?: unknown;
}
