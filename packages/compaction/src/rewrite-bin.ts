/**
 * The rewrite of one bin: its files are read one at a time (a file permit held while open), one
 * byte-bounded batch at a time through the call's fetch and decode admission, and streamed into ZSTD
 * Parquet files of the bin's partition with `dataChange: false` Adds. delta-rs writes one file per bin; here a
 * file also closes once `maxDecodedFileBytes` of decoded batches went into it (so memory and file size
 * follow the knobs, not the bin), and row groups close at `maxRowGroupBytes`. Nothing is committed here.
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

export async function rewriteBin(bin: CompactionBin, ctx: BinRewriteContext): Promise<BinRewrite> {
  const counts = { rows: 0, batches: 0 };
  const source = readBin(bin, ctx, counts)[Symbol.asyncIterator]();
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
          targetFileSize: UNBOUNDED,
          maxRowGroupBytes: ctx.maxRowGroupBytes,
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
  result.batches = counts.batches;
  return result;
}

/** The bin's rows, file after file, batch after batch (data-file shaped: no partition columns). */
async function* readBin(
  bin: CompactionBin,
  ctx: BinRewriteContext,
  counts: { rows: number; batches: number },
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
