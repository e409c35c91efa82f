/**
 * `compact(snapshot, options)`: validate everything first (options, partition filter, the upsert's protocol
 * gate) with nothing read or written; plan bins as delta-rs's `optimize.compact` from the snapshot's files in
 * delta-rs's order; unless `dryRun`, rewrite and commit them (execute.ts), then plan again the partitions
 * whose bins a concurrent commit invalidated, up to `maxReplanRounds`. Returns our counters and delta-rs's
 * metrics of what was committed.
 */
import { setMaxListeners } from "node:events";
import { CallBudgets, dataFileSchema } from "@deltalite/data-files";
import { checkWriteSupport, discardWrittenFiles, type Snapshot } from "@deltalite/delta-log";
import { type RunContext, type RunState, runBins } from "./execute.js";
import { filesInDeltaRsOrder } from "./file-order.js";
import { optimizeMetrics, sizeSummary } from "./metrics.js";
import { validateCompactOptions } from "./options.js";
import { type PartitionFilter, resolvePartitionFilter } from "./partition-filter.js";
import { type CompactionPlan, planCompaction, targetFileSizeFor } from "./plan.js";
import type { CompactOptions, CompactResult, OptimizeMetrics } from "./types.js";

const MIB = 1024 * 1024;
const DEFAULTS = {
  maxParallelBins: 2,
  readBatchSize: 8192,
  maxDecodedFileBytes: 1024 * MIB,
  maxRowGroupDecodedBytes: 128 * MIB,
  maxReplanRounds: 1,
  minPartitionRemovableFiles: 1,
};

/** Plans the snapshot's bins (no writes): what `compact` would rewrite. */
export async function planTableCompaction(
  snapshot: Snapshot,
  options: CompactOptions = {},
  only?: ReadonlySet<string>,
): Promise<{ plan: CompactionPlan; filter: PartitionFilter }> {
  const filter = resolvePartitionFilter(snapshot, options.partitions);
  const files = filesInDeltaRsOrder(snapshot);
  const plan = planCompaction({
    files,
    partitionColumns: snapshot.partitionColumns,
    targetFileSize: targetFileSizeFor(snapshot.configuration, options.targetFileSize),
    filter,
    minPartitionRemovableFiles: options.minPartitionRemovableFiles ?? DEFAULTS.minPartitionRemovableFiles,
  });
  if (only) plan.bins = plan.bins.filter((b) => only.has(b.partitionId));
  return { plan, filter };
}

/** Compacts small files of the table into bins of about the target size, in one OPTIMIZE commit. */
export async function compact(snapshot: Snapshot, options: CompactOptions = {}): Promise<CompactResult> {
  const started = performance.now();
  const table = snapshot.table;
  validateCompactOptions(options, table);
  checkWriteSupport(snapshot.protocol, snapshot.metadata, table, "rewrite");
  const signal = options.signal ?? new AbortController().signal;
  setMaxListeners(0, signal);
  const t = performance.now();
  const { plan, filter } = await planTableCompaction(snapshot, options);
  const planMs = performance.now() - t;
  const state: RunState = {
    base: snapshot,
    committed: [],
    dropped: [],
    commits: 0,
    commitRetries: 0,
    replanRounds: 0,
    rewriteMs: 0,
    commitMs: 0,
  };
  if (options.dryRun || plan.bins.length === 0) {
    return resultOf(plan, state, { planMs, started, dryRun: options.dryRun ?? false, parallelBins: 0 });
  }
  const ctx = runContext(snapshot, plan, filter, options, signal);
  try {
    await runBins(state, plan.bins, ctx);
    await replanDropped(state, ctx);
  } catch (error) {
    const committed = new Set(state.committed.flatMap((r) => r.keys));
    await discardWrittenFiles(
      snapshot.store,
      ctx.written.map((f) => f.key).filter((k) => !committed.has(k)),
      error,
    );
    throw error;
  }
  return resultOf(plan, state, {
    planMs,
    started,
    dryRun: false,
    parallelBins: Math.min(ctx.maxParallelBins, plan.bins.length),
  });
}

