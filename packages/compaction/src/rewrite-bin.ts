/**
 * The rewrite of one bin: its files are read one at a time (a file permit held while open), one
 * byte-bounded batch at a time through the call's fetch and decode admission, and streamed into ZSTD
 * Parquet files of the bin's partition with `dataChange: false` Adds. delta-rs writes one file per bin; here a
 * file also closes once `maxDecodedFileBytes` of decoded batches went into it (so memory and file size
 * follow the knobs, not the bin), and row groups close where writer-memory.ts says (the encoder's memory
 * within `maxRowGroupBytes`, and at most that many decoded bytes). Z-order passes an arrangement:
 * the rows go through its sort and files also close at the target size, as delta-rs's z-order writes them.
 * Nothing is committed here.
 */
import { openLiveFile, readLiveFile } from "@deltalite/data-files";
import type { ParquetReader } from "@deltalite/parquet-stream";
import type { RecordBatch } from "apache-arrow";
import type { BinArrangement, BinRewrite, BinRewriteContext } from "./bin-rewrite-types.js";
import type { CompactionBin } from "./plan.js";
import { writeBinFiles } from "./write-bin-files.js";

export type { BinArrangement, BinRewrite, BinRewriteContext } from "./bin-rewrite-types.js";

export async function rewriteBin(
  bin: CompactionBin,
  ctx: BinRewriteContext,
  arrangement?: BinArrangement,
): Promise<BinRewrite> {
  const counts: BinCounts = { rows: 0, batches: 0, arranged: 0 };
  const read = readBin(bin, ctx, counts);
  const arranged = arrangement ? counted(arrangement.arrange(read), counts) : read;
  const source = arranged[Symbol.asyncIterator]();
  const result: BinRewrite = { bin, adds: [], keys: [], rows: 0, batches: 0, bytesWritten: 0 };
  try {
    const first = await source.next();
    if (!first.done) await writeBinFiles(first.value, source, bin, ctx, arrangement, result);
  } finally {
    await source.return?.(undefined);
  }
  result.rows = counts.rows;
  result.batches = arrangement ? counts.arranged : counts.batches;
  return result;
}

async function* counted(batches: AsyncIterable<RecordBatch>, counts: BinCounts): AsyncGenerator<RecordBatch> {
  for await (const batch of batches) {
    counts.arranged++;
    yield batch;
  }
}

interface BinCounts {
  rows: number;
  /** Batches read. */
  batches: number;
  /** Batches of the arranged rows. */
  arranged: number;
}

/** The bin's rows, file after file, batch after batch (data-file shaped: no partition columns). */
async function* readBin(
  bin: CompactionBin,
  ctx: BinRewriteContext,
  counts: BinCounts,
): AsyncGenerator<RecordBatch> {
  for (const file of bin.files) {
    const permit = await ctx.acquireFile();
    let reader: ParquetReader | undefined;
    try {
      reader = await openLiveFile(ctx.store, file, ctx.read);
      for await (const batch of readLiveFile(reader, file, { fields: ctx.dataSchema.fields }, ctx.read)) {
        counts.batches++;
        counts.rows += batch.numRows;
        if (batch.numRows > 0) yield batch;
      }
    } finally {
      reader?.close();
      permit.release();
    }
    ctx.onInputRead?.(file.size);
  }
}
