/**
 * Writes a stream of table-shaped batches as Delta data files: rows are split by partition, each partition
 * streams into its own Parquet writer (files roll over at the target size, named and placed exactly as
 * delta-rs names them), and every finished file becomes an `add` action with stats equal to delta-rs's.
 * Nothing is committed here. On failure the files already written are deleted (best effort) — they were
 * never referenced by the log, so readers could not see them anyway.
 */
import type { AddAction } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import type { WrittenFile } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import { BatchChannel } from "./channel.js";
import { type DataFileWriterOptions, type WrittenDataFile, writePartitionFiles } from "./data-file-writer.js";
import { dataFileSchema, splitByPartition } from "./partition-split.js";

export interface WriteFilesOptions extends DataFileWriterOptions {
  /** Table schema (Arrow) incl. partition columns; batches must already be aligned to it. */
  schema: Schema;
  /** Delta primitive type of each partition column. */
  partitionTypes: Readonly<Record<string, string>>;
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
  const writers = new Map<string, { channel: BatchChannel<RecordBatch>; done: Promise<WrittenDataFile[]> }>();
  const written: WrittenFile[] = [];
  const open = (id: string, values: Record<string, string | null>) => {
    const channel = new BatchChannel<RecordBatch>(2);
    const done = (async () => {
      const out: WrittenDataFile[] = [];
      for await (const one of writePartitionFiles(store, channel, dataSchema, values, options)) {
        written.push(one.file);
        out.push(one);
      }
      return out;
    })();
    // Keep an early writer failure from being reported as unhandled; it is awaited below.
    done.catch(() => undefined);
    const writer = { channel, done };
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
    const results = await Promise.all([...writers.values()].map((w) => w.done));
    const adds: AddAction[] = [];
    let rows = 0;
    let bytes = 0;
    for (const { file, add } of results.flat()) {
      rows += file.numRows;
      bytes += file.size;
      adds.push(add);
    }
    return { adds, rows, bytes };
  } catch (error) {
    for (const w of writers.values()) w.channel.close(error);
    await Promise.allSettled([...writers.values()].map((w) => w.done));
    await Promise.allSettled(written.map((f) => store.delete(f.key)));
    throw error;
  }
}
