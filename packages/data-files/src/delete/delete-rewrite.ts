/**
 * The data work of a delete, streamed under the call's budgets: the probe of a file that may match (only
 * its filter columns are read, stopping at the first matching row), the rewrite of one partition's hit
 * files without their matching rows (one decoded batch at a time, through one data-file writer per
 * partition, as delta-rs writes one output per partition; the deleted rows go to the partition's
 * change-data writer when the table keeps a change data feed), and the row count of a file removed unread
 * (from its stats, else its footer).
 */
import type { AddAction, FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type ParquetReader, takeRows, type WrittenFile } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import type { CallBudgets } from "../budgets/call-budgets.js";
import { type LiveFileReadContext, openLiveFile, readLiveFile } from "../read/live-file.js";
import type { ResolvedCondition } from "../scan/filter.js";
import { matchMask, rowsWhere } from "../scan/row-filter.js";
import type { ChangeDataWriter } from "../write/change-data.js";
import { type DataFileWriterOptions, writePartitionFiles } from "../write/data-file-writer.js";

/** What every step of one delete attempt shares. */
export interface DeleteContext {
  store: ObjectStore;
  /** The table's columns as data files store them (partition columns left out). */
  dataSchema: Schema;
  rowConditions: readonly ResolvedCondition[];
  budgets: CallBudgets;
  read: LiveFileReadContext;
  writer: DataFileWriterOptions;
  /** Files written so far (deleted when the attempt fails). */
  written: WrittenFile[];
}

/** What the rewrite of one partition's files produced. */
export interface PartitionRewrite {
  adds: AddAction[];
  rowsDeleted: number;
  rowsCopied: number;
  bytesWritten: number;
}

/** Runs `work` with `file` open under a file permit (closed and released after). */
async function withFile<T>(
  ctx: DeleteContext,
  file: FileView,
  work: (reader: ParquetReader) => Promise<T>,
): Promise<T> {
  const permit = await ctx.budgets.acquireFile();
  let reader: ParquetReader | undefined;
  try {
    reader = await openLiveFile(ctx.store, file, ctx.read);
    return await work(reader);
  } finally {
    reader?.close();
    permit.release();
  }
}

/** True when some row of `file` satisfies every row condition (reads only the filter columns). */
export function fileHoldsMatch(ctx: DeleteContext, file: FileView): Promise<boolean> {
  const names = new Set(ctx.rowConditions.map((c) => c.column));
  const fields = ctx.dataSchema.fields.filter((f) => names.has(f.name));
  return withFile(ctx, file, async (reader) => {
    const batches = readLiveFile(reader, file, { fields }, ctx.read);
    for await (const batch of batches) {
      if (rowsWhere(matchMask(batch, ctx.rowConditions), 1).length > 0) {
        await batches.return(undefined);
        return true;
      }
    }
    return false;
  });
}

/** The rows of a file removed unread: `numRecords` from its stats, else the footer's row count. */
export async function rowCountOf(ctx: DeleteContext, file: FileView): Promise<number> {
  const counted = file.stats?.numRecords;
  if (typeof counted === "number" && Number.isSafeInteger(counted)) return counted;
  return withFile(ctx, file, async (reader) => reader.rowGroupRows.reduce((n, r) => n + r, 0));
}

/** Rewrites `files` (all of one partition, `values`) without their matching rows, as one stream. */
export async function rewritePartitionFiles(
  ctx: DeleteContext,
  files: readonly FileView[],
  values: Record<string, string | null>,
  changeData?: ChangeDataWriter,
): Promise<PartitionRewrite> {
  const counts = { rowsDeleted: 0, rowsCopied: 0 };
  async function* survivors(): AsyncGenerator<RecordBatch> {
    for (const file of files) {
      const permit = await ctx.budgets.acquireFile();
      let reader: ParquetReader | undefined;
      try {
        reader = await openLiveFile(ctx.store, file, ctx.read);
        for await (const batch of readLiveFile(reader, file, { fields: ctx.dataSchema.fields }, ctx.read)) {
          const mask = matchMask(batch, ctx.rowConditions);
          const deleted = rowsWhere(mask, 1);
          counts.rowsDeleted += deleted.length;
          counts.rowsCopied += batch.numRows - deleted.length;
          if (deleted.length > 0 && changeData) await changeData.push(takeRows(batch, deleted), "delete");
          if (deleted.length === 0) yield batch;
          else if (deleted.length < batch.numRows) yield takeRows(batch, rowsWhere(mask, 0));
        }
      } finally {
        reader?.close();
        permit.release();
      }
    }
  }
  const out: PartitionRewrite = { adds: [], rowsDeleted: 0, rowsCopied: 0, bytesWritten: 0 };
  for await (const { file, add } of writePartitionFiles(
    ctx.store,
    survivors(),
    ctx.dataSchema,
    values,
    ctx.writer,
  )) {
    ctx.written.push(file);
    out.adds.push(add);
    out.bytesWritten += file.size;
  }
  return { ...out, ...counts };
}
