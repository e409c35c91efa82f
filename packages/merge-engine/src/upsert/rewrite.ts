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
import { parquetFileStream, takeRows, type WrittenFile } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import { encodeKeys } from "../keys/encode-keys.js";
import { openFile, readConformed } from "./file-batches.js";
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
  signal: AbortSignal | undefined;
  /** Receives every file as soon as it is complete (for clean-up on a later failure). */
  onFile: (file: WrittenFile) => void;
}

export interface RewriteResult {
  adds: AddAction[];
  rowsUpdated: number;
  rowsCopied: number;
  bytesRead: number;
  bytesWritten: number;
}

export async function rewritePartition(input: RewriteInput): Promise<RewriteResult> {
  const { partition, signal } = input;
  const counts = { rowsUpdated: 0, rowsCopied: 0, bytesRead: 0 };
  async function* rows(): AsyncGenerator<RecordBatch> {
    for (const file of input.hitFiles) {
      counts.bytesRead += file.size;
      const reader = await openFile(input.store, file, signal);
      for await (const batch of readConformed(reader, input.dataSchema, input.readBatchSize, signal)) {
        const hit = new Uint8Array(batch.numRows);
        const hits = partition.keys.matchRows(encodeKeys(batch, partition.keys.columns), hit);
        counts.rowsUpdated += hits;
        counts.rowsCopied += batch.numRows - hits;
        if (hits === 0) {
          yield batch;
        } else if (hits < batch.numRows) {
          const keep = new Int32Array(batch.numRows - hits);
          let k = 0;
          for (let i = 0; i < batch.numRows; i++) if (hit[i] === 0) keep[k++] = i;
          yield takeRows(batch, keep);
        }
      }
    }
    for (const batch of partition.batches) if (batch.numRows > 0) yield batch;
  }
  const codec = "snappy";
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
