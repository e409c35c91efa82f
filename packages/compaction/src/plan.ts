/**
 * Bin planning exactly as delta-rs's `optimize.compact` (≥ 1.6, "preserve locality"), from files already in
 * delta-rs's order and with no I/O: per partition (keyed by its full partition values) every file gets an
 * ordinal; files above the target are skipped but keep theirs; a bin is a run of consecutive ordinals that
 * closes before the file that would take it past the target; single-file bins are dropped. On top, as the
 * original deltalite's `min_partition_removable_files`: a partition is compacted only when its bins remove at
 * least that many more files than they write (files removed − bins; default 1: every partition with a bin,
 * as delta-rs).
 */
import type { FileView } from "@deltalite/delta-log";
import type { PartitionFilter } from "./partition-filter.js";

/** delta-rs's default target (100 MiB, `DEFAULT_TARGET_FILE_SIZE`). */
export const DEFAULT_TARGET_FILE_SIZE = 100 * 1024 * 1024;

export interface CompactionBin {
  /** Identity of the partition (its values over the partition columns). */
  partitionId: string;
  partitionValues: Readonly<Record<string, string | null>>;
  /** Input files, in delta-rs's order. */
  files: readonly FileView[];
  /** Their stored bytes. */
  bytes: number;
}

export interface CompactionPlan {
  /** delta-rs's planner: bin packing in stable order (compact), or every file of a partition (Z-order). */
  strategy: "preserveLocality" | "zOrder";
  targetFileSize: number;
  bins: CompactionBin[];
  totalConsideredFiles: number;
  totalFilesSkipped: number;
  partitionsOptimized: number;
  maxBinSpanFiles: number;
}

export interface PlanInput {
  /** Live files in delta-rs's `file_views` order (see file-order.ts). */
  files: readonly FileView[];
  partitionColumns: readonly string[];
  targetFileSize: number;
  filter: PartitionFilter;
  minPartitionRemovableFiles: number;
}

/** `explicit`, else the table's `delta.targetFileSize`, else delta-rs's default. */
export function targetFileSizeFor(
  configuration: Readonly<Record<string, string>>,
  explicit?: number,
): number {
  if (explicit !== undefined) return explicit;
  const configured = Number(configuration["delta.targetFileSize"]);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_TARGET_FILE_SIZE;
}

export function partitionIdOf(
  values: Readonly<Record<string, string | null>>,
  partitionColumns: readonly string[],
): string {
  return JSON.stringify(partitionColumns.map((c) => values[c] ?? null));
}

interface Candidate {
  file: FileView;
  ordinal: number;
}

export function planCompaction(input: PlanInput): CompactionPlan {
  const { targetFileSize } = input;
  const partitions = new Map<
    string,
    { values: Readonly<Record<string, string | null>>; next: number; candidates: Candidate[] }
  >();
  let considered = 0;
  let skipped = 0;
  for (const file of input.files) {
    if (!input.filter.matches(file.partitionValues)) continue;
    considered++;
    const id = partitionIdOf(file.partitionValues, input.partitionColumns);
    let entry = partitions.get(id);
    if (!entry) {
      entry = { values: file.partitionValues, next: 0, candidates: [] };
      partitions.set(id, entry);
    }
    const ordinal = entry.next++;
    if (file.size > targetFileSize) skipped++;
    else entry.candidates.push({ file, ordinal });
  }
  const bins: CompactionBin[] = [];
  let maxSpan = 0;
  for (const [id, entry] of partitions) {
    const runs = packRuns(entry.candidates, targetFileSize);
    for (const run of runs) maxSpan = Math.max(maxSpan, run.length);
    const kept = runs.filter((run) => run.length > 1);
    skipped += runs.length - kept.length;
    const removable = kept.reduce((n, run) => n + run.length, 0);
    if (kept.length > 0 && removable - kept.length < input.minPartitionRemovableFiles) {
      skipped += removable;
      continue;
    }
    for (const run of kept) {
      bins.push({
        partitionId: id,
        partitionValues: entry.values,
        files: run,
        bytes: run.reduce((n, f) => n + f.size, 0),
      });
    }
  }
  const partitionsOptimized = new Set(bins.map((b) => b.partitionId)).size;
  return {
    strategy: "preserveLocality",
    targetFileSize,
    bins,
    totalConsideredFiles: considered,
    totalFilesSkipped: skipped,
    partitionsOptimized,
    maxBinSpanFiles: bins.length === 0 ? 0 : maxSpan,
  };
}

/** delta-rs's stable-order packing: runs of consecutive ordinals whose sizes sum to at most the target. */
function packRuns(candidates: readonly Candidate[], target: number): FileView[][] {
  const runs: FileView[][] = [];
  let current: FileView[] = [];
  let bytes = 0;
  let last = -2;
  for (const { file, ordinal } of candidates) {
    const extends_ = current.length > 0 && ordinal === last + 1 && bytes + file.size <= target;
    if (!extends_ && current.length > 0) {
      runs.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
    last = ordinal;
  }
  if (current.length > 0) runs.push(current);
  return runs;
}
