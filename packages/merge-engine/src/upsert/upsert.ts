/**
 * `upsert(snapshot, data, options)`: the whole pipeline in one call — validate everything (options, source
 * guard, schema, keys, partition key, NULL partition values, duplicate keys, missing columns) before any
 * write; per touched partition take the live files as candidates, prune them by Add stats and/or the exact
 * key probe, rewrite the hit files with the source rows; then ONE `MERGE` commit of all removes and adds. A
 * retryable commit conflict re-plans against the newest snapshot (the source stays in memory), up to
 * `maxReplans` times. On a failure the files this call wrote are deleted (best effort; no log entry
 * references them) — except when the commit's outcome is unknown, when they are kept. The steps live
 * beside it: shape.ts (the table's view), ingest.ts (the source), partitions.ts (probe and rewrite),
 * merge-commit.ts (the commit). `upsertWithHooks` is the same call with the test hooks (hooks.ts).
 */
import { setMaxListeners } from "node:events";
import {
  Budget,
  CALL_LIMIT_DEFAULTS,
  CallBudgets,
  passthroughMaxBytes,
  withCallDeadline,
} from "@deltalite/data-files";
import {
  appTransactionApplied,
  changeDataFeedEnabled,
  checkWriteSupport,
  commitTransaction,
  defaultMaintenanceHooks,
  discardWrittenFiles,
  Snapshot,
  schemaToJson,
  warmUpForWrites,
} from "@deltalite/delta-log";
import { isDeltaLiteError } from "@deltalite/errors";
import { globalProbeCache } from "@deltalite/probe-cache";
import { defaultKeyHasher } from "../keys/key-hasher.js";
import { type InternalUpsertOptions, type UpsertHooks, withHooks } from "./hooks.js";
import { ingestSource, type UpsertSource } from "./ingest.js";
import {
  type AttemptStats,
  commitMerge,
  mergeActions,
  newAttemptStats,
  rearrangedIfUnchanged,
  rowsInsertedOf,
} from "./merge-commit.js";
import { validateUpsertOptions } from "./options.js";
import { type AttemptContext, type PartitionOutcome, planPartitions, runPartitions } from "./partitions.js";
import { passthroughHeldBudget, UPSERT_PASSTHROUGH_VARIABLE } from "./rewrite-passthrough.js";
import { checkAborted, type TableShape, tableShape } from "./shape.js";
import type { SourcePartition } from "./source-batch.js";
import type { UpsertOptions, UpsertStats } from "./types.js";

const now = () => performance.now();

/**
 * Upserts `data` into the table in one atomic MERGE commit: every source row replaces the target rows of
 * the same partition with an equal primary key, and is inserted where there is none. A row's identity is
 * (partition value, primary key): a key that arrives with another partition value inserts a second row and
 * leaves the old one (see `UpsertOptions`). Columns the source lacks follow `options.missingColumns`
 * (default `"null"`: NULL in replaced rows). Everything is validated before anything is written; a failed
 * upsert leaves the table as it was. Bad options are kind `invalid_argument`.
 */
export function upsert(snapshot: Snapshot, data: UpsertSource, options: UpsertOptions): Promise<UpsertStats> {
  return upsertWithHooks(snapshot, data, options, {});
}

/** `upsert` with test hooks (a key hasher, a budget observer); reachable from `@deltalite/merge-engine/internal`. */
export async function upsertWithHooks(
  snapshot: Snapshot,
  data: UpsertSource,
  publicOptions: UpsertOptions,
  hooks: UpsertHooks,
): Promise<UpsertStats> {
  const options = withHooks(publicOptions, hooks);
  validateUpsertOptions(options, snapshot.table);
  // The whole-call deadline: one signal for every wait and request of this call.
  return withCallDeadline(`${snapshot.table}: upsert`, options.timeoutMs, options.signal, (signal) =>
    upsertWithin(snapshot, data, options, signal),
  );
}

