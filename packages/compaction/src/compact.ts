/**
 * `compact(snapshot, options)`: validate everything first (options, partition filter, the upsert's protocol
 * gate) with nothing read or written; plan bins as delta-rs's `optimize.compact` from the snapshot's files in
 * delta-rs's order; unless `dryRun`, rewrite and commit them (run.ts, execute.ts), then plan again the partitions
 * whose bins a concurrent commit invalidated, up to `maxReplanRounds`. Returns our counters and delta-rs's
 * metrics of what was committed.
 */
import { setMaxListeners } from "node:events";
import { checkWriteSupport, type Snapshot } from "@deltalite/delta-log";
import { filesInDeltaRsOrder } from "./file-order.js";
import { validateCompactOptions } from "./options.js";
import { type PartitionFilter, resolvePartitionFilter } from "./partition-filter.js";
import { type CompactionPlan, planCompaction, targetFileSizeFor } from "./plan.js";
import { executePlan, initialState, resultOf, runContext } from "./run.js";
import type { CompactHooks, CompactOptions, CompactResult } from "./types.js";

const DEFAULT_MIN_PARTITION_REMOVABLE_FILES = 1;

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
    minPartitionRemovableFiles: options.minPartitionRemovableFiles ?? DEFAULT_MIN_PARTITION_REMOVABLE_FILES,
  });
  if (only) plan.bins = plan.bins.filter((b) => only.has(b.partitionId));
  return { plan, filter };
}

/** Compacts small files of the table into bins of about the target size, in one OPTIMIZE commit. */
export function compact(snapshot: Snapshot, options: CompactOptions = {}): Promise<CompactResult> {
  return compactWithHooks(snapshot, options, {});
}

/** `compact` with its test hooks (see `@deltalite/compaction/internal`). */
export async function compactWithHooks(
  snapshot: Snapshot,
  options: CompactOptions,
  hooks: CompactHooks,
): Promise<CompactResult> {
  const started = performance.now();
  const table = snapshot.table;
  validateCompactOptions(options, table);
  checkWriteSupport(snapshot.protocol, snapshot.metadata, table, "rewrite");
  const signal = options.signal ?? new AbortController().signal;
  setMaxListeners(0, signal);
  const t = performance.now();
  const { plan, filter } = await planTableCompaction(snapshot, options);
  const planMs = performance.now() - t;
  const state = initialState(snapshot);
  if (options.dryRun || plan.bins.length === 0) {
    return resultOf(plan, state, { planMs, started, dryRun: options.dryRun ?? false, parallelBins: 0 });
  }
  const ctx = runContext(snapshot, plan, filter, options, signal, "compact", hooks);
  await executePlan(
    state,
    ctx,
    async (base, partitions) => (await planTableCompaction(base, options, partitions)).plan,
  );
  return resultOf(plan, state, {
    planMs,
    started,
    dryRun: false,
    parallelBins: Math.min(ctx.maxParallelBins, plan.bins.length),
  });
}
