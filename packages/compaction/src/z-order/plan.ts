/**
 * The Z-order plan, as delta-rs's `optimize.z_order` plans it, with no I/O: every live file of each selected
 * partition (single files and files above the target included) forms that partition's one bin, in delta-rs's
 * file order; every file is considered and none skipped; each partition counts as optimized; the largest
 * bin's file count is `maxBinSpanFiles`.
 */
import type { FileView } from "@deltalite/delta-log";
import type { PartitionFilter } from "../partition-filter.js";
import { type CompactionBin, type CompactionPlan, partitionIdOf } from "../plan.js";

export interface ZOrderPlanInput {
  /** Live files in delta-rs's `file_views` order. */
  files: readonly FileView[];
  partitionColumns: readonly string[];
  targetFileSize: number;
  filter: PartitionFilter;
}

export function planZOrder(input: ZOrderPlanInput): CompactionPlan {
  const bins = new Map<string, { values: Readonly<Record<string, string | null>>; files: FileView[] }>();
  let considered = 0;
  for (const file of input.files) {
    if (!input.filter.matches(file.partitionValues)) continue;
    considered++;
    const id = partitionIdOf(file.partitionValues, input.partitionColumns);
    let bin = bins.get(id);
    if (!bin) {
      bin = { values: file.partitionValues, files: [] };
      bins.set(id, bin);
    }
    bin.files.push(file);
  }
  const planned: CompactionBin[] = [...bins].map(([partitionId, bin]) => ({
    partitionId,
    partitionValues: bin.values,
    files: bin.files,
    bytes: bin.files.reduce((n, f) => n + f.size, 0),
  }));
  return {
    strategy: "zOrder",
    targetFileSize: input.targetFileSize,
    bins: planned,
    totalConsideredFiles: considered,
    totalFilesSkipped: 0,
    partitionsOptimized: planned.length,
    maxBinSpanFiles: Math.max(0, ...planned.map((b) => b.files.length)),
  };
}
