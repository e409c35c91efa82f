/**
 * The attempt's one MERGE commit: the counters of every partition's outcome summed, a remove for every hit
 * file and an add for every new one, committed with delta-rs's operationParameters and Spark's
 * operationMetrics names and the read set the conflict checker needs (the touched partitions).
 */
import {
  type Action,
  type CommitResult,
  commitTransaction,
  defaultMaintenanceHooks,
  type ReadSet,
  removeForFile,
  type Snapshot,
} from "@deltalite/delta-log";
import type { PartitionOutcome } from "./partitions.js";
import { predicateOf, type TableShape } from "./shape.js";
import type { SourcePartition } from "./source-batch.js";
import type { UpsertOptions, UpsertStats } from "./types.js";

/** The counters one attempt accumulates (the UpsertStats fields it owns). */
export type AttemptStats = Pick<
  UpsertStats,
  | "sourceRows"
  | "nullPkRows"
  | "partitionsTouched"
  | "filesCandidates"
  | "filesPrunedByStats"
  | "filesProbed"
  | "filesProbeCached"
  | "filesRemoved"
  | "filesAdded"
  | "rowsUpdated"
  | "sourceRowsMatched"
  | "rowsCopied"
  | "bytesRead"
  | "bytesWritten"
  | "planMs"
  | "probeMs"
  | "rewriteMs"
>;

export function newAttemptStats(partitions: readonly SourcePartition[]): AttemptStats {
  return {
    sourceRows: partitions.reduce((n, p) => n + p.rows, 0),
    nullPkRows: partitions.reduce((n, p) => n + p.keys.nullKeyRows, 0),
    partitionsTouched: partitions.length,
    filesCandidates: 0,
    filesPrunedByStats: 0,
    filesProbed: 0,
    filesProbeCached: 0,
    filesRemoved: 0,
    filesAdded: 0,
    rowsUpdated: 0,
    sourceRowsMatched: 0,
    rowsCopied: 0,
    bytesRead: 0,
    bytesWritten: 0,
    planMs: 0,
    probeMs: 0,
    rewriteMs: 0,
  };
}

/** Adds the outcomes' counters to `stats`; returns the commit's removes (hit files) and adds (new files). */
export function mergeActions(stats: AttemptStats, outcomes: readonly PartitionOutcome[]): Action[] {
  const adds: Action[] = [];
  const removes: Action[] = [];
  const deletionTimestamp = Date.now();
  for (const outcome of outcomes) {
    const result = outcome.rewrite;
    stats.filesProbed += outcome.probed;
    stats.filesProbeCached += outcome.probeCached;
    stats.probeMs += outcome.probeMs;
    stats.rowsUpdated += result.rowsUpdated;
    stats.sourceRowsMatched += result.keysMatched;
    stats.rowsCopied += result.rowsCopied;
    stats.bytesRead += result.bytesRead;
    stats.bytesWritten += result.bytesWritten;
    stats.filesAdded += result.adds.length;
    stats.filesRemoved += outcome.hits.length;
    for (const add of result.adds) adds.push({ add });
    for (const file of outcome.hits) removes.push({ remove: removeForFile(file, { deletionTimestamp }) });
  }
  return [...removes, ...adds];
}

/** Commits the MERGE; `startedAt` is when the commit step began (its time joins plan and rewrite). */
export function commitMerge(
  snapshot: Snapshot,
  actions: readonly Action[],
  context: {
    shape: TableShape;
    partitions: readonly SourcePartition[];
    stats: AttemptStats;
    options: UpsertOptions;
    startedAt: number;
    signal: AbortSignal;
  },
): Promise<CommitResult> {
  const { shape, partitions, stats, options } = context;
  const rowsInserted = stats.sourceRows - stats.sourceRowsMatched;
  const read: ReadSet =
    partitions.length === 0
      ? { kind: "none" }
      : shape.partitionColumn === undefined
        ? { kind: "table" }
        : { kind: "partitions", partitions: partitions.map((p) => p.values) };
  return commitTransaction(snapshot, actions, {
    operation: "MERGE",
    operationParameters: {
      predicate: predicateOf(shape),
      matchedPredicates: JSON.stringify([{ actionType: "update" }]),
      notMatchedPredicates: JSON.stringify([{ actionType: "insert" }]),
      notMatchedBySourcePredicates: "[]",
    },
    operationMetrics: {
      numSourceRows: stats.sourceRows,
      numTargetRowsInserted: rowsInserted,
      numTargetRowsUpdated: stats.rowsUpdated,
      numTargetRowsDeleted: 0,
      numTargetRowsCopied: stats.rowsCopied,
      numOutputRows: rowsInserted + stats.rowsUpdated + stats.rowsCopied,
      numTargetFilesAdded: stats.filesAdded,
      numTargetFilesRemoved: stats.filesRemoved,
      executionTimeMs: Math.round(performance.now() - context.startedAt + stats.planMs + stats.rewriteMs),
    },
    commitMetadata: options.commitMetadata,
    read,
    hooks: options.hooks ?? defaultMaintenanceHooks(),
    signal: context.signal,
  });
}
