/**
 * The per-partition data-file writer every engine uses: streams one partition's rows (data-file shaped, no
 * partition columns) into Parquet files placed in the partition's Hive path and named as delta-rs names
 * them (`part-<n>-<writer uuid>-c000.<codec>.parquet`, so every key is unique to this writer), rolling over
 * at the target size, and hands out each completed file with its Add action (stats from the footer the
 * writer parsed, `dataChange` as the engine says: false for compaction). Nothing is committed here.
 */
import { randomUUID } from "node:crypto";
import { type AddAction, addForWrittenFile, dataFileName, hivePartitionPath } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import {
  type ColumnChunkSizes,
  type ParquetCodec,
  parquetFileStream,
  type WriterInput,
  type WrittenFile,
} from "@deltalite/parquet-stream";
import type { Schema } from "apache-arrow";

/** What the writer needs besides the rows: the table's layout, the file knobs, and the Add's dataChange. */
export interface DataFileWriterOptions {
  partitionColumns: readonly string[];
  /** Table configuration (which columns get stats). */
  configuration: Readonly<Record<string, string>>;
  codec?: ParquetCodec | undefined;
  targetFileSize?: number | undefined;
  maxRowGroupBytes?: number | undefined;
  maxRowGroupRows?: number | undefined;
  multipartThresholdBytes?: number | undefined;
  multipartPartSizeBytes?: number | undefined;
  multipartConcurrency?: number | undefined;
  /** Encode on the least busy of parquet-stream's encoder workers, not the shared first one (compaction). */
  spreadEncoders?: boolean | undefined;
  /** Columns written without a dictionary (default: the first batch decides, parquet-stream's policy). */
  plainColumns?: readonly string[] | undefined;
  /** The sizes of the file the first input was decoded from (parquet-stream's compression policy). */
  firstInputSizes?: (() => readonly ColumnChunkSizes[] | undefined) | undefined;
  /** The Adds' dataChange (default true). */
  dataChange?: boolean | undefined;
  /** A folder the partition paths go under (change-data files: `_change_data`); none by default. */
  keyPrefix?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface WrittenDataFile {
  file: WrittenFile;
  add: AddAction;
}

/**
 * Writes `batches` of the partition `values` (schema `dataSchema`) as data files, yielding each one as soon
 * as it is complete. No file is written for an input without rows. Besides batches, the input may hold
 * Parquet files to pass through (compaction; parquet-stream's passthrough.ts).
 */
export async function* writePartitionFiles(
  store: ObjectStore,
  batches: WriterInput,
  dataSchema: Schema,
  values: Record<string, string | null>,
  options: DataFileWriterOptions,
): AsyncGenerator<WrittenDataFile> {
  const codec = options.codec ?? "snappy";
  const dir = [options.keyPrefix, hivePartitionPath(options.partitionColumns, values)]
    .filter((part) => part)
    .join("/");
  const writerId = randomUUID();
  let part = 0;
  const files = parquetFileStream(store, batches, {
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
    plainColumns: options.plainColumns,
    firstInputSizes: options.firstInputSizes,
    spreadEncoders: options.spreadEncoders,
    signal: options.signal,
  });
  const rules = { configuration: options.configuration, partitionColumns: options.partitionColumns };
  for await (const file of files) {
    yield { file, add: addForWrittenFile(file, values, rules, { dataChange: options.dataChange }) };
  }
}
