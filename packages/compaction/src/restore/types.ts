/**
 * The public shapes of `restore`: what it is asked to go back to, its options, and its result (delta-rs's
 * `RestoreMetrics` under delta-rs's names plus our counters).
 */
import type { PostCommitHooks } from "@deltalite/delta-log";

/** A version (an integer ≥ 0), or an instant (a Date or ISO 8601 text) resolved by commit file times. */
export type RestoreTarget = number | Date | string;

export interface RestoreOptions {
  /** Entries written flat into commitInfo. */
  commitMetadata?: Record<string, unknown> | undefined;
  /**
   * Re-add files even when they are gone from storage (delta-rs's `ignore_missing_files`; default false: a
   * missing file is a `not_found` error and nothing is committed).
   */
  ignoreMissingFiles?: boolean | undefined;
  /** HEAD requests in flight while checking that the files to re-add exist (default 8). */
  headConcurrency?: number | undefined;
  /** Post-commit maintenance (default: delta-log's checkpoint + log cleanup). */
  hooks?: PostCommitHooks | undefined;
  signal?: AbortSignal | undefined;
}

/** delta-rs's restore metrics (python `DeltaTable.restore()`'s dict), by delta-rs's names. */
export interface RestoreMetrics {
  /** Live files the restore removed (added after the target version). */
  numRemovedFile: number;
  /** Files of the target version the restore added back. */
  numRestoredFile: number;
}

export interface RestoreResult extends RestoreMetrics {
  /** The version of the RESTORE commit. */
  version: number;
  /** The version whose files are live again. */
  restoredVersion: number;
  /** The version the restore was computed on. */
  readVersion: number;
  bytesRestored: number;
  bytesRemoved: number;
  /** Files checked with a HEAD before committing (0 with `ignoreMissingFiles`). */
  filesChecked: number;
  executionTimeMs: number;
  /** Set when post-commit maintenance failed; the commit itself is durable. */
  maintenanceError?: unknown;
}
