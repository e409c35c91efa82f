/**
 * A compaction run from plan to commits, shared by `compact` and `zOrder`: the per-call budgets and read
 * settings (`runContext`), the run's starting state, executing a plan through execute.ts and re-planning the
 * partitions of dropped bins (with the caller's planner) up to `maxReplanRounds`, deleting on failure what
 * was written and not committed; and the result (our counters plus delta-rs's metrics).
 */
import { CALL_LIMIT_DEFAULTS, CallBudgets, dataFileSchema } from "@deltalite/data-files";
import { discardWrittenFiles, type Snapshot } from "@deltalite/delta-log";
import { type RunContext, type RunState, runBins } from "./execute.js";
import { optimizeMetrics, sizeSummary } from "./metrics.js";
import type { PartitionFilter } from "./partition-filter.js";
import { compactPassthroughMaxBytes } from "./passthrough-read.js";
import type { CompactionPlan } from "./plan.js";
import { RunProgress } from "./run-progress.js";
import type { CompactHooks, CompactOptions, CompactResult, OptimizeMetrics } from "./types.js";

const MIB = 1024 * 1024;
export const RUN_DEFAULTS = {
  maxParallelBins: 2,
  readBatchSize: 8192,
  maxDecodedFileBytes: 1024 * MIB,
  maxRowGroupDecodedBytes: 128 * MIB,
  maxReplanRounds: 1,
};

/** Plans the given partitions again on a newer table. */
export type Replanner = (snapshot: Snapshot, partitions: ReadonlySet<string>) => Promise<CompactionPlan>;

/** Plans the partitions of dropped bins again on the newest table (by `replan`), while rounds remain. */
async function replanDropped(state: RunState, ctx: RunContext, replan: Replanner): Promise<void> {
  const rounds = ctx.options.maxReplanRounds ?? RUN_DEFAULTS.maxReplanRounds;
  let handled = 0;
  while (state.dropped.length > handled && state.replanRounds < rounds) {
    const partitions = new Set(state.dropped.slice(handled).map((b) => b.partitionId));
    handled = state.dropped.length;
    state.replanRounds++;
    const plan = await replan(state.base, partitions);
    ctx.progress.planned(plan.bins);
    await runBins(state, plan.bins, { ...ctx, plan });
  }
}

/** A run's state before anything is done, on `snapshot`. */
export function initialState(snapshot: Snapshot): RunState {
  return {
    base: snapshot,
    committed: [],
    dropped: [],
    commits: 0,
    commitRetries: 0,
    replanRounds: 0,
    rewriteMs: 0,
    commitMs: 0,
  };
}

/** Runs `plan` to its commits (re-planning by `replan`); on a failure deletes what it wrote and did not commit. */
export async function executePlan(state: RunState, ctx: RunContext, replan: Replanner): Promise<void> {
  ctx.progress.planned(ctx.plan.bins);
  try {
    await runBins(state, ctx.plan.bins, ctx);
    await replanDropped(state, ctx, replan);
  } catch (error) {
    const committed = new Set(state.committed.flatMap((r) => r.keys));
    await discardWrittenFiles(
      state.base.store,
      ctx.written.map((f) => f.key).filter((k) => !committed.has(k)),
      error,
    );
    throw error;
  }
}

export function runContext(
  snapshot: Snapshot,
  plan: CompactionPlan,
  filter: PartitionFilter,
  options: CompactOptions,
  signal: AbortSignal,
  operation = "compact",
  hooks: CompactHooks = {},
): RunContext {
  const maxParallelBins = options.maxParallelBins ?? RUN_DEFAULTS.maxParallelBins;
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
      observer: hooks.budgetObserver,
      label: `${snapshot.table}: ${operation}`,
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
      batchRows: options.readBatchSize ?? RUN_DEFAULTS.readBatchSize,
      admission: budgets.readAdmission(),
      observer: hooks.budgetObserver,
      signal,
    },
    dataSchema: dataFileSchema(snapshot.schema, snapshot.partitionColumns),
    maxParallelBins,
    maxDecodedFileBytes: options.maxDecodedFileBytes ?? RUN_DEFAULTS.maxDecodedFileBytes,
    passthroughMaxBytes: compactPassthroughMaxBytes(
      options.maxFetchBytes ?? CALL_LIMIT_DEFAULTS.maxFetchBytes,
    ),
    maxRowGroupBytes: options.maxRowGroupDecodedBytes ?? RUN_DEFAULTS.maxRowGroupDecodedBytes,
    signal,
    progress: new RunProgress(options.onProgress),
    written: [],
  };
}

export function resultOf(
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
    filesPassedThrough: state.committed.reduce((n, r) => n + r.passedThrough, 0),
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
