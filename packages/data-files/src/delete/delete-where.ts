/**
 * `deleteWhere(snapshot, filter, options)`: deletes the rows that satisfy a scan filter (the scan's list of
 * `{ column, op, value }` conditions, ANDed; an empty list deletes every row) in ONE `DELETE` commit shaped
 * as delta-rs 1.6.6 writes it (`operationParameters.predicate` as delta-rs records its SQL predicate,
 * delta-rs's `operationMetrics`). Files proven not to match stay; files proven to match entirely are
 * removed unread; the others are probed and, when they hold a matching row, rewritten without those rows
 * (delete-plan.ts, delete-rewrite.ts), streamed under the shared budgets. Nothing to delete → no commit
 * (as delta-rs). On a table with the change data feed on, the deleted rows of rewritten files are written
 * as `delete` change data (`_change_data/`, `cdc` actions), whole files included unless the filter names
 * only partition columns (then only removes, from which readers derive the deletes, as delta-rs). With
 * `txn` the commit carries the `txn` action and an applied batch is skipped before
 * anything is read. Everything is validated before a file is written; a failed delete deletes the files it
 * wrote (kept when the commit's outcome is unknown). A retryable commit conflict re-plans on the newest
 * snapshot (`maxReplans`, default 5); a concurrent schema change never does.
 */
import { setMaxListeners } from "node:events";
import {
  type Action,
  type AppTransaction,
  appTransactionApplied,
  type CdcAction,
  type CommitResult,
  changeDataFeedEnabled,
  checkAppTransaction,
  checkWriteSupport,
  commitTransaction,
  defaultMaintenanceHooks,
  discardWrittenFiles,
  type FileView,
  isAppendOnly,
  type PostCommitHooks,
  removeForFile,
  Snapshot,
  txnActions,
} from "@deltalite/delta-log";
import { DeltaLiteError, DeltaLiteInvalidArgumentError, isDeltaLiteError } from "@deltalite/errors";
import { Schema } from "apache-arrow";
import { CallBudgets, type CallLimits } from "../budgets/call-budgets.js";
import type { ProcessBudgets } from "../budgets/process-budgets.js";
import { mapLimit } from "../pool.js";
import { resolveFilter, type ScanFilterCondition } from "../scan/filter.js";
import { ChangeDataWriter, partitionColumnsOf } from "../write/change-data.js";
import type { DataFileWriterOptions } from "../write/data-file-writer.js";
import { targetFileSizeOf } from "../write/write-table.js";
import { type DeletePlan, planDelete } from "./delete-plan.js";
import { type DeleteContext, fileHoldsMatch, rewritePartitionFiles, rowCountOf } from "./delete-rewrite.js";
import { predicateText } from "./predicate-text.js";

export interface DeleteOptions
  extends CallLimits,
    Pick<
      DataFileWriterOptions,
      | "codec"
      | "maxRowGroupBytes"
      | "maxRowGroupRows"
      | "multipartThresholdBytes"
      | "multipartPartSizeBytes"
      | "multipartConcurrency"
    > {
  /** Exactly-once: the commit carries this `txn`; an appId already at `version` or later is skipped. */
  txn?: AppTransaction | undefined;
  /** Entries written flat into commitInfo. */
  commitMetadata?: Record<string, unknown> | undefined;
  /** Default: the table's `delta.targetFileSize`, else the writer's default (100 MiB). */
  targetFileSize?: number | undefined;
  /** Rows per decoded batch of the files read (default 8192). */
  readBatchSize?: number | undefined;
  readAheadRowGroups?: number | undefined;
  rangeGetPartSizeBytes?: number | undefined;
  rangeGetConcurrency?: number | undefined;
  permitWaitTimeoutMs?: number | undefined;
  /** The shared budgets (default: the process-wide ones). */
  processBudgets?: ProcessBudgets | undefined;
  /** Re-plans after a retryable commit conflict (default 5). */
  maxReplans?: number | undefined;
  /** Post-commit maintenance (default: delta-log's checkpoint + log cleanup on the interval boundary). */
  hooks?: PostCommitHooks | undefined;
  signal?: AbortSignal | undefined;
}