async function upsertWithin(
  snapshot: Snapshot,
  data: UpsertSource,
  options: InternalUpsertOptions,
  signal: AbortSignal,
): Promise<UpsertStats> {
  const started = now();
  const label = snapshot.table;
  checkAborted(signal, label);
  // A batch already applied is skipped before the source is read (the relax commit included).
  if (appTransactionApplied(snapshot, options.txn)) return skippedStats(snapshot, started);
  // On a table with the change data feed on, the MERGE writes its change data (partitions.ts).
  checkWriteSupport(snapshot.protocol, snapshot.metadata, label, "rewrite", "written");
  let shape = tableShape(snapshot, options);
  const budgets = new CallBudgets(options, {
    process: options.processBudgets,
    permitWaitTimeoutMs: options.permitWaitTimeoutMs,
    signal,
    observer: options.budgetObserver,
    label,
  });

  // Ingest + validation: nothing is written (not even the relax commit) before this completes.
  let t = now();
  const { partitions, relax } = await ingestSource(snapshot, shape, data, options, signal);
  const ingestMs = now() - t;
  // Validated: the encoder worker's start and the store's conditional-put proof now overlap planning and reads.
  warmUpForWrites(snapshot.store, signal);

  // Nullability relax: a separate metadata commit first.
  t = now();
  let current = snapshot;
  if (relax.length > 0) {
    current = await relaxColumns(snapshot, relax, signal);
    shape = tableShape(current, options);
  }
  const relaxMs = now() - t;

  const schemaJson = current.schemaJson;
  const maxReplans = options.maxReplans ?? 5;
  let openMs = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const stats = await planAndCommit(current, partitions, shape, options, attempt, budgets, signal);
      return {
        ...stats,
        columnsRelaxed: relax.length,
        ingestMs,
        openMs,
        relaxMs,
        executionTimeMs: now() - started,
      };
    } catch (error) {
      const replan =
        isDeltaLiteError(error) && error.kind === "conflict" && error.retryable && attempt <= maxReplans;
      if (!replan) throw error;
      t = now();
      current = await Snapshot.open(current.store, { signal });
      openMs += now() - t;
      // A concurrent schema change is never re-planned (it could null-fill a column).
      if (current.schemaJson !== schemaJson) throw error;
      if (appTransactionApplied(current, options.txn)) return skippedStats(current, started);
    }
  }
}

