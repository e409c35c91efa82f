/**
 * Running a plan: bins are rewritten `maxParallelBins` at a time (each holding a partition permit of the
 * shared budgets) and committed `maxBinsPerCommit` at a time. When another writer commits first and removes
 * an input, the commit path reports a retryable conflict; then the table is reloaded, each bin whose inputs
 * are all still live (same path, same size) is kept and committed on the new version, the others are dropped
 * and their output deleted, and their partitions are planned again (up to `maxReplanRounds`). A concurrent
 * schema, partitioning or protocol change is a non-retryable `DeltaLiteCommitConflictError`. On a failure
 * every file this call wrote and did not commit is deleted (kept when a commit's outcome is unknown).
 */
import { type CallBudgets, type LiveFileReadContext, mapLimit } from "@deltalite/data-files";
import { discardWrittenFiles, type Snapshot } from "@deltalite/delta-log";
import { DeltaLiteCommitConflictError, isDeltaLiteError } from "@deltalite/errors";
import type { WrittenFile } from "@deltalite/parquet-stream";
import type { Schema } from "apache-arrow";
import { commitOptimize } from "./commit.js";
import { optimizeMetrics } from "./metrics.js";
import type { CompactionBin, CompactionPlan } from "./plan.js";
import { type BinRewrite, type BinRewriteContext, rewriteBin } from "./rewrite-bin.js";
import type { RunProgress } from "./run-progress.js";
import type { CompactOptions } from "./types.js";

/** Where a run stands: the version it builds on and what it has done so far. */
export interface RunState {
  /** The snapshot the next commit is made on. */
  base: Snapshot;
  committed: BinRewrite[];
  dropped: CompactionBin[];
  commits: number;
  commitRetries: number;
  replanRounds: number;
  rewriteMs: number;
  commitMs: number;
  maintenanceError?: unknown;
}

export interface RunContext {
  plan: CompactionPlan;
  predicate: readonly string[];
  options: CompactOptions;
  budgets: CallBudgets;
  read: LiveFileReadContext;
  dataSchema: Schema;
  maxParallelBins: number;
  maxDecodedFileBytes: number;
  /** Input files up to this size may skip the JS decode (passthrough-read.ts; Z-order never does). */
  passthroughMaxBytes: number;
  maxRowGroupBytes: number;
  signal: AbortSignal;
  progress: RunProgress;
  /** Every file written by this call (deleted on failure unless committed). */
  written: WrittenFile[];
  /** How a bin is rewritten (default: compaction's `rewriteBin`; Z-order sorts its rows). */
  rewrite?: ((bin: CompactionBin, context: BinRewriteContext) => Promise<BinRewrite>) | undefined;
  /** operationParameters besides predicate and targetSize (Z-order's `zOrderBy`). */
  operationParameters?: Record<string, string> | undefined;
}

/** Rewrites and commits `bins` on `state.base`, chunk by chunk; settles conflicts as the module says. */
export async function runBins(
  state: RunState,
  bins: readonly CompactionBin[],
  ctx: RunContext,
): Promise<void> {
  const perCommit = ctx.options.maxBinsPerCommit ?? Math.max(1, bins.length);
  for (let at = 0; at < bins.length; at += perCommit) {
    // A settled race moved the base on: bins of a later chunk whose inputs it removed are dropped here, since
    // a commit on the new base sees no winner that removed them (their removal is already in it).
    const live = liveIn(state.base);
    const chunk = bins.slice(at, at + perCommit).filter((bin) => live(bin) || !state.dropped.push(bin));
    if (chunk.length === 0) continue;
    let started = performance.now();
    const rewrites = await mapLimit(chunk, ctx.maxParallelBins, (bin) => rewriteWithPermit(bin, state, ctx));
    state.rewriteMs += performance.now() - started;
    started = performance.now();
    await commitSettling(state, rewrites, ctx);
    state.commitMs += performance.now() - started;
  }
}

async function rewriteWithPermit(bin: CompactionBin, state: RunState, ctx: RunContext): Promise<BinRewrite> {
  const permit = await ctx.budgets.acquirePartition();
  try {
    const rewrite = await (ctx.rewrite ?? rewriteBin)(bin, {
      store: state.base.store,
      dataSchema: ctx.dataSchema,
      partitionColumns: state.base.partitionColumns,
      configuration: state.base.configuration,
      read: ctx.read,
      acquireFile: () => ctx.budgets.acquireFile(),
      maxDecodedFileBytes: ctx.maxDecodedFileBytes,
      passthroughMaxBytes: ctx.passthroughMaxBytes,
      maxRowGroupBytes: ctx.maxRowGroupBytes,
      multipartThresholdBytes: ctx.options.multipartThresholdBytes,
      multipartPartSizeBytes: ctx.options.multipartPartSizeBytes,
      multipartConcurrency: ctx.options.multipartConcurrency,
      signal: ctx.signal,
      onInputRead: (size) => ctx.progress.fileRead(size),
      onFile: (file) => ctx.written.push(file),
    });
    ctx.progress.binDone();
    return rewrite;
  } finally {
    permit.release();
  }
}

/** Commits `rewrites`; after a lost race keeps the bins whose inputs are still live and drops the rest. */
async function commitSettling(
  state: RunState,
  rewrites: readonly BinRewrite[],
  ctx: RunContext,
): Promise<void> {
  let pending = [...rewrites];
  const shape = shapeOf(state.base);
  while (pending.length > 0) {
    try {
      const commit = await commitOptimize(state.base, {
        rewrites: pending,
        metrics: optimizeMetrics(ctx.plan, pending),
        targetFileSize: ctx.plan.targetFileSize,
        predicate: ctx.predicate,
        operationParameters: ctx.operationParameters,
        options: ctx.options,
        signal: ctx.signal,
      });
      state.base = commit.snapshot;
      state.committed.push(...pending);
      state.commits++;
      state.commitRetries += commit.attempts - 1;
      if (commit.maintenanceError !== undefined) state.maintenanceError = commit.maintenanceError;
      return;
    } catch (error) {
      if (!(isDeltaLiteError(error) && error.kind === "conflict" && error.retryable)) throw error;
      const latest = await state.base.reload({ signal: ctx.signal });
      if (shapeOf(latest) !== shape) {
        throw new DeltaLiteCommitConflictError(
          `${latest.table}: the schema, partitioning or protocol changed concurrently (version ${latest.version}); compaction is not re-planned against it`,
          { retryable: false, winningVersion: latest.version, cause: error },
        );
      }
      const live = liveIn(latest);
      const keep = pending.filter((r) => live(r.bin));
      // Every input still live: the race was lost for another reason (retries ran out) — not ours to settle.
      if (keep.length === pending.length) throw error;
      const drop = pending.filter((r) => !keep.includes(r));
      await discardWrittenFiles(
        latest.store,
        drop.flatMap((r) => r.keys),
        error,
      );
      state.dropped.push(...drop.map((r) => r.bin));
      state.base = latest;
      pending = keep;
    }
  }
}

/** Whether every input of a bin is live in `snapshot` (same path, same size). */
function liveIn(snapshot: Snapshot): (bin: CompactionBin) => boolean {
  const live = new Map(snapshot.files.map((f) => [f.path, f.size]));
  return (bin) => bin.files.every((f) => live.get(f.path) === f.size);
}

/** What a concurrent change must not touch: schema, partition columns, protocol. */
function shapeOf(snapshot: Snapshot): string {
  return JSON.stringify([snapshot.schemaJson, snapshot.partitionColumns, snapshot.protocol]);
}
