/**
 * `historyUpsert(snapshot, data, options)`: the whole SCD2 history upsert in one call — validate the
 * options, the table (shape.ts) and the source (source.ts) before anything is written; collapse the source
 * per key (collapse.ts); then per attempt find the open rows (open-rows.ts), apply the rules (plan.ts),
 * write the files (write.ts) and make ONE commit (commit.ts). A call that keeps no row writes and commits
 * nothing (`committed: false`). A commit that finds a newer version is never rebased: the call plans again
 * against the new version, up to `maxReplans` (5) times, then throws `DeltaLiteCommitConflictError`; a
 * concurrent schema or partitioning change is a non-retryable conflict. A failed attempt deletes the files
 * it wrote (unless the commit's outcome is unknown). The whole call runs under its `timeoutMs` deadline
 * (data-files' `withCallDeadline`); a `txn` the table already holds — at the start or after a re-plan — skips the call
 * (`skipped: true`) before the source is read or anything is written.
 */
import { CallBudgets, type LiveFileReadContext, withCallDeadline, withNullable } from "@deltalite/data-files";
import {
  appTransactionApplied,
  checkWriteSupport,
  discardWrittenFiles,
  type Snapshot,
} from "@deltalite/delta-log";
import { DeltaLiteCommitConflictError, DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import type { UpsertSource } from "@deltalite/merge-engine";
import type { WrittenFile } from "@deltalite/parquet-stream";
import { type CollapsedSource, collapseSource } from "./collapse.js";
import { commitHistory } from "./commit.js";
import { findOpenRows } from "./open-rows.js";
import { validateHistoryOptions } from "./options.js";
import { planHistory } from "./plan.js";
import { type HistoryShape, historyShape } from "./shape.js";
import { type HistorySource, ingestHistorySource } from "./source.js";
import type { HistoryUpsertOptions, HistoryUpsertStats } from "./types.js";
import { writeHistory } from "./write.js";

const now = () => performance.now();

type AttemptStats = Omit<
  HistoryUpsertStats,
  "ingestMs" | "openMs" | "relaxMs" | "executionTimeMs" | "planAttempts" | "skipped"
>;

/** What the attempts share: the validated source and the call's budgets. */
interface CallState {
  source: HistorySource;
  collapsed: CollapsedSource;
  options: HistoryUpsertOptions;
  budgets: CallBudgets;
}

/**
 * Writes `data` into the SCD2 history table of `snapshot` by the SCD2 rules (see `HistoryUpsertOptions`)
 * in one atomic commit. Errors leave the table as it was.
 */
export async function historyUpsert(
  snapshot: Snapshot,
  data: UpsertSource,
  options: HistoryUpsertOptions,
): Promise<HistoryUpsertStats> {
  validateHistoryOptions(options, snapshot.table);
  return withCallDeadline(`${snapshot.table}: historyUpsert`, options.timeoutMs, options.signal, (signal) =>
    historyUpsertWithin(snapshot, data, { ...options, signal }),
  );
}

/** The call under its deadline (`options.signal` is the call's one signal). */
async function historyUpsertWithin(
  snapshot: Snapshot,
  data: UpsertSource,
  options: HistoryUpsertOptions,
): Promise<HistoryUpsertStats> {
  const started = now();
  const label = snapshot.table;
  checkNotAborted(options.signal, label);
  // A batch already applied is skipped before the source is read.
  if (appTransactionApplied(snapshot, options.txn)) return skippedStats(snapshot, started);
  checkWriteSupport(snapshot.protocol, snapshot.metadata, label, "rewrite");
  const baseShape = historyShape(snapshot, options);
  const budgets = new CallBudgets(options, {
    process: options.processBudgets,
    permitWaitTimeoutMs: options.permitWaitTimeoutMs,
    signal: options.signal,
    label,
  });
  let t = now();
  const source = await ingestHistorySource(snapshot, baseShape, data, options.maxSourceBytes, options.signal);
  const shape = { ...baseShape, dataSchema: withNullable(baseShape.dataSchema, source.relax) };
  const collapsed = collapseSource(source, shape);
  const ingestMs = now() - t;
  // The relax check is part of the ingest and the relax part of the one commit: nothing to time apart.
  const relaxMs = 0;
  const state: CallState = { source, collapsed, options, budgets };
  const maxReplans = options.maxReplans ?? 5;
  let current = snapshot;
  let openMs = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const stats = await planWriteCommit(current, shape, state);
      const timings = { planAttempts: attempt, ingestMs, openMs, relaxMs, executionTimeMs: now() - started };
      return { ...stats, skipped: false, ...timings };
    } catch (error) {
      const retryable = isDeltaLiteError(error) && error.kind === "conflict" && error.retryable;
      if (!retryable) throw error;
      if (attempt > maxReplans) {
        const winningVersion = (error as DeltaLiteCommitConflictError).winningVersion;
        throw new DeltaLiteCommitConflictError(
          `${label}: historyUpsert found a newer table version at commit on each of its ${attempt} plans; nothing was committed (re-run the call)`,
          { retryable: true, cause: error, ...(winningVersion === undefined ? {} : { winningVersion }) },
        );
      }
      t = now();
      current = await current.reload(options.signal ? { signal: options.signal } : {});
      openMs += now() - t;
      checkSameShape(snapshot, current, error);
      if (appTransactionApplied(current, options.txn)) return skippedStats(current, started);
    }
  }
}