/** Plans the partitions of dropped bins again on the newest table, while rounds remain. */
async function replanDropped(state: RunState, ctx: RunContext): Promise<void> {
  const rounds = ctx.options.maxReplanRounds ?? DEFAULTS.maxReplanRounds;
  let handled = 0;
  while (state.dropped.length > handled && state.replanRounds < rounds) {
    const partitions = new Set(state.dropped.slice(handled).map((b) => b.partitionId));
    handled = state.dropped.length;
    state.replanRounds++;
    const { plan } = await planTableCompaction(state.base, ctx.options, partitions);
    await runBins(state, plan.bins, { ...ctx, plan });
  }
}

function runContext(
  snapshot: Snapshot,
  plan: CompactionPlan,
  filter: PartitionFilter,
  options: CompactOptions,
  signal: AbortSignal,
): RunContext {
  const maxParallelBins = options.maxParallelBins ?? DEFAULTS.maxParallelBins;
  const budgets = new CallBudgets(
    {
      maxParallelPartitions: maxParallelBins,
      maxParallelFiles: options.maxParallelFiles,
      maxBufferedBytes: options.maxBufferedBytes,
      maxFetchBytes: options.maxFetchBytes,
    },
    {
      process: options.processBudgets,
      permitWaitTimeoutMs: options.permitWaitTimeoutMs,
      signal,
      observer: options.budgetObserver,
      label: `${snapshot.table}: compact`,
    },
  );
  return {
    plan,
    predicate: filter.predicate,
    options,
    budgets,
    read: {
      knobs: {
        rangeGetPartSizeBytes: options.rangeGetPartSizeBytes,
        rangeGetConcurrency: options.rangeGetConcurrency,
        readAheadRowGroups: options.readAheadRowGroups,
      },
      batchRows: options.readBatchSize ?? DEFAULTS.readBatchSize,
      admission: budgets.readAdmission(),
      observer: options.budgetObserver,
      signal,
    },
    dataSchema: dataFileSchema(snapshot.schema, snapshot.partitionColumns),
    maxParallelBins,
    maxDecodedFileBytes: options.maxDecodedFileBytes ?? DEFAULTS.maxDecodedFileBytes,
    maxRowGroupBytes: options.maxRowGroupDecodedBytes ?? DEFAULTS.maxRowGroupDecodedBytes,
    signal,
    written: [],
  };
}

function resultOf(
  plan: CompactionPlan,
  state: RunState,
  run: { planMs: number; started: number; dryRun: boolean; parallelBins: number },
): CompactResult {
  const metrics = run.dryRun ? plannedMetrics(plan) : optimizeMetrics(plan, state.committed);
  const done = run.dryRun ? plan.bins : state.committed.map((r) => r.bin);
  return {
    ...metrics,
    version: state.base.version,
    dryRun: run.dryRun,
    filesConsidered: plan.totalConsideredFiles,
    filesSkipped: plan.totalFilesSkipped,
    partitionsCompacted: new Set(done.map((b) => b.partitionId)).size,
    bins: done.length,
    bytesRemoved: metrics.filesRemoved.totalSize,
    bytesAdded: metrics.filesAdded.totalSize,
    rowsRewritten: state.committed.reduce((n, r) => n + r.rows, 0),
    batchesRead: state.committed.reduce((n, r) => n + r.batches, 0),
    parallelBins: run.parallelBins,
    commits: state.commits,
    commitRetries: state.commitRetries,
    binsDropped: state.dropped.length,
    replanRounds: state.replanRounds,
    largestBinFiles: Math.max(0, ...done.map((b) => b.files.length)),
    planMs: run.planMs,
    rewriteMs: state.rewriteMs,
    commitMs: state.commitMs,
    executionTimeMs: performance.now() - run.started,
    ...(state.maintenanceError !== undefined ? { maintenanceError: state.maintenanceError } : {}),
  };
}

/** A dry run's metrics: the planned removals (nothing is read, so no batches and no added files). */
function plannedMetrics(plan: CompactionPlan): OptimizeMetrics {
  const removed = plan.bins.flatMap((b) => b.files.map((f) => f.size));
  return {
    ...optimizeMetrics(plan, []),
    numFilesRemoved: removed.length,
    filesRemoved: sizeSummary(removed),
  };
}
