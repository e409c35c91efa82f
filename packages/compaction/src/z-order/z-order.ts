/**
 * `zOrder(snapshot, columns, options)`: rewrites every file of the selected partitions sorted by a Z-order
 * curve over `columns`, as delta-rs's `optimize.z_order` does — one bin per partition holding all its files
 * (plan.ts), its rows in the order of delta-rs's key (z-key.ts), files closing at the target size — in one
 * OPTIMIZE commit with `dataChange: false`, delta-rs's operationParameters plus `zOrderBy` (the columns as
 * JSON text, as Spark records it) and delta-rs's Z-order metrics. Everything is validated before anything is
 * read; the bins run through compaction's executor (budgets, conflicts, clean-up); each partition's sort keeps
 * at most `maxSortBytes` of rows in memory and spills sorted runs beyond that (external-sort.ts), its spill
 * folder removed whatever happens.
 */
import { setMaxListeners } from "node:events";
import { dataFileSchema } from "@deltalite/data-files";
import { checkWriteSupport, type Snapshot } from "@deltalite/delta-log";
import type { RecordBatch } from "apache-arrow";
import { filesInDeltaRsOrder } from "../file-order.js";
import { validateZOrderOptions } from "../options.js";
import { resolvePartitionFilter } from "../partition-filter.js";
import { type CompactionBin, type CompactionPlan, targetFileSizeFor } from "../plan.js";
import { type BinRewrite, type BinRewriteContext, rewriteBin } from "../rewrite-bin.js";
import { executePlan, initialState, RUN_DEFAULTS, resultOf, runContext } from "../run.js";
import type { CompactOptions, ZOrderOptions, ZOrderResult } from "../types.js";
import { resolveZOrderColumns } from "./columns.js";
import { zOrderSorted } from "./external-sort.js";
import { planZOrder } from "./plan.js";
import { SpillArea } from "./spill.js";

const MIB = 1024 * 1024;
const DEFAULT_MAX_SORT_BYTES = 64 * MIB;
/** Rows per sorted output batch: DataFusion's batch size, so numBatches counts as delta-rs's does. */
const OUTPUT_BATCH_ROWS = 8192;

/** Plans the Z-order of the snapshot (no I/O): one bin per selected partition. */
export function planTableZOrder(
  snapshot: Snapshot,
  options: ZOrderOptions = {},
  only?: ReadonlySet<string>,
): CompactionPlan {
  const plan = planZOrder({
    files: filesInDeltaRsOrder(snapshot),
    partitionColumns: snapshot.partitionColumns,
    targetFileSize: targetFileSizeFor(snapshot.configuration, options.targetFileSize),
    filter: resolvePartitionFilter(snapshot, options.partitions),
  });
  if (only) plan.bins = plan.bins.filter((b) => only.has(b.partitionId));
  return plan;
}

/** Rewrites the selected partitions sorted by a Z-order curve over `columns`, in one OPTIMIZE commit. */
export async function zOrder(
  snapshot: Snapshot,
  columns: readonly string[],
  options: ZOrderOptions = {},
): Promise<ZOrderResult> {
  const started = performance.now();
  validateZOrderOptions(options, snapshot.table);
  const dataSchema = dataFileSchema(snapshot.schema, snapshot.partitionColumns);
  const columnIndices = resolveZOrderColumns(snapshot, columns, dataSchema);
  checkWriteSupport(snapshot.protocol, snapshot.metadata, snapshot.table, "rewrite");
  const signal = options.signal ?? new AbortController().signal;
  setMaxListeners(0, signal);
  const t = performance.now();
  const filter = resolvePartitionFilter(snapshot, options.partitions);
  const plan = planTableZOrder(snapshot, options);
  const planMs = performance.now() - t;
  const state = initialState(snapshot);
  const spilled = { partitions: 0, runs: 0, bytes: 0 };
  const dryRun = options.dryRun ?? false;
  if (!dryRun && plan.bins.length > 0) {
    const compactOptions = options as CompactOptions;
    const ctx = runContext(snapshot, plan, filter, compactOptions, signal, "z-order");
    ctx.operationParameters = { zOrderBy: JSON.stringify(columns) };
    const sort = {
      columnIndices,
      maxSortBytes: options.maxSortBytes ?? DEFAULT_MAX_SORT_BYTES,
      spillDirectory: options.spillDirectory,
      targetFileSize: plan.targetFileSize,
      spilled,
    };
    ctx.rewrite = (bin, context) => rewriteZOrdered(bin, context, sort);
    await executePlan(state, ctx, async (base, partitions) => planTableZOrder(base, options, partitions));
  }
  const result = resultOf(plan, state, {
    planMs,
    started,
    dryRun,
    parallelBins: dryRun
      ? 0
      : Math.min(options.maxParallelBins ?? RUN_DEFAULTS.maxParallelBins, plan.bins.length),
  });
  return {
    ...result,
    columns: [...columns],
    partitionsSpilled: spilled.partitions,
    spilledRuns: spilled.runs,
    spilledBytes: spilled.bytes,
  };
}

interface SortSettings {
  columnIndices: readonly number[];
  maxSortBytes: number;
  spillDirectory: string | undefined;
  targetFileSize: number;
  spilled: { partitions: number; runs: number; bytes: number };
}

/** One partition rewritten in Z-order; its spilled runs are removed on success and on failure. */
async function rewriteZOrdered(
  bin: CompactionBin,
  context: BinRewriteContext,
  sort: SortSettings,
): Promise<BinRewrite> {
  const spill = new SpillArea(sort.spillDirectory);
  try {
    return await rewriteBin(bin, context, {
      targetFileSize: sort.targetFileSize,
      arrange: (rows: AsyncIterable<RecordBatch>) =>
        zOrderSorted(rows, {
          schema: context.dataSchema,
          columnIndices: sort.columnIndices,
          maxSortBytes: sort.maxSortBytes,
          outputBatchRows: OUTPUT_BATCH_ROWS,
          spill,
        }),
    });
  } finally {
    if (spill.runs > 0) sort.spilled.partitions++;
    sort.spilled.runs += spill.runs;
    sort.spilled.bytes += spill.bytes;
    await spill.close();
  }
}
