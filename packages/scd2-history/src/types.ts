/**
 * The public shapes of `historyUpsert`: its options (the history columns, plus the upsert knobs that apply
 * to it) and `HistoryUpsertStats`, the counters and the upsert's per-phase timings, camelCased.
 */
import type { ProcessBudgets } from "@deltalite/data-files";
import type { PostCommitHooks } from "@deltalite/delta-log";
import type { UpsertOptions, UpsertStats } from "@deltalite/merge-engine";

/**
 * The upsert knobs that apply to a history upsert (see `UpsertOptions` for each). `txn` makes a batch
 * exactly-once: the commit carries the `txn` action, and a call whose `appId` the table already holds at
 * `version` or later is skipped before the source is read (`skipped: true`, `committed: false`); a
 * concurrent commit of the same `appId` is a non-retryable conflict. `timeoutMs` is the deadline of the
 * whole call: past it the call stops with kind `timeout`, committing nothing.
 */
export interface HistoryUpsertKnobs
  extends Pick<
    UpsertOptions,
    | "commitMetadata"
    | "targetFileSize"
    | "maxRowGroupBytes"
    | "maxRowGroupRows"
    | "readBatchSize"
    | "codec"
    | "multipartThresholdBytes"
    | "multipartPartSizeBytes"
    | "multipartConcurrency"
    | "rangeGetPartSizeBytes"
    | "rangeGetConcurrency"
    | "readAheadRowGroups"
    | "probeConcurrency"
    | "maxParallelPartitions"
    | "maxParallelFiles"
    | "maxBufferedBytes"
    | "maxFetchBytes"
    | "permitWaitTimeoutMs"
    | "timeoutMs"
    | "txn"
    | "maxSourceBytes"
    | "signal"
  > {}

/**
 * Options of `historyUpsert` (an SCD type 2 history table: one row per version of a key). Open versions
 * (`validToColumn` NULL) live in the `currentPartition` value of `partitionColumn`; a closed version lives
 * in the partition named by its `validToColumn` as `%Y-%m` in UTC.
 *
 * `maxParallelPartitions` is accepted and has no effect: only the current partition is rewritten.
 */
export interface HistoryUpsertOptions extends HistoryUpsertKnobs {
  /** The key of a history (compared null-safely: a NULL key part matches a NULL key part). */
  keyColumns: readonly string[];
  /** Orders the versions of a key; a row is kept only when it is newer than the key's open row. */
  orderColumn: string;
  /** When a version starts; the version before it closes at this instant. */
  validFromColumn: string;
  /** When a version ends (NULL while open); set by the operation, never carried by the source. */
  validToColumn: string;
  /** The table's one partition column (a string column); set by the operation. */
  partitionColumn: string;
  /** The partition value of the open versions. */
  currentPartition: string;
  /**
   * Among source rows of one key with the same order value, the highest value of this column wins (NULL
   * lowest; on a tie the later row). Must have a fixed-width type; written only when the table has it.
   */
  tieBreakColumn?: string | undefined;
  /** Re-plans after another writer committed first (default 5); the commit itself is never rebased. */
  maxReplans?: number | undefined;
  /** Post-commit maintenance (default: delta-log's checkpoint + log cleanup on the interval boundary). */
  hooks?: PostCommitHooks | undefined;
  /** The shared budgets (default: the process-wide ones). */
  processBudgets?: ProcessBudgets | undefined;
}

/** The counters and per-phase timings a history upsert shares with the upsert (same meaning; see `UpsertStats`). */
export interface HistoryUpsertTimings
  extends Pick<
    UpsertStats,
    | "planAttempts"
    | "ingestMs"
    | "planMs"
    | "probeMs"
    | "rewriteMs"
    | "commitMs"
    | "maintenanceMs"
    | "executionTimeMs"
    | "maintenanceError"
  > {}

/** What `historyUpsert` did. Kept rows = `versionsOpened + chainRowsClosed`. */
export interface HistoryUpsertStats extends HistoryUpsertTimings {
  /** The version committed, or (`committed: false`) the version the call planned against. */
  version: number;
  /** False when no source row was kept (nothing was written or committed), or when skipped. */
  committed: boolean;
  /** True when `txn` was already applied: nothing was read, written or committed; every count is 0. */
  skipped: boolean;
  /** Source rows (= rowsDeduped + rowsReread + rowsBackwards + kept rows). */
  rowsIn: number;
  /** Rows dropped because another row of their key had the same order value and won. */
  rowsDeduped: number;
  /** Rows whose order value equals their key's open row's. */
  rowsReread: number;
  /** Rows whose order value is below their key's open row's. */
  rowsBackwards: number;
  /** New open rows (one per key that keeps a row). */
  versionsOpened: number;
  /** Open rows closed (and moved to the month partition of their valid-to). */
  versionsClosed: number;
  /** Kept rows written closed (all but the newest of a key's kept rows). */
  chainRowsClosed: number;
  /** Rows of rewritten current-partition files copied unchanged. */
  rowsCopied: number;
  filesAdded: number;
  filesRemoved: number;
  /** Current-partition files left untouched. */
  filesCarriedOver: number;
  /** Current-partition files whose key and order columns were read. */
  filesProbed: number;
  /** Current-partition files ruled out by their Add stats. */
  filesPrunedByStats: number;
  /** Stored size of the rewritten files. */
  bytesRead: number;
  bytesWritten: number;
  /** Non-nullable columns made nullable (in the same commit). */
  columnsRelaxed: number;
  /** Snapshot loads of the re-plans. */
  openMs: number;
  /** Always 0: the nullability-relax check runs inside the ingest and the relax is part of the one commit. */
  relaxMs: number;
}
