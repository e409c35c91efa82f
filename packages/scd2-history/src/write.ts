/**
 * The writes of one history-upsert attempt (nothing is committed here): the current partition's files that
 * hold a closing open row are streamed one batch at a time (all columns, under the call's file permits and
 * read budgets); their other rows are copied, followed by the new open rows, through one data-file writer
 * into the current partition, while each closing row gets its valid-to and joins the closed versions of
 * its month. Closed versions (closing open rows and closed chain rows) are then appended, one writer per
 * `%Y-%m` partition. Files without a closing row are never opened here.
 */
import {
  type CallBudgets,
  type LiveFileReadContext,
  openLiveFile,
  readLiveFile,
  writePartitionFiles,
} from "@deltalite/data-files";
import type { AddAction, Snapshot } from "@deltalite/delta-log";
import { encodeKeys } from "@deltalite/merge-engine";
import { type ParquetReader, takeRows, type WrittenFile } from "@deltalite/parquet-stream";
import type { RecordBatch } from "apache-arrow";
import type { CollapsedSource } from "./collapse.js";
import type { HistoryPlan } from "./plan.js";
import { sourceRows, withValidTo } from "./rows.js";
import type { HistoryShape } from "./shape.js";
import type { HistorySource } from "./source.js";
import type { HistoryUpsertOptions } from "./types.js";
import { type Cell, monthPartition } from "./values.js";

export interface WriteContext {
  snapshot: Snapshot;
  shape: HistoryShape;
  options: HistoryUpsertOptions;
  budgets: CallBudgets;
  read: LiveFileReadContext;
  signal: AbortSignal;
  /** Every file written so far (deleted when the attempt fails). */
  written: WrittenFile[];
}

export interface HistoryWrites {
  adds: AddAction[];
  rowsCopied: number;
  bytesRead: number;
  bytesWritten: number;
}

/** Writes the plan's files (see module comment). */
export async function writeHistory(
  ctx: WriteContext,
  source: HistorySource,
  collapsed: CollapsedSource,
  plan: HistoryPlan,
): Promise<HistoryWrites> {
  const { shape } = ctx;
  const timeType = shape.deltaTypes.get(shape.validFromColumn) as string;
  const closedByMonth = new Map<string, RecordBatch[]>();
  const closeRows = (batch: RecordBatch, rows: number[], validTo: Cell[]) => {
    const byMonth = new Map<string, { rows: number[]; validTo: Cell[] }>();
    rows.forEach((row, i) => {
      const month = monthPartition(validTo[i] as Cell, timeType);
      const slot = byMonth.get(month) ?? { rows: [], validTo: [] };
      slot.rows.push(row);
      slot.validTo.push(validTo[i] as Cell);
      byMonth.set(month, slot);
    });
    for (const [month, slot] of byMonth) {
      const closed = withValidTo(
        takeRows(batch, Int32Array.from(slot.rows)),
        shape.validToColumn,
        slot.validTo,
      );
      closedByMonth.set(month, [...(closedByMonth.get(month) ?? []), closed]);
    }
  };
  const result: HistoryWrites = { adds: [], rowsCopied: 0, bytesRead: 0, bytesWritten: 0 };
  const opened = sourceRows(
    source.batches,
    collapsed.batchStarts,
    plan.opened.map((row) => ({ row })),
    shape.dataSchema,
    shape.validToColumn,
  );
  async function* currentRows(): AsyncGenerator<RecordBatch> {
    for (const file of plan.hitFiles) {
      result.bytesRead += file.size;
      const permit = await ctx.budgets.acquireFile();
      let reader: ParquetReader | undefined;
      try {
        reader = await openLiveFile(ctx.snapshot.store, file, ctx.read);
        for await (const batch of readLiveFile(reader, file, { fields: shape.dataSchema.fields }, ctx.read)) {
          const keys = encodeKeys(batch, shape.keyColumns);
          const keep: number[] = [];
          const drop: number[] = [];
          const validTo: Cell[] = [];
          for (let row = 0; row < batch.numRows; row++) {
            const id = collapsed.index.find(keys, row);
            const closeAt = id < 0 ? undefined : plan.closeAt[id];
            if (closeAt === undefined) keep.push(row);
            else {
              drop.push(row);
              validTo.push(closeAt);
            }
          }
          if (drop.length > 0) closeRows(batch, drop, validTo);
          result.rowsCopied += keep.length;
          if (keep.length === batch.numRows) yield batch;
          else if (keep.length > 0) yield takeRows(batch, Int32Array.from(keep));
        }
      } finally {
        reader?.close();
        permit.release();
      }
    }
    yield* opened;
  }
  await writePartition(ctx, currentRows(), shape.currentPartition, result);
  for (const [month, picks] of groupChainByMonth(plan, timeType)) {
    const chain = sourceRows(
      source.batches,
      collapsed.batchStarts,
      picks,
      shape.dataSchema,
      shape.validToColumn,
    );
    closedByMonth.set(month, [...(closedByMonth.get(month) ?? []), ...chain]);
  }
  for (const [month, batches] of [...closedByMonth].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await writePartition(ctx, batches, month, result);
  }
  return result;
}

function groupChainByMonth(
  plan: HistoryPlan,
  timeType: string,
): Map<string, { row: number; validTo: Cell }[]> {
  const out = new Map<string, { row: number; validTo: Cell }[]>();
  for (const pick of plan.chain) {
    const month = monthPartition(pick.validTo, timeType);
    out.set(month, [...(out.get(month) ?? []), pick]);
  }
  return out;
}

/** Streams `batches` into new files of partition `value`; records them in `result` and `ctx.written`. */
async function writePartition(
  ctx: WriteContext,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  value: string,
  result: HistoryWrites,
): Promise<void> {
  const { snapshot, shape, options } = ctx;
  const files = writePartitionFiles(
    snapshot.store,
    batches,
    shape.dataSchema,
    { [shape.partitionColumn]: value },
    {
      partitionColumns: snapshot.partitionColumns,
      configuration: snapshot.configuration,
      codec: options.codec ?? "snappy",
      targetFileSize: targetFileSizeOf(snapshot, options.targetFileSize),
      maxRowGroupBytes: options.maxRowGroupBytes,
      maxRowGroupRows: options.maxRowGroupRows,
      multipartThresholdBytes: options.multipartThresholdBytes,
      multipartPartSizeBytes: options.multipartPartSizeBytes,
      multipartConcurrency: options.multipartConcurrency,
      signal: ctx.signal,
    },
  );
  for await (const { file, add } of files) {
    ctx.written.push(file);
    result.adds.push(add);
    result.bytesWritten += file.size;
  }
}

/** `targetFileSize`, else the table's `delta.targetFileSize`, else undefined (the writer's default). */
function targetFileSizeOf(snapshot: Snapshot, explicit: number | undefined): number | undefined {
  if (explicit !== undefined) return explicit;
  const n = Number(snapshot.configuration["delta.targetFileSize"]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
