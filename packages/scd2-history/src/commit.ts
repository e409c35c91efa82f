/**
 * The one commit of a history upsert: a remove for every rewritten current-partition file, an add for every
 * new file, the call's `txn` action when it has one, and — when the written rows put a NULL into a
 * non-nullable column — the relaxed schema in the same commit, recorded as a MERGE whose predicate says
 * what the operation matched (the open row of each key, null-safe, in the current partition). It is never rebased: losing the race for the version is a
 * retryable `conflict`, and the caller plans again against the newer table.
 */
import {
  type Action,
  type CommitResult,
  commitTransaction,
  defaultMaintenanceHooks,
  removeForFile,
  type Snapshot,
  schemaToJson,
  txnActions,
} from "@deltalite/delta-log";
import type { HistoryPlan } from "./plan.js";
import type { HistoryShape } from "./shape.js";
import type { HistoryUpsertOptions } from "./types.js";
import type { HistoryWrites } from "./write.js";

const quoted = (name: string) => `\`${name.replace(/`/g, "``")}\``;

/** The MERGE predicate as recorded in commitInfo. */
export function historyPredicate(shape: HistoryShape): string {
  const value = shape.currentPartition.replace(/'/g, "''");
  return [
    `t.${quoted(shape.partitionColumn)} = '${value}'`,
    ...shape.keyColumns.map((k) => `t.${quoted(k)} <=> s.${quoted(k)}`),
    `t.${quoted(shape.validToColumn)} IS NULL`,
  ].join(" AND ");
}

export interface HistoryCommitInput {
  snapshot: Snapshot;
  shape: HistoryShape;
  plan: HistoryPlan;
  writes: HistoryWrites;
  rowsIn: number;
  /** Columns made nullable in this commit. */
  relax: readonly string[];
  options: HistoryUpsertOptions;
  /** performance.now() when the attempt began (for executionTimeMs). */
  startedAt: number;
  signal: AbortSignal | undefined;
}

export function commitHistory(input: HistoryCommitInput): Promise<CommitResult> {
  const { snapshot, shape, plan, writes, options } = input;
  const deletionTimestamp = Date.now();
  const actions: Action[] = [
    ...relaxAction(snapshot, input.relax),
    ...plan.hitFiles.map((file): Action => ({ remove: removeForFile(file, { deletionTimestamp }) })),
    ...writes.adds.map((add): Action => ({ add })),
    ...txnActions(options.txn),
  ];
  const inserted = plan.versionsOpened + plan.chainRowsClosed;
  return commitTransaction(snapshot, actions, {
    operation: "MERGE",
    operationParameters: {
      predicate: historyPredicate(shape),
      matchedPredicates: JSON.stringify([
        {
          actionType: "update",
          predicate: `s.${quoted(shape.orderColumn)} > t.${quoted(shape.orderColumn)}`,
        },
      ]),
      notMatchedPredicates: JSON.stringify([{ actionType: "insert" }]),
      notMatchedBySourcePredicates: "[]",
    },
    operationMetrics: {
      numSourceRows: input.rowsIn,
      numTargetRowsInserted: inserted,
      numTargetRowsUpdated: plan.versionsClosed,
      numTargetRowsDeleted: 0,
      numTargetRowsCopied: writes.rowsCopied,
      numOutputRows: inserted + plan.versionsClosed + writes.rowsCopied,
      numTargetFilesAdded: writes.adds.length,
      numTargetFilesRemoved: plan.hitFiles.length,
      executionTimeMs: Math.round(performance.now() - input.startedAt),
    },
    commitMetadata: options.commitMetadata,
    read: { kind: "partitions", partitions: [{ [shape.partitionColumn]: shape.currentPartition }] },
    // Never rebased (delta-rs does not check a concurrent commit that only adds files): a lost race re-plans.
    maxRetries: 0,
    hooks: options.hooks ?? defaultMaintenanceHooks(),
    signal: input.signal,
  });
}

/** The metaData action making `columns` nullable (none when empty). */
function relaxAction(snapshot: Snapshot, columns: readonly string[]): Action[] {
  if (columns.length === 0) return [];
  const relax = new Set(columns);
  const schema = {
    ...snapshot.deltaSchema,
    fields: snapshot.deltaSchema.fields.map((f) => (relax.has(f.name) ? { ...f, nullable: true } : f)),
  };
  return [{ metaData: { ...snapshot.metadata, schemaString: schemaToJson(schema) } }];
}
