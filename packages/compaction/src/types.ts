/**
 * The compaction's public shapes: `CompactOptions` (the knobs of the original deltalite's compaction and the
 * upstream's `compact`, camelCased) and `CompactResult` (our counters plus delta-rs's OPTIMIZE metrics under
 * delta-rs's own names).
 */
import type { BudgetObserver, ProcessBudgets } from "@deltalite/data-files";
import type { PostCommitHooks } from "@deltalite/delta-log";

/**
 * Test and diagnostics hooks of a compaction, kept off the public `CompactOptions`; reachable through
 * `@deltalite/compaction/internal` (`compactWithHooks`).
 */
export interface CompactHooks {
  /** Every admitted / released byte and every decoded batch held. */
  budgetObserver?: BudgetObserver | undefined;
}

/** A partition value to match: one value, or any of several (delta-rs's `=` and `in` partition filters). */
export type PartitionValueMatch = string | null | readonly (string | null)[];

export interface CompactOptions {
  /** Bins close at this many stored bytes (default: the table's `delta.targetFileSize`, else 100 MiB). */
  targetFileSize?: number | undefined;
  /**
   * Limit compaction to partitions whose values match every entry (column → value or values), as delta-rs's
   * `partition_filters` of `=` / `in`. Values are the partition values as the log holds them (strings).
   */
  partitions?: Readonly<Record<string, PartitionValueMatch>> | undefined;
  /**
   * A partition is compacted only when its bins remove at least this many more files than they write (files
   * removed − bins, as the original deltalite counts; default 1: every partition with a bin).
   */
  minPartitionRemovableFiles?: number | undefined;
  /** Bins rewritten at once (default 2; also bounded by the process-wide partitions budget). */
  maxParallelBins?: number | undefined;
  /** Data files open at once (default 4). */
  maxParallelFiles?: number | undefined;
  /** Decoded Arrow bytes of input batches in flight (default 64 MiB, shared with the process budget). */
  maxBufferedBytes?: number | undefined;
  /** Compressed bytes fetched and not yet decoded (default 128 MiB). */
  maxFetchBytes?: number | undefined;
  /** Rows per decoded input batch (default 8192, DataFusion's batch size). */
  readBatchSize?: number | undefined;
  /** An output file closes once this many decoded bytes went into it (default 1 GiB). */
  maxDecodedFileBytes?: number | undefined;
  /**
   * What one bin's open output row group may cost in memory (default 128 MiB): a row group closes at this
   * many decoded bytes, and sooner at a fifth of it in encoded bytes, since the Parquet encoder holds about
   * five copies of a row group's encoded bytes while it writes one.
   */
  maxRowGroupDecodedBytes?: number | undefined;
  /** Bins per OPTIMIZE commit (default: all in one commit). */
  maxBinsPerCommit?: number | undefined;
  /** Re-plans of partitions whose bins a concurrent commit invalidated (default 1). */
  maxReplanRounds?: number | undefined;
  /** Commit retries after losing a race (default 15). */
  commitMaxRetries?: number | undefined;
  /** Plan only: nothing is read, written or committed (default false). */
  dryRun?: boolean | undefined;
  /** Entries written flat into commitInfo. */
  commitMetadata?: Record<string, unknown> | undefined;
  /** Output files stream with a multipart put once they reach this size (default: the part size). */
  multipartThresholdBytes?: number | undefined;
  /** Bytes per multipart part (default 16 MiB); one part's worth is queued per file being written. */
  multipartPartSizeBytes?: number | undefined;
  multipartConcurrency?: number | undefined;
  rangeGetPartSizeBytes?: number | undefined;
  rangeGetConcurrency?: number | undefined;
  readAheadRowGroups?: number | undefined;
  /** How long one wait for budget permits may last (default 10 min). */
  permitWaitTimeoutMs?: number | undefined;
  /** Told how far the rewrite is: when planning is done, after each input file read and each bin written. */
  onProgress?: ((progress: CompactProgress) => void) | undefined;
  /** The shared budgets (default: the process-wide ones). */
  processBudgets?: ProcessBudgets | undefined;
  /** Post-commit maintenance (default: delta-log's checkpoint + log cleanup). */
  hooks?: PostCommitHooks | undefined;
  signal?: AbortSignal | undefined;
}

/** How far a compaction (or Z-order) is: bins and the stored bytes of their input files. */
export interface CompactProgress {
  /** Bins to rewrite (a re-plan after a lost race adds its bins). */
  bins: number;
  /** Bins rewritten (written, not necessarily committed yet). */
  binsDone: number;
  /** Stored bytes of the bins' input files. */
  bytes: number;
  /** Of those, bytes read so far. */
  bytesDone: number;
}

/** delta-rs's `MetricDetails`: sizes of the files added or removed. */
export interface FileSizeSummary {
  avg: number;
  max: number;
  min: number;
  totalFiles: number;
  totalSize: number;
}

/** delta-rs's OPTIMIZE metrics (python `optimize.compact()`'s dict), by delta-rs's names. */
export interface OptimizeMetrics {
  numFilesAdded: number;
  numFilesRemoved: number;
  filesAdded: FileSizeSummary;
  filesRemoved: FileSizeSummary;
  partitionsOptimized: number;
  numBatches: number;
  totalConsideredFiles: number;
  totalFilesSkipped: number;
  preserveInsertionOrder: boolean;
  plannerStrategy: string;
  preservedStableOrder: boolean;
  maxBinSpanFiles: number;
}

/** delta-rs's metrics (its `numFilesAdded` / `numFilesRemoved` are the file counts) plus our counters. */
export interface CompactResult extends OptimizeMetrics {
  /** The last version this call committed (the snapshot's when nothing was committed). */
  version: number;
  dryRun: boolean;
  filesConsidered: number;
  filesSkipped: number;
  partitionsCompacted: number;
  /** Bins committed (planned, in a dry run). */
  bins: number;
  bytesRemoved: number;
  bytesAdded: number;
  rowsRewritten: number;
  batchesRead: number;
  /** Input files handed to the encoder undecoded (compaction's passthrough; the rest were decoded in JS). */
  filesPassedThrough: number;
  /** Bins rewritten at once. */
  parallelBins: number;
  commits: number;
  /** Lost races the commit path rebased past. */
  commitRetries: number;
  /** Bins dropped because a concurrent commit removed one of their inputs (their output deleted). */
  binsDropped: number;
  replanRounds: number;
  largestBinFiles: number;
  planMs: number;
  rewriteMs: number;
  commitMs: number;
  executionTimeMs: number;
  /** Set when post-commit maintenance failed; the commit itself is durable. */
  maintenanceError?: unknown;
}

/** zOrder's knobs: compact's (but `minPartitionRemovableFiles`: every file of a partition is rewritten). */
export interface ZOrderOptions extends Omit<CompactOptions, "minPartitionRemovableFiles"> {
  /**
   * Decoded Arrow bytes of one partition's rows held by its sort (default 64 MiB, per partition rewritten at
   * once). A partition with more is sorted externally: sorted runs spilled to local disk, then merged.
   */
  maxSortBytes?: number | undefined;
  /** Where spilled runs go (a private folder is made in it and removed; default: the OS temp folder). */
  spillDirectory?: string | undefined;
}

export interface ZOrderResult extends CompactResult {
  /** The Z-order columns, in key order. */
  columns: string[];
  /** Partitions whose rows exceeded `maxSortBytes` and were sorted externally. */
  partitionsSpilled: number;
  /** Sorted runs written to disk (merge passes' runs included). */
  spilledRuns: number;
  spilledBytes: number;
}
