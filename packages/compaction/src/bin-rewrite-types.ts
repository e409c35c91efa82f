/** The types one bin's rewrite shares with the writer of its files (rewrite-bin.ts, write-bin-files.ts). */
import type { LiveFileReadContext, Permit } from "@deltalite/data-files";
import type { AddAction } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import type { WrittenFile } from "@deltalite/parquet-stream";
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
  /** Files of at most this many stored bytes may skip the JS decode (passthrough-read.ts); 0: none. */
  passthroughMaxBytes: number;
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
  /** Input files passed through undecoded (passthrough-read.ts). */
  passedThrough: number;
  bytesWritten: number;
}

/** How a rewrite differs from compaction's (Z-order: its rows reordered, files closing at the target). */
export interface BinArrangement {
  /** The bin's rows in their new order; its batches are the ones counted (delta-rs's numBatches). */
  arrange(rows: AsyncIterable<RecordBatch>): AsyncIterable<RecordBatch>;
  /** Output files also close at this many stored bytes. */
  targetFileSize: number;
}
