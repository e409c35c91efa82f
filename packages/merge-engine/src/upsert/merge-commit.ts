/**
 * The attempt's one MERGE commit: the counters of every partition's outcome summed, a remove for every hit
 * file and an add for every new one, committed with delta-rs's operationParameters and Spark's
 * operationMetrics names and the read set the conflict checker needs (the touched partitions), plus the
 * call's `txn` action when it has one. With a `deleteColumn` the predicates name the delete clause first,
 * as delta-rs records `whenMatchedDelete` + `whenMatchedUpdateAll` + `whenNotMatchedInsertAll`.
 */
import {
  type Action,
  type CommitResult,
  commitTransaction,
  defaultMaintenanceHooks,
  type ReadSet,
  removeForFile,
  type Snapshot,
  txnActions,
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
  | "filesPassedThrough"
  | "filesAdded"
  | "rowsUpdated"
  | "sourceRowsMatched"
  | "sourceDeleteRows"
  | "rowsDeleted"
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
    sourceDeleteRows: partitions.reduce((n, p) => n + (p.deletes?.count ?? 0), 0),
    rowsDeleted: 0,
    partitionsTouched: partitions.length,
    filesCandidates: 0,
    filesPrunedByStats: 0,
    filesProbed: 0,
    filesProbeCached: 0,
    filesRemoved: 0,
    filesPassedThrough: 0,
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
    stats.rowsDeleted += result.rowsDeleted;
    stats.rowsCopied += result.rowsCopied;
    stats.bytesRead += result.bytesRead;
    stats.bytesWritten += result.bytesWritten;
    stats.filesAdded += result.adds.length;
    stats.filesRemoved += outcome.hits.length;
    stats.filesPassedThrough += result.filesPassedThrough;
    for (const add of result.adds) adds.push({ add });
    for (const cdc of outcome.cdc) adds.push({ cdc });
    for (const file of outcome.hits) removes.push({ remove: removeForFile(file, { deletionTimestamp }) });
  }
  return [...removes, ...adds];
}

/**
 * On a table with the change data feed on, a MERGE that wrote no change data changed no row: the files it
 * rewrote (prune strategies `stats` / `none` rewrite files without a match) only moved rows, so its adds
 * and removes carry `dataChange: false` and change-data readers derive nothing from them.
 */
export function rearrangedIfUnchanged(actions: readonly Action[], changeDataFeed: boolean): Action[] {
  if (!changeDataFeed || actions.some((a) => "cdc" in a)) return [...actions];
  return actions.map((a) =>
    "add" in a
      ? { add: { ...a.add, dataChange: false } }
      : "remove" in a
        ? { remove: { ...a.remove, dataChange: false } }
        : a,
  );
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
  const rowsInserted = rowsInsertedOf(stats);
  const read: ReadSet =
    partitions.length === 0
      ? { kind: "none" }
      : shape.partitionColumn === undefined
        ? { kind: "table" }
        : { kind: "partitions", partitions: partitions.map((p) => p.values) };
  return commitTransaction(snapshot, [...actions, ...txnActions(options.txn)], {
    operation: "MERGE",
    operationParameters: {
      predicate: predicateOf(shape),
      ...clausePredicates(options.deleteColumn),
      notMatchedBySourcePredicates: "[]",
    },
    operationMetrics: {
      numSourceRows: stats.sourceRows,
      numTargetRowsInserted: rowsInserted,
      numTargetRowsUpdated: stats.rowsUpdated,
      numTargetRowsDeleted: stats.rowsDeleted,
      numTargetRowsCopied: stats.rowsCopied,
      numOutputRows: rowsInserted + stats.rowsUpdated + stats.rowsCopied,
      numTargetFilesAdded: stats.filesAdded,
      numTargetFilesRemoved: stats.filesRemoved,
      executionTimeMs: Math.round(performance.now() - context.startedAt + stats.planMs + stats.rewriteMs),
    },
    commitMetadata: options.commitMetadata,
    read,
    changeData: "written",
    hooks: options.hooks ?? defaultMaintenanceHooks(),
    signal: context.signal,
  });
}

/** Source rows inserted: neither matched nor deletes. */
export function rowsInsertedOf(
  stats: Pick<AttemptStats, "sourceRows" | "sourceRowsMatched" | "sourceDeleteRows">,
): number {
  return stats.sourceRows - stats.sourceRowsMatched - stats.sourceDeleteRows;
}

/** `matchedPredicates` / `notMatchedPredicates` as delta-rs records its clauses. */
function clausePredicates(deleteColumn: string | undefined): Record<string, string> {
  if (deleteColumn === undefined) {
    return {
      matchedPredicates: JSON.stringify([{ actionType: "update" }]),
      notMatchedPredicates: JSON.stringify([{ actionType: "insert" }]),
    };
  }
  const flag = `s.\`${deleteColumn.replace(/`/g, "``")}\``;
  return {
    matchedPredicates: JSON.stringify([{ actionType: "delete", predicate: flag }, { actionType: "update" }]),
    notMatchedPredicates: JSON.stringify([{ actionType: "insert", predicate: `${flag} IS NOT TRUE` }]),
  };
}