function checkNotAborted(signal: AbortSignal | undefined, label: string): void {
  if (!signal?.aborted) return;
  const reason: unknown = signal.reason;
  if (isDeltaLiteError(reason)) throw reason;
  throw new DeltaLiteError("aborted", `${label}: historyUpsert was aborted before it started`, {
    cause: reason,
  });
}

/** The stats of a call whose `txn` the table already holds: nothing read, written or committed. */
function skippedStats(snapshot: Snapshot, started: number): HistoryUpsertStats {
  const counts = { rowsIn: 0, rowsDeduped: 0, rowsReread: 0, rowsBackwards: 0, versionsOpened: 0 };
  const files = {
    filesAdded: 0,
    filesRemoved: 0,
    filesCarriedOver: 0,
    filesProbed: 0,
    filesPrunedByStats: 0,
  };
  const timings = { ingestMs: 0, openMs: 0, relaxMs: 0, planMs: 0, probeMs: 0, rewriteMs: 0, commitMs: 0 };
  return {
    ...counts,
    ...files,
    ...timings,
    version: snapshot.version,
    committed: false,
    skipped: true,
    versionsClosed: 0,
    chainRowsClosed: 0,
    rowsCopied: 0,
    bytesRead: 0,
    bytesWritten: 0,
    columnsRelaxed: 0,
    planAttempts: 0,
    maintenanceMs: 0,
    executionTimeMs: now() - started,
  };
}

/** A concurrent schema or partitioning change is never re-planned (it could null-fill a column). */
function checkSameShape(planned: Snapshot, current: Snapshot, cause: unknown): void {
  const same =
    current.schemaJson === planned.schemaJson &&
    current.partitionColumns.join("\u0000") === planned.partitionColumns.join("\u0000");
  if (!same) {
    throw new DeltaLiteCommitConflictError(
      `${planned.table}: the table's schema or partitioning changed at version ${current.version} while historyUpsert ran; nothing was committed`,
      { retryable: false, cause, winningVersion: current.version },
    );
  }
}

/** One attempt against `snapshot`: open rows, plan, files, commit (its files deleted when it fails). */
async function planWriteCommit(
  snapshot: Snapshot,
  shape: HistoryShape,
  state: CallState,
): Promise<AttemptStats> {
  const { source, collapsed, options, budgets } = state;
  const signal = options.signal ?? new AbortController().signal;
  const attemptStarted = now();
  const read: LiveFileReadContext = {
    knobs: {
      rangeGetPartSizeBytes: options.rangeGetPartSizeBytes,
      rangeGetConcurrency: options.rangeGetConcurrency,
      readAheadRowGroups: options.readAheadRowGroups,
    },
    batchRows: options.readBatchSize ?? 8192,
    admission: budgets.readAdmission(),
    version: snapshot.version,
    signal,
  };
  let t = now();
  const probeContext = { snapshot, shape, budgets, read, probeConcurrency: options.probeConcurrency ?? 8 };
  const open = await findOpenRows(probeContext, source, collapsed);
  const probeMs = now() - t;
  t = now();
  const plan = planHistory(collapsed, open);
  const planMs = now() - t;
  const base = {
    rowsIn: source.rows,
    rowsDeduped: collapsed.rowsDeduped,
    rowsReread: plan.rowsReread,
    rowsBackwards: plan.rowsBackwards,
    versionsOpened: plan.versionsOpened,
    versionsClosed: plan.versionsClosed,
    chainRowsClosed: plan.chainRowsClosed,
    filesProbed: open.probed.length,
    filesPrunedByStats: open.candidates.length - open.probed.length,
    planMs,
    probeMs,
  };
  if (plan.versionsOpened === 0) {
    return {
      ...base,
      version: snapshot.version,
      committed: false,
      rowsCopied: 0,
      filesAdded: 0,
      filesRemoved: 0,
      filesCarriedOver: open.candidates.length,
      bytesRead: 0,
      bytesWritten: 0,
      columnsRelaxed: 0,
      rewriteMs: 0,
      commitMs: 0,
      maintenanceMs: 0,
    };
  }
  const written: WrittenFile[] = [];
  try {
    t = now();
    const ctx = { snapshot, shape, options, budgets, read, signal, written };
    const writes = await writeHistory(ctx, source, collapsed, plan);
    const rewriteMs = now() - t;
    t = now();
    const commit = await commitHistory({
      snapshot,
      shape,
      plan,
      writes,
      rowsIn: source.rows,
      relax: source.relax,
      options,
      startedAt: attemptStarted,
      signal,
    });
    return {
      ...base,
      version: commit.version,
      committed: true,
      rowsCopied: writes.rowsCopied,
      filesAdded: writes.adds.length,
      filesRemoved: plan.hitFiles.length,
      filesCarriedOver: open.candidates.length - plan.hitFiles.length,
      bytesRead: writes.bytesRead,
      bytesWritten: writes.bytesWritten,
      columnsRelaxed: source.relax.length,
      rewriteMs,
      commitMs: now() - t - commit.maintenanceMs,
      maintenanceMs: commit.maintenanceMs,
      ...(commit.maintenanceError !== undefined ? { maintenanceError: commit.maintenanceError } : {}),
    };
  } catch (error) {
    await discardWrittenFiles(
      snapshot.store,
      written.map((f) => f.key),
      error,
    );
    throw error;
  }
}
