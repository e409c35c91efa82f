/**
 * The rewrite of one bin: its files are read one at a time (a file permit held while open), one
 * byte-bounded batch at a time through the call's fetch and decode admission, and streamed into ZSTD
 * Parquet files of the bin's partition with `dataChange: false` Adds. delta-rs writes one file per bin; here a
 * file also closes once `maxDecodedFileBytes` of decoded batches went into it (so memory and file size
 * follow the knobs, not the bin), and row groups close at `maxRowGroupBytes`. Z-order passes an arrangement:
 * the rows go through its sort and files also close at the target size, as delta-rs's z-order writes them.
 * Nothing is committed here.
 */
import {
  type LiveFileReadContext,
  openLiveFile,
  type Permit,
  readLiveFile,
  writePartitionFiles,
} from "@deltalite/data-files";
import type { AddAction } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type ParquetReader, recordBatchBytes, type WrittenFile } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import type { CompactionBin } from "./plan.js";

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
  maxRowGroupBytes: number;
  multipartThresholdBytes: number | undefined;
  multipartPartSizeBytes: number | undefined;
  multipartConcurrency: number | undefined;
  signal: AbortSignal | undefined;
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

/** No file of a bin closes on its stored size: one file per bin unless the decoded cap splits it. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

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
  let exhausted = false;
  async function* untilCap(): AsyncGenerator<RecordBatch> {
    let bytes = 0;
    while (bytes < ctx.maxDecodedFileBytes) {
      const next = await source.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      bytes += recordBatchBytes(next.value);
      yield next.value;
    }
  }
  try {
    while (!exhausted) {
      const written = writePartitionFiles(
        ctx.store,
        untilCap(),
        ctx.dataSchema,
        { ...bin.partitionValues },
        {
          partitionColumns: ctx.partitionColumns,
          configuration: ctx.configuration,
          codec: "zstd",
          targetFileSize: arrangement?.targetFileSize ?? UNBOUNDED,
          // Files close at row-group boundaries: Z-order's groups stay under its target so files end near it.
          maxRowGroupBytes: Math.min(ctx.maxRowGroupBytes, arrangement?.targetFileSize ?? UNBOUNDED),
          multipartThresholdBytes: ctx.multipartThresholdBytes,
          multipartPartSizeBytes: ctx.multipartPartSizeBytes,
          multipartConcurrency: ctx.multipartConcurrency,
          dataChange: false,
          signal: ctx.signal,
        },
      );
      for await (const { file, add } of written) {
        ctx.onFile(file);
        result.adds.push(add);
        result.keys.push(file.key);
        result.bytesWritten += file.size;
      }
    }
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
  }
}
