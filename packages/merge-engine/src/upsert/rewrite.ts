/**
 * The rewrite of one partition: streams each hit file one row-group slice at a time, drops the rows whose
 * key the source replaces, and writes the survivors followed by the partition's source rows through one
 * streaming Parquet writer (files named and placed as delta-rs places them, rolling over at the target
 * size). Returns the new files as Add actions with delta-rs-equal stats. Nothing is committed here.
 */
import { randomUUID } from "node:crypto";
import {
  type AddAction,
  addStats,
  dataFileName,
  encodeActionPath,
  type FileView,
  hivePartitionPath,
  statsJson,
} from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type ParquetCodec, parquetFileStream, takeRows, type WrittenFile } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import { encodeKeys } from "../keys/encode-keys.js";
import { openFile, type ReadKnobs, readConformed } from "./file-batches.js";
import type { SourcePartition } from "./source-batch.js";

export interface RewriteInput {
  store: ObjectStore;
  partition: SourcePartition;
  partitionColumns: readonly string[];
  hitFiles: readonly FileView[];
  dataSchema: Schema;
  configuration: Readonly<Record<string, string>>;
  readBatchSize: number;
  targetFileSize: number | undefined;
  maxRowGroupBytes: number | undefined;
  maxRowGroupRows: number | undefined;
  codec: ParquetCodec;
  multipartThresholdBytes: number | undefined;
  multipartPartSizeBytes: number | undefined;
  multipartConcurrency: number | undefined;
  read: ReadKnobs;
  signal: AbortSignal | undefined;
  /** Receives every file as soon as it is complete (for clean-up on a later failure). */
  onFile: (file: WrittenFile) => void;
}

export interface RewriteResult {
  adds: AddAction[];
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
  async function* rows(): AsyncGenerator<RecordBatch> {
    for (const file of input.hitFiles) {
      counts.bytesRead += file.size;
      const reader = await openFile(input.store, file, input.read, signal);
      const batches = readConformed(
        reader,
        input.dataSchema,
        input.readBatchSize,
        signal,
        input.read.readAheadRowGroups,
      );
      for await (const batch of batches) {
        const keys = encodeKeys(batch, set.columns);
        const keep = new Int32Array(batch.numRows);
        let kept = 0;
        for (let i = 0; i < batch.numRows; i++) {
          const entry = set.find(keys, i);
          if (entry < 0) keep[kept++] = i;
          else matches[entry] = (matches[entry] as number) + 1;
        }
        counts.rowsUpdated += batch.numRows - kept;
        counts.rowsCopied += kept;
        if (kept === batch.numRows) yield batch;
        else if (kept > 0) yield takeRows(batch, keep.subarray(0, kept));
      }
    }
    for (const batch of partition.batches) {
      if (batch.numRows === 0) continue;
      const keys = encodeKeys(batch, set.columns);
      const take: number[] = [];
      for (let i = 0; i < batch.numRows; i++) {
        const entry = set.find(keys, i);
        const times = entry < 0 ? 1 : Math.max(1, matches[entry] as number);
        if (entry >= 0 && (matches[entry] as number) > 0) counts.keysMatched++;
        for (let k = 0; k < times; k++) take.push(i);
      }
      yield take.length === batch.numRows ? batch : takeRows(batch, Int32Array.from(take));
    }
  }
  const codec = input.codec;
  const dir = hivePartitionPath(input.partitionColumns, partition.values);
  const writerId = randomUUID();
  let part = 0;
  const files: WrittenFile[] = [];
  const stream = parquetFileStream(input.store, rows(), {
    schema: input.dataSchema,
    nextKey: () => `${dir ? `${dir}/` : ""}${dataFileName(part++, codec, writerId)}`,
    codec,
    targetFileSize: input.targetFileSize,
    maxRowGroupBytes: input.maxRowGroupBytes,
    maxRowGroupRows: input.maxRowGroupRows,
    multipartThresholdBytes: input.multipartThresholdBytes,
    multipartPartSizeBytes: input.multipartPartSizeBytes,
    multipartConcurrency: input.multipartConcurrency,
    signal,
  });
  for await (const file of stream) {
    input.onFile(file);
    files.push(file);
  }
  const adds = files.map(
    (file): AddAction => ({
      path: encodeActionPath(file.key),
      partitionValues: partition.values,
      size: file.size,
      modificationTime: Date.now(),
      dataChange: true,
      stats: statsJson(
        addStats({
          metadata: file.metadata,
          configuration: input.configuration,
          partitionColumns: input.partitionColumns,
        }),
      ),
    }),
  );
  return { adds, ...counts, bytesWritten: files.reduce((n, f) => n + f.size, 0) };
}
