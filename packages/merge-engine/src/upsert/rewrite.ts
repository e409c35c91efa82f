/**
 * The rewrite of one partition: streams each hit file one row-group slice at a time, drops the rows whose
 * key the source replaces, and writes the survivors followed by the partition's source rows through one
 * streaming Parquet writer (files named and placed as delta-rs places them, rolling over at the target
 * size). Returns the new files as Add actions with delta-rs-equal stats. Nothing is committed here. When
 * the partition keeps columns from the target (`missingColumns: "keep"`), each replaced row is written
 * in place, built from its decoded batch (fill-from-target.ts), and only the unmatched source rows follow.
 */
import {
  type LiveFileReadContext,
  openLiveFile,
  type Permit,
  readLiveFile,
  writePartitionFiles,
} from "@deltalite/data-files";
import type { AddAction, FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type ParquetCodec, type ParquetReader, takeRows, type WrittenFile } from "@deltalite/parquet-stream";
import type { HashCollection } from "@deltalite/probe-cache";
import type { RecordBatch, Schema } from "apache-arrow";
import { encodeKeys } from "../keys/encode-keys.js";
import type { KeyHasher } from "../keys/key-hasher.js";
import { TargetFill } from "./fill-from-target.js";
import type { SourcePartition } from "./source-batch.js";

export interface RewriteInput {
  store: ObjectStore;
  partition: SourcePartition;
  partitionColumns: readonly string[];
  hitFiles: readonly FileView[];
  dataSchema: Schema;
  configuration: Readonly<Record<string, string>>;
  targetFileSize: number | undefined;
  maxRowGroupBytes: number | undefined;
  maxRowGroupRows: number | undefined;
  codec: ParquetCodec;
  multipartThresholdBytes: number | undefined;
  multipartPartSizeBytes: number | undefined;
  multipartConcurrency: number | undefined;
  read: LiveFileReadContext;
  /** Taken before each hit file is opened and held while it is read (the call's and process's file budgets). */
  acquireFile: () => Promise<Permit>;
  /** Collects the key hashes of everything written (the probe cache entry of the new files). */
  collection: HashCollection | undefined;
  hasher: KeyHasher;
  signal: AbortSignal | undefined;
  /** Receives every file as soon as it is complete (for clean-up on a later failure). */
  onFile: (file: WrittenFile) => void;
  /**
   * Receives the target rows the rewrite drops (those whose key the source replaces), one batch per
   * decoded batch that lost rows, in the data-file schema, before the survivors are written on (a change
   * data feed's pre-images; a delete's counts).
   */
  onDroppedRows?: ((rows: RecordBatch) => void | Promise<void>) | undefined;
}

export interface RewriteResult {
  adds: AddAction[];
  /** Store keys of the new files (the paths their Adds name, decoded). */
  keys: string[];
  /** Target rows replaced (MERGE's numTargetRowsUpdated). */
  rowsUpdated: number;
  /** Source rows that replaced at least one target row (the rest were inserted). */
  keysMatched: number;
  rowsCopied: number;
  bytesRead: number;
  bytesWritten: number;
}

export async function rewritePartition(input: RewriteInput): Promise<RewriteResult> {
  const { partition, signal } = input;
  const set = partition.keys;
  const counts = { rowsUpdated: 0, rowsCopied: 0, bytesRead: 0, keysMatched: 0 };
  // Target rows each source key replaced: MERGE updates every matching target row, so a key that several
  // target rows hold (a table written without the upsert) is written that many times.
  const matches = new Uint32Array(set.size);
  // "keep": replaced rows are built from the target batch they replace (written in place of it).
  const fill = TargetFill.of(partition, input.dataSchema);
  async function* rows(): AsyncGenerator<RecordBatch> {
    const collection = input.collection;
    for (const file of input.hitFiles) {
      counts.bytesRead += file.size;
      const permit = await input.acquireFile();
      let reader: ParquetReader | undefined;
      try {
        reader = await openLiveFile(input.store, file, input.read);
        const batches = readLiveFile(reader, file, { fields: input.dataSchema.fields }, input.read);
        for await (const batch of batches) {
          const keys = encodeKeys(batch, set.columns, { hasher: input.hasher });
          // Replaced rows' keys come back with the source rows: the file's keys are all in the output.
          collection?.add(keys.hashWords.subarray(0, 2 * keys.length), keys.nullKeys);
          const keep = new Int32Array(batch.numRows);
          const drop = new Int32Array(batch.numRows);
          const entries = new Int32Array(batch.numRows);
          let kept = 0;
          let dropped = 0;
          for (let i = 0; i < batch.numRows; i++) {
            const entry = set.find(keys, i);
            if (entry < 0) keep[kept++] = i;
            else {
              matches[entry] = (matches[entry] as number) + 1;
              entries[dropped] = entry;
              drop[dropped++] = i;
            }
          }
          if (dropped > 0 && input.onDroppedRows) {
            await input.onDroppedRows(takeRows(batch, drop.subarray(0, dropped)));
          }
          counts.rowsUpdated += dropped;
          counts.rowsCopied += kept;
          if (kept === batch.numRows) yield batch;
          else if (kept > 0) yield takeRows(batch, keep.subarray(0, kept));
          if (fill && dropped > 0) {
            yield* fill.replacingRows(batch, drop.subarray(0, dropped), entries.subarray(0, dropped));
          }
        }
      } finally {
        reader?.close();
        permit.release();
      }
    }
    collection?.add(set.hashWords());
    for (const batch of partition.batches) {
      if (batch.numRows === 0) continue;
      const keys = encodeKeys(batch, set.columns, { hasher: input.hasher });
      const take: number[] = [];
      for (let i = 0; i < batch.numRows; i++) {
        const entry = set.find(keys, i);
        const matched = entry >= 0 && (matches[entry] as number) > 0;
        if (matched) counts.keysMatched++;
        // Without a fill a matched source row replaces each of its target rows here; with one, it did in place.
        const times = !matched ? 1 : fill ? 0 : (matches[entry] as number);
        for (let k = 0; k < times; k++) take.push(i);
      }
      if (take.length === batch.numRows) yield batch;
      else if (take.length > 0) yield takeRows(batch, Int32Array.from(take));
    }
  }
  const files: WrittenFile[] = [];
  const adds: AddAction[] = [];
  const written = writePartitionFiles(input.store, rows(), input.dataSchema, partition.values, {
    partitionColumns: input.partitionColumns,
    configuration: input.configuration,
    codec: input.codec,
    targetFileSize: input.targetFileSize,
    maxRowGroupBytes: input.maxRowGroupBytes,
    maxRowGroupRows: input.maxRowGroupRows,
    multipartThresholdBytes: input.multipartThresholdBytes,
    multipartPartSizeBytes: input.multipartPartSizeBytes,
    multipartConcurrency: input.multipartConcurrency,
    signal,
  });
  for await (const { file, add } of written) {
    input.onFile(file);
    files.push(file);
    adds.push(add);
  }
  return {
    adds,
    keys: files.map((f) => f.key),
    ...counts,
    bytesWritten: files.reduce((n, f) => n + f.size, 0),
  };
}
