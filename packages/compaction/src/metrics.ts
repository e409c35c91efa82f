/**
 * delta-rs's OPTIMIZE metrics from a plan and the bins that were committed: file counts, the added / removed
 * size summaries (`MetricDetails`: min reset to 0 when there were none), partitions, batches, considered and
 * skipped files, and the planner fields of delta-rs ≥ 1.6 (compact's or Z-order's) — plus the commitInfo form of them
 * (`operationMetrics`: the summaries as JSON text, keys in delta-rs's order).
 */
import type { CompactionPlan } from "./plan.js";
import type { BinRewrite } from "./rewrite-bin.js";
import type { FileSizeSummary, OptimizeMetrics } from "./types.js";

export function sizeSummary(sizes: readonly number[]): FileSizeSummary {
  if (sizes.length === 0) return { avg: 0, max: 0, min: 0, totalFiles: 0, totalSize: 0 };
  const totalSize = sizes.reduce((n, s) => n + s, 0);
  return {
    avg: totalSize / sizes.length,
    max: Math.max(...sizes),
    min: Math.min(...sizes),
    totalFiles: sizes.length,
    totalSize,
  };
}

/** The metrics of `rewrites` (the bins committed) under `plan`. */
export function optimizeMetrics(plan: CompactionPlan, rewrites: readonly BinRewrite[]): OptimizeMetrics {
  const added = rewrites.flatMap((r) => r.adds.map((a) => a.size));
  const removed = rewrites.flatMap((r) => r.bin.files.map((f) => f.size));
  return {
    numFilesAdded: added.length,
    numFilesRemoved: removed.length,
    filesAdded: sizeSummary(added),
    filesRemoved: sizeSummary(removed),
    partitionsOptimized: plan.partitionsOptimized,
    numBatches: rewrites.reduce((n, r) => n + r.batches, 0),
    totalConsideredFiles: plan.totalConsideredFiles,
    totalFilesSkipped: plan.totalFilesSkipped,
    preserveInsertionOrder: plan.strategy === "preserveLocality",
    plannerStrategy: plan.strategy,
    preservedStableOrder: plan.strategy === "preserveLocality",
    maxBinSpanFiles: plan.maxBinSpanFiles,
  };
}

/** The metrics as delta-rs writes them into commitInfo.operationMetrics. */
export function operationMetricsOf(metrics: OptimizeMetrics): Record<string, unknown> {
  return {
    numFilesAdded: metrics.numFilesAdded,
    numFilesRemoved: metrics.numFilesRemoved,
    filesAdded: summaryText(metrics.filesAdded),
    filesRemoved: summaryText(metrics.filesRemoved),
    partitionsOptimized: metrics.partitionsOptimized,
    numBatches: metrics.numBatches,
    totalConsideredFiles: metrics.totalConsideredFiles,
    totalFilesSkipped: metrics.totalFilesSkipped,
    preserveInsertionOrder: metrics.preserveInsertionOrder,
    plannerStrategy: metrics.plannerStrategy,
    preservedStableOrder: metrics.preservedStableOrder,
    maxBinSpanFiles: metrics.maxBinSpanFiles,
  };
}

/** serde_json's text of a `MetricDetails` (its f64 `avg` keeps a `.0` when whole, as ryu prints it). */
function summaryText(summary: FileSizeSummary): string {
  const avg = Number.isInteger(summary.avg) ? `${summary.avg}.0` : String(summary.avg);
  return `{"avg":${avg},"max":${summary.max},"min":${summary.min},"totalFiles":${summary.totalFiles},"totalSize":${summary.totalSize}}`;
}