export interface DeleteResult {
  /** The version committed, or (`committed: false`) the version of the table as it is. */
  version: number;
  /** False when nothing matched (no commit, as delta-rs) or when skipped. */
  committed: boolean;
  /** True when `txn` was already applied: nothing was read, written or committed. */
  skipped: boolean;
  rowsDeleted: number;
  /** Rows of rewritten files kept. */
  rowsCopied: number;
  filesRemoved: number;
  filesAdded: number;
  /** Files removed without being read (their partition values and stats proved every row matches). */
  filesRemovedUnread: number;
  /** Files whose filter columns were read to find a matching row. */
  filesProbed: number;
  /** Files rewritten without their matching rows. */
  filesRewritten: number;
  /** Files proven (by partition values, stats or the probe) to hold no matching row. */
  filesUntouched: number;
  /** Stored size of the files rewritten. */
  bytesRead: number;
  bytesWritten: number;
  /** Plans made (1 + re-plans after commit conflicts). */
  planAttempts: number;
  scanTimeMs: number;
  rewriteTimeMs: number;
  executionTimeMs: number;
  commit?: CommitResult | undefined;
  /** Set when post-commit maintenance failed; the delete itself is durable. */
  maintenanceError?: unknown;
}

const POSITIVE_OPTIONS = [
  "targetFileSize",
  "maxRowGroupBytes",
  "maxRowGroupRows",
  "multipartThresholdBytes",
  "multipartPartSizeBytes",
  "multipartConcurrency",
  "readBatchSize",
] as const;

