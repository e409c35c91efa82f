/**
 * The writer's knobs, their defaults and their validation. Sizes are bytes.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { Schema } from "apache-arrow";
import type { ColumnChunkSizes } from "./passthrough-unit.js";

/** Parquet compression codecs the writer offers. */
export type ParquetCodec = "snappy" | "zstd" | "uncompressed";

/** Chosen by measurement (BENCHMARKS.md): the fastest to write and to read back, and delta-rs's own default. */
export const DEFAULT_CODEC: ParquetCodec = "snappy";
/**
 * Chosen by measurement (merge-engine BENCHMARKS.md, "Row-group size default"): with 4 MiB row groups and a
 * 16 MiB multipart threshold a fixed 10k-row upsert peaks at 345 MB at 1M rows and 453 MB at 4M (765 and
 * 1,283 MB with 128 MiB / 64 MiB), and the history upsert stays flat (259 → 262 MB while its table grows
 * 4×); delta-rs reads the files as fast. Compared with parquet-rs's estimate of the encoded row group.
 */
export const DEFAULT_MAX_ROW_GROUP_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_ROW_GROUP_ROWS = 1_048_576;
export const DEFAULT_TARGET_FILE_SIZE = 100 * 1024 * 1024;
/** Below it a file is held whole until it closes, so it bounds the writer's memory too (see above). */
export const DEFAULT_MULTIPART_THRESHOLD_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MULTIPART_PART_SIZE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MULTIPART_CONCURRENCY = 4;
/**
 * The footer's `created_by`, in the `<application> version <version>` form parquet-mr's VersionParser
 * accepts (Spark distrusts binary statistics of files whose `created_by` it cannot parse). The encoder is
 * parquet-rs 59.3.0 through parquet-wasm 0.8.0.
 */
export const DEFAULT_CREATED_BY = "deltalite version 0.1.0";

export interface WriteParquetOptions {
  /** The Arrow schema every batch must have (names and types). */
  schema: Schema;
  /** Store key of the next file to write; called once per file. Files are written with mode `create`. */
  nextKey: () => string;
  /**
   * True when every key `nextKey` gives is a name no other writer uses (a fresh id in it, as data files
   * have): a create whose answer was lost is then recognised as ours by the object's size at the key.
   * Default false (a checkpoint's key is shared by every writer of that version).
   */
  uniqueKeys?: boolean | undefined;
  codec?: ParquetCodec | undefined;
  /**
   * A row group closes when its uncompressed (pre-compression) size reaches this many bytes, as parquet-rs
   * measures it — for plain-encoded data that is the decoded size; dictionary encoding makes it smaller.
   */
  maxRowGroupBytes?: number | undefined;
  /** A row group closes at this many rows. */
  maxRowGroupRows?: number | undefined;
  /** A file closes at the first row-group boundary at or beyond this many written bytes. */
  targetFileSize?: number | undefined;
  /** Files that reach this size are streamed with a multipart put; smaller files go in one `put`. */
  multipartThresholdBytes?: number | undefined;
  multipartPartSizeBytes?: number | undefined;
  multipartConcurrency?: number | undefined;
  /** The footer's `created_by`. */
  createdBy?: string | undefined;
  /**
   * Encode on the least busy of up to one encoder worker per core (compaction: one row-group budget per bin)
   * instead of the process's first worker, which every other stream shares (default false).
   */
  spreadEncoders?: boolean | undefined;
  /** Columns written without a dictionary; when undefined the stream's first batch decides (dictionary-policy.ts). */
  plainColumns?: readonly string[] | undefined;
  /**
   * The column chunk sizes the compression policy (compression-policy.ts) judges, asked once as the stream's
   * first input goes by: the caller's file its first rows were decoded from, so a stream writes the same
   * bytes whether that file was passed through or decoded. Undefined then: a passed-through first input's own
   * sizes are judged.
   */
  firstInputSizes?: (() => readonly ColumnChunkSizes[] | undefined) | undefined;
  /** Extra footer key/value metadata (parquet-rs adds `ARROW:schema` itself). */
  keyValueMetadata?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
}

export interface ResolvedWriteOptions {
  schema: Schema;
  nextKey: () => string;
  uniqueKeys: boolean;
  codec: ParquetCodec;
  maxRowGroupBytes: number;
  maxRowGroupRows: number;
  targetFileSize: number;
  multipartThresholdBytes: number;
  multipartPartSizeBytes: number;
  multipartConcurrency: number;
  createdBy: string;
  keyValueMetadata: Record<string, string>;
  signal: AbortSignal | undefined;
}

function positive(name: string, value: number | undefined, fallback: number, minimum = 1): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < minimum) {
    throw new DeltaLiteError(
      "generic",
      `parquet writer option ${name} must be an integer ≥ ${minimum} (got ${value})`,
    );
  }
  return resolved;
}

export function resolveWriteOptions(options: WriteParquetOptions): ResolvedWriteOptions {
  const codec = options.codec ?? DEFAULT_CODEC;
  if (codec !== "snappy" && codec !== "zstd" && codec !== "uncompressed") {
    throw new DeltaLiteError(
      "generic",
      `unknown parquet codec ${JSON.stringify(codec)} (snappy, zstd, uncompressed)`,
    );
  }
  return {
    schema: options.schema,
    nextKey: options.nextKey,
    uniqueKeys: options.uniqueKeys ?? false,
    codec,
    maxRowGroupBytes: positive("maxRowGroupBytes", options.maxRowGroupBytes, DEFAULT_MAX_ROW_GROUP_BYTES),
    maxRowGroupRows: positive("maxRowGroupRows", options.maxRowGroupRows, DEFAULT_MAX_ROW_GROUP_ROWS),
    targetFileSize: positive("targetFileSize", options.targetFileSize, DEFAULT_TARGET_FILE_SIZE),
    multipartThresholdBytes: positive(
      "multipartThresholdBytes",
      options.multipartThresholdBytes,
      DEFAULT_MULTIPART_THRESHOLD_BYTES,
    ),
    multipartPartSizeBytes: positive(
      "multipartPartSizeBytes",
      options.multipartPartSizeBytes,
      DEFAULT_MULTIPART_PART_SIZE_BYTES,
    ),
    multipartConcurrency: positive(
      "multipartConcurrency",
      options.multipartConcurrency,
      DEFAULT_MULTIPART_CONCURRENCY,
    ),
    createdBy: options.createdBy ?? DEFAULT_CREATED_BY,
    keyValueMetadata: options.keyValueMetadata ?? {},
    signal: options.signal,
  };
}
