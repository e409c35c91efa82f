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
import { type LiveFileReadContext, openLiveFile, type Permit, readLiveFile } from "@deltalite/data-files";
import type { AddAction } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import type { ParquetReader, WrittenFile } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import type { CompactionBin } from "./plan.js";
import { writeBinFiles } from "./write-bin-files.js";

/** What every bin of one call shares. */
export interface BinRewriteContext {
  store: ObjectStore;
  /** The table schema without partition columns (what data files hold). */
  dataSchema: Schema;
  partitionColumns: readonly string[];
  configuration: Readonly<Record<string, string>>;
  read: LiveFileReadContext;
  acquireFile: () => Promise<Permit>;
  maxDecodedFileBytes: number;
  /** `maxRowGroupDecodedBytes`: what one bin's open row group may cost (writer-memory.ts). */
  maxRowGroupBytes: number;
  multipartThresholdBytes: number | undefined;
  multipartPartSizeBytes: number | undefined;
  multipartConcurrency: number | undefined;
  signal: AbortSignal | undefined;
  /** Told the stored size of every input file once it is read (progress). */
  onInputRead?: ((size: number) => void) | undefined;
  /** Told every file as soon as it is complete (for clean-up on a later failure or a dropped bin). */
  onFile: (file: WrittenFile) => void;
}

export interface BinRewrite {
  bin: CompactionBin;
  adds: AddAction[];
  /** Store keys of the new files. */
  keys: string[];
  rows: number;
  /** Decoded batches read (delta-rs's numBatches). */
  batches: number;
  bytesWritten: number;
}

/** How a rewrite differs from compaction's (Z-order: its rows reordered, files closing at the target). */
export interface BinArrangement {
  /** The bin's rows in their new order; its batches are the ones counted (delta-rs's numBatches). */
  arrange(rows: AsyncIterable<RecordBatch>): AsyncIterable<RecordBatch>;
  /** Output files also close at this many stored bytes. */
  targetFileSize: number;
}

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