/** Commits the table's metadata with `columns` made nullable; returns the table after that commit. */
async function relaxColumns(
  snapshot: Snapshot,
  columns: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Snapshot> {
  const relax = new Set(columns);
  const schema = {
    ...snapshot.deltaSchema,
    fields: snapshot.deltaSchema.fields.map((f) => (relax.has(f.name) ? { ...f, nullable: true } : f)),
  };
  const commit = await commitTransaction(
    snapshot,
    [{ metaData: { ...snapshot.metadata, schemaString: schemaToJson(schema) } }],
    {
      operation: "CHANGE COLUMN",
      operationParameters: { columns: JSON.stringify(columns), nullable: "true" },
      hooks: defaultMaintenanceHooks(),
      signal,
    },
  );
  return commit.snapshot;
}

/** The stats of an upsert whose `txn` the table already holds: nothing read, written or committed. */
function skippedStats(snapshot: Snapshot, started: number): UpsertStats {
  const zero = newAttemptStats([]);
  return {
    ...zero,
    version: snapshot.version,
    committed: false,
    skipped: true,
    rowsInserted: 0,
    filesCarriedOver: 0,
    columnsRelaxed: 0,
    planAttempts: 0,
    ingestMs: 0,
    openMs: 0,
    relaxMs: 0,
    commitMs: 0,
    maintenanceMs: 0,
    executionTimeMs: now() - started,
  };
}

type AttemptResult = Omit<
  UpsertStats,
  "ingestMs" | "openMs" | "relaxMs" | "columnsRelaxed" | "executionTimeMs"
>;

/** One attempt: plan, probe and rewrite the partitions, then the MERGE commit (files discarded on failure). */
async function planAndCommit(
  snapshot: Snapshot,
  partitions: readonly SourcePartition[],
  shape: TableShape,
  options: InternalUpsertOptions,
  attempt: number,
  budgets: CallBudgets,
  callSignal: AbortSignal,
): Promise<AttemptResult> {
  const stats = newAttemptStats(partitions);
  let t = now();
  const plans = planPartitions(snapshot, partitions, shape, options.pruneStrategy ?? "probe");
  for (const plan of plans) stats.filesCandidates += plan.candidates.length;
  stats.planMs = now() - t; // each partition's stats pruning is added once it ran (in its probe turn)

  // Partitions run side by side; one failing stops the others (this attempt's own abort).
  const stop = new AbortController();
  const signal = AbortSignal.any([callSignal, stop.signal]);
  setMaxListeners(0, signal);
  const ctx = attemptContext(snapshot, shape, options, budgets, signal);
  let outcomes: PartitionOutcome[] = [];
  try {
    t = now();
    outcomes = await runPartitions(ctx, plans, budgets.partitions.total, stop);
    for (const plan of plans) {
      stats.filesPrunedByStats += plan.candidates.length - plan.remaining.length;
      stats.planMs += plan.pruneMs;
    }
    const actions = rearrangedIfUnchanged(mergeActions(stats, outcomes), ctx.changeDataFeed);
    stats.rewriteMs = now() - t;

    // One commit (post-commit maintenance timed apart).
    checkAborted(signal, snapshot.table);
    t = now();
    const commit = await commitMerge(snapshot, actions, {
      shape,
      partitions,
      stats,
      options,
      startedAt: t,
      signal,
    });
    const commitMs = now() - t - commit.maintenanceMs;
    // The commit landed: new files answer from the cache, removed files leave it.
    ctx.cache.invalidate(
      ctx.cacheTable,
      outcomes.flatMap((o) => o.hits.map((f) => f.path)),
    );
    for (const outcome of outcomes) outcome.collection?.commitTo(outcome.rewrite.keys);
    return attemptResult(stats, {
      version: commit.version,
      attempt,
      commitMs,
      maintenanceMs: commit.maintenanceMs,
      maintenanceError: commit.maintenanceError,
    });
  } catch (error) {
    for (const outcome of outcomes) outcome?.collection?.abort();
    await discardWrittenFiles(
      snapshot.store,
      ctx.written.map((f) => f.key),
      error,
    );
    throw error;
  }
}

function attemptContext(
  snapshot: Snapshot,
  shape: TableShape,
  options: InternalUpsertOptions,
  budgets: CallBudgets,
  signal: AbortSignal,
): AttemptContext {
  return {
    snapshot,
    shape,
    options,
    budgets,
    cache: options.probeCache ?? globalProbeCache(),
    cacheTable: probeCacheTable(snapshot),
    hasher: options.keyHasher ?? defaultKeyHasher,
    read: {
      knobs: {
        rangeGetPartSizeBytes: options.rangeGetPartSizeBytes,
        rangeGetConcurrency: options.rangeGetConcurrency,
        readAheadRowGroups: options.readAheadRowGroups,
      },
      batchRows: options.readBatchSize ?? 8192,
      admission: budgets.readAdmission(),
      observer: options.budgetObserver,
      signal,
    },
    signal,
    written: [],
    probeTurn: new Budget("probe turns", 1),
    changeDataFeed: changeDataFeedEnabled(snapshot.metadata),
    passthroughMaxBytes: passthroughMaxBytes(
      UPSERT_PASSTHROUGH_VARIABLE,
      options.maxFetchBytes ?? CALL_LIMIT_DEFAULTS.maxFetchBytes,
    ),
    passthroughHeld: passthroughHeldBudget(options.passthroughHeldBytes),
  };
}

function attemptResult(
  stats: AttemptStats,
  commit: {
    version: number;
    attempt: number;
    commitMs: number;
    maintenanceMs: number;
    maintenanceError: unknown;
  },
): AttemptResult {
  return {
    version: commit.version,
    committed: true,
    skipped: false,
    ...stats,
    rowsInserted: rowsInsertedOf(stats),
    filesCarriedOver: stats.filesCandidates - stats.filesRemoved,
    planAttempts: commit.attempt,
    commitMs: commit.commitMs,
    maintenanceMs: commit.maintenanceMs,
    ...(commit.maintenanceError !== undefined ? { maintenanceError: commit.maintenanceError } : {}),
  };
}

/** The probe cache's table key: the root URL and the table id (a table recreated at a path is another table). */
function probeCacheTable(snapshot: Snapshot): string {
  return `${snapshot.store.root}#${snapshot.tableId}`;
}
