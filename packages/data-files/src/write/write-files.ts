/**
 * Writes a stream of table-shaped batches as Delta data files: rows are split by partition, each partition
 * streams into its own Parquet writer (files roll over at the target size, named and placed exactly as
 * delta-rs names them), and every finished file becomes an `add` action with stats equal to delta-rs's.
 * Nothing is committed here. On failure the files already written are deleted (best effort) — they were
 * never referenced by the log, so readers could not see them anyway.
 */
import { randomUUID } from "node:crypto";
import { type AddAction, addForWrittenFile, dataFileName, hivePartitionPath } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type ParquetCodec, type WrittenFile, writeParquetFiles } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import { BatchChannel } from "./channel.js";
import { dataFileSchema, splitByPartition } from "./partition-split.js";

export interface WriteFilesOptions {
  /** Table schema (Arrow) incl. partition columns; batches must already be aligned to it. */
  schema: Schema;
  partitionColumns: readonly string[];
  /** Delta primitive type of each partition column. */
  partitionTypes: Readonly<Record<string, string>>;
  /** Table configuration (stats column rules). */
  configuration: Readonly<Record<string, string>>;
  codec?: ParquetCodec | undefined;
  targetFileSize?: number | undefined;
  maxRowGroupBytes?: number | undefined;
  maxRowGroupRows?: number | undefined;
  multipartThresholdBytes?: number | undefined;
  multipartPartSizeBytes?: number | undefined;
  multipartConcurrency?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface WrittenAdds {
  adds: AddAction[];
  rows: number;
  bytes: number;
}

export async function writeDataFiles(
  store: ObjectStore,
  batches: AsyncIterable<RecordBatch>,
  options: WriteFilesOptions,
): Promise<WrittenAdds> {
  const dataSchema = dataFileSchema(options.schema, options.partitionColumns);
  const codec = options.codec ?? "snappy";
  const writers = new Map<
    string,
    {
      channel: BatchChannel<RecordBatch>;
      done: Promise<WrittenFile[]>;
      values: Record<string, string | null>;
    }
  >();
  const written: WrittenFile[] = [];
  const open = (id: string, values: Record<string, string | null>) => {
    const channel = new BatchChannel<RecordBatch>(2);
    const dir = hivePartitionPath(options.partitionColumns, values);
    const writerId = randomUUID();
    let part = 0;
    const done = writeParquetFiles(store, channel, {
      schema: dataSchema,
      nextKey: () => `${dir ? `${dir}/` : ""}${dataFileName(part++, codec, writerId)}`,
      uniqueKeys: true,
      codec,
      targetFileSize: options.targetFileSize,
      maxRowGroupBytes: options.maxRowGroupBytes,
      maxRowGroupRows: options.maxRowGroupRows,
      multipartThresholdBytes: options.multipartThresholdBytes,
      multipartPartSizeBytes: options.multipartPartSizeBytes,
      multipartConcurrency: options.multipartConcurrency,
      signal: options.signal,
    }).then((files) => {
      written.push(...files);
      return files;
    });
    // Keep an early writer failure from being reported as unhandled; it is awaited below.
    done.catch(() => undefined);
    const writer = { channel, done, values };
    writers.set(id, writer);
    return writer;
  };
  try {
    for await (const batch of batches) {
      if (batch.numRows === 0) continue;
      for (const group of splitByPartition(
        batch,
        options.partitionColumns,
        options.partitionTypes,
        dataSchema,
      )) {
        const writer = writers.get(group.id) ?? open(group.id, group.values);
        await Promise.race([writer.channel.push(group.batch), writer.done]);
      }
    }
    for (const w of writers.values()) w.channel.close();
    const results = await Promise.all(
      [...writers.values()].map(async (w) => ({ files: await w.done, values: w.values })),
    );
    const adds: AddAction[] = [];
    let rows = 0;
    let bytes = 0;
    for (const { files, values } of results) {
      for (const file of files) {
        rows += file.numRows;
        bytes += file.size;
        adds.push(
          addForWrittenFile(file, values, {
            configuration: options.configuration,
            partitionColumns: options.partitionColumns,
          }),
        );
      }
    }
    return { adds, rows, bytes };
  } catch (error) {
    for (const w of writers.values()) w.channel.close(error);
    await Promise.allSettled([...writers.values()].map((w) => w.done));
    await Promise.allSettled(written.map((f) => store.delete(f.key)));
    throw error;
  }
}