function validate(filter: unknown, options: DeleteOptions, table: string): void {
  if (!Array.isArray(filter)) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: delete needs a filter: a list of { column, op, value } conditions ([] deletes every row)`,
    );
  }
  checkAppTransaction(options.txn, table);
  for (const name of POSITIVE_OPTIONS) {
    const value: unknown = options[name];
    if (value !== undefined && !(typeof value === "number" && Number.isSafeInteger(value) && value > 0)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: delete option ${name} must be a positive integer (got ${String(value)})`,
      );
    }
  }
  const replans: unknown = options.maxReplans;
  if (
    replans !== undefined &&
    !(typeof replans === "number" && Number.isSafeInteger(replans) && replans >= 0)
  ) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: delete option maxReplans must be an integer ≥ 0 (got ${String(replans)})`,
    );
  }
}

/** Deletes the rows of `snapshot`'s table that satisfy `filter` (see the module comment). */
export async function deleteWhere(
  snapshot: Snapshot,
  filter: readonly ScanFilterCondition[],
  options: DeleteOptions = {},
): Promise<DeleteResult> {
  const started = performance.now();
  const table = snapshot.table;
  validate(filter, options, table);
  resolveFilter(filter, snapshot.deltaSchema, table); // a bad filter is refused even when the txn skips
  if (appTransactionApplied(snapshot, options.txn)) return emptyResult(snapshot, started, true, 0);
  // With the change data feed on, rewrites write their deleted rows as change data (attemptDelete).
  checkWriteSupport(snapshot.protocol, snapshot.metadata, table, "rewrite", "written");
  if (isAppendOnly(snapshot.metadata)) {
    throw new DeltaLiteError(
      "unsupported",
      `${table} is append-only (delta.appendOnly=true): deleting rows is not allowed`,
    );
  }
  const signal = options.signal ?? new AbortController().signal;
  setMaxListeners(0, signal);
  const budgets = new CallBudgets(options, {
    process: options.processBudgets,
    permitWaitTimeoutMs: options.permitWaitTimeoutMs,
    signal,
    label: `${table} delete`,
  });
  const maxReplans = options.maxReplans ?? 5;
  let current = snapshot;
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptDelete(current, filter, options, budgets, signal, attempt, started);
    } catch (error) {
      const replan =
        isDeltaLiteError(error) && error.kind === "conflict" && error.retryable && attempt <= maxReplans;
      if (!replan) throw error;
      const next = await Snapshot.open(current.store, { signal });
      if (next.schemaJson !== current.schemaJson) throw error;
      if (appTransactionApplied(next, options.txn)) return emptyResult(next, started, true, attempt);
      current = next;
    }
  }
}

function emptyResult(snapshot: Snapshot, started: number, skipped: boolean, attempts: number): DeleteResult {
  return {
    version: snapshot.version,
    committed: false,
    skipped,
    rowsDeleted: 0,
    rowsCopied: 0,
    filesRemoved: 0,
    filesAdded: 0,
    filesRemovedUnread: 0,
    filesProbed: 0,
    filesRewritten: 0,
    filesUntouched: 0,
    bytesRead: 0,
    bytesWritten: 0,
    planAttempts: attempts,
    scanTimeMs: 0,
    rewriteTimeMs: 0,
    executionTimeMs: performance.now() - started,
  };
}

/** One plan → probe → rewrite → commit; the files it wrote are discarded when it fails. */
async function attemptDelete(
  snapshot: Snapshot,
  filter: readonly ScanFilterCondition[],
  options: DeleteOptions,
  budgets: CallBudgets,
  signal: AbortSignal,
  attempt: number,
  started: number,
): Promise<DeleteResult> {
  const scanStart = performance.now();
  const plan = planDelete(snapshot, filter);
  // Change data feed on and rows chosen by data columns: whole files are read too, for their delete rows
  // (as delta-rs). A delete of whole partitions writes only removes; readers derive its deletes.
  const cdf = changeDataFeedEnabled(snapshot.metadata);
  if (cdf && plan.rowConditions.length > 0) {
    plan.mayMatch = [...plan.wholeFiles, ...plan.mayMatch];
    plan.wholeFiles = [];
  }
  const ctx = contextOf(snapshot, plan, options, budgets, signal);
  try {
    const probed = await mapLimit(plan.mayMatch, budgets.files.total, (file) => fileHoldsMatch(ctx, file));
    const hits = plan.mayMatch.filter((_, i) => probed[i]);
    const unreadRows = await mapLimit(plan.wholeFiles, budgets.files.total, (file) => rowCountOf(ctx, file));
    const scanTimeMs = performance.now() - scanStart;
    const result: DeleteResult = {
      ...emptyResult(snapshot, started, false, attempt),
      rowsDeleted: unreadRows.reduce((n, r) => n + r, 0),
      filesRemovedUnread: plan.wholeFiles.length,
      filesProbed: plan.mayMatch.length,
      filesRewritten: hits.length,
      filesUntouched: plan.untouched + plan.mayMatch.length - hits.length,
      bytesRead: hits.reduce((n, f) => n + f.size, 0),
      scanTimeMs,
    };
    if (hits.length === 0 && plan.wholeFiles.length === 0) return result;
    const rewriteStart = performance.now();
    const groups = byPartition(hits);
    const cdc: CdcAction[] = [];
    const rewrites = await mapLimit(groups, budgets.partitions.total, async (group) => {
      const permit = await budgets.acquirePartition();
      const changeData = cdf ? changeDataWriter(snapshot, ctx, group.values) : undefined;
      try {
        const rewrite = await rewritePartitionFiles(ctx, group.files, group.values, changeData);
        if (changeData) cdc.push(...(await changeData.finish()));
        return rewrite;
      } catch (error) {
        await changeData?.abort(error);
        throw error;
      } finally {
        permit.release();
      }
    });
    result.rewriteTimeMs = performance.now() - rewriteStart;
    const adds = rewrites.flatMap((r) => r.adds);
    for (const r of rewrites) {
      result.rowsDeleted += r.rowsDeleted;
      result.rowsCopied += r.rowsCopied;
      result.bytesWritten += r.bytesWritten;
    }
    const removed = [...plan.wholeFiles, ...hits];
    result.filesRemoved = removed.length;
    result.filesAdded = adds.length;
    const now = Date.now();
    const actions: Action[] = [
      ...adds.map((add) => ({ add })),
      ...cdc.map((c) => ({ cdc: c })),
      ...removed.map((f) => ({ remove: removeForFile(f, { deletionTimestamp: now }) })),
      ...txnActions(options.txn),
    ];
    signal.throwIfAborted();
    const predicate = predicateText(plan.conditions);
    const executionTimeMs = performance.now() - started;
    const commit = await commitTransaction(snapshot, actions, {
      operation: "DELETE",
      operationParameters: predicate === undefined ? {} : { predicate },
      operationMetrics: {
        num_added_files: adds.length,
        num_removed_files: removed.length,
        num_deleted_rows: result.rowsDeleted,
        num_copied_rows: result.rowsCopied,
        execution_time_ms: Math.floor(executionTimeMs),
        scan_time_ms: Math.floor(scanTimeMs),
        rewrite_time_ms: Math.floor(result.rewriteTimeMs),
      },
      commitMetadata: options.commitMetadata,
      read: { kind: "table" },
      changeData: cdc.length > 0 ? "written" : "derived",
      hooks: options.hooks ?? defaultMaintenanceHooks(),
      signal,
    });
    return {
      ...result,
      version: commit.version,
      committed: true,
      commit,
      executionTimeMs: performance.now() - started,
      ...(commit.maintenanceError !== undefined ? { maintenanceError: commit.maintenanceError } : {}),
    };
  } catch (error) {
    await discardWrittenFiles(
      snapshot.store,
      ctx.written.map((f) => f.key),
      error,
    );
    throw error;
  }
}

function contextOf(
  snapshot: Snapshot,
  plan: DeletePlan,
  options: DeleteOptions,
  budgets: CallBudgets,
  signal: AbortSignal,
): DeleteContext {
  const partitionColumns = new Set(snapshot.partitionColumns);
  return {
    store: snapshot.store,
    dataSchema: new Schema(snapshot.schema.fields.filter((f) => !partitionColumns.has(f.name))),
    rowConditions: plan.rowConditions,
    budgets,
    read: {
      knobs: {
        rangeGetPartSizeBytes: options.rangeGetPartSizeBytes,
        rangeGetConcurrency: options.rangeGetConcurrency,
        readAheadRowGroups: options.readAheadRowGroups,
      },
      batchRows: options.readBatchSize ?? 8192,
      admission: budgets.readAdmission(),
      version: snapshot.version,
      signal,
    },
    writer: {
      partitionColumns: snapshot.partitionColumns,
      configuration: snapshot.configuration,
      codec: options.codec,
      targetFileSize: targetFileSizeOf(snapshot.configuration, options.targetFileSize),
      maxRowGroupBytes: options.maxRowGroupBytes,
      maxRowGroupRows: options.maxRowGroupRows,
      multipartThresholdBytes: options.multipartThresholdBytes,
      multipartPartSizeBytes: options.multipartPartSizeBytes,
      multipartConcurrency: options.multipartConcurrency,
      signal,
    },
    written: [],
  };
}

/** A change-data writer for one partition of the delete (its files join `ctx.written` for clean-up). */
function changeDataWriter(
  snapshot: Snapshot,
  ctx: DeleteContext,
  values: Record<string, string | null>,
): ChangeDataWriter {
  return new ChangeDataWriter(ctx.store, ctx.dataSchema, partitionColumnsOf(snapshot), values, {
    ...ctx.writer,
    onFile: (file) => ctx.written.push(file),
  });
}

/** Hit files grouped by their partition values (as the log holds them), in path order. */
function byPartition(
  files: readonly FileView[],
): { values: Record<string, string | null>; files: FileView[] }[] {
  const groups = new Map<string, { values: Record<string, string | null>; files: FileView[] }>();
  for (const file of files) {
    const values = { ...file.partitionValues };
    const id = JSON.stringify(Object.entries(values).sort());
    const group = groups.get(id);
    if (group) group.files.push(file);
    else groups.set(id, { values, files: [file] });
  }
  return [...groups.values()];
}
