/**
 * The streaming Parquet writer: Arrow RecordBatches in, Parquet objects out, encoded by parquet-wasm
 * (arrow-rs parquet 59 — DataPage V1, dictionary on, page statistics, strings in footer statistics
 * truncated to 64 bytes, all as delta-rs writes them). One row group is encoded at a time; a file closes at
 * the first row-group boundary at or beyond `targetFileSize` and the next one starts; bytes stream to the
 * store as row groups complete. Each finished file is described by its key, size, row count and parsed
 * footer (read from the bytes just streamed, not from the store).
 */
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import { makeData, RecordBatch, RecordBatchStreamWriter, Struct } from "apache-arrow";
import { type FileMetaData, type ParquetParsers, parquetMetadata } from "hyparquet";
import * as wasm from "parquet-wasm";
import { ObjectSink } from "./object-sink.js";
import {
  type ParquetCodec,
  type ResolvedWriteOptions,
  resolveWriteOptions,
  type WriteParquetOptions,
} from "./options.js";
import { MAX_SLICE_ROWS, sliceBytesFor, wasmSlices } from "./wasm-batches.js";

/** One Parquet object the writer completed. */
/** One Parquet object `writeParquetFiles` wrote. */
export interface WrittenFile {
  /** The object's key in the store (from `nextKey`). */
  key: string;
  /** Object size in bytes. */
  size: number;
  /** Rows in the file. */
  numRows: number;
  /** The parsed footer (statistics decoded with FOOTER_PARSERS: raw integers for dates and timestamps). */
  metadata: FileMetaData;
}

/**
 * hyparquet parsers that keep footer statistics exact: timestamps stay raw bigint counts of their unit, dates
 * raw day numbers (hyparquet's defaults turn both into millisecond `Date`s).
 */
export const FOOTER_PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (value: bigint) => value,
  timestampFromMicroseconds: (value: bigint) => value,
  timestampFromNanoseconds: (value: bigint) => value,
  dateFromDays: (days: number) => days,
};

const WASM_CODECS: Record<ParquetCodec, wasm.Compression> = {
  snappy: wasm.Compression.SNAPPY,
  zstd: wasm.Compression.ZSTD,
  uncompressed: wasm.Compression.UNCOMPRESSED,
};

function writerProperties(options: ResolvedWriteOptions): wasm.WriterProperties {
  let builder = new wasm.WriterPropertiesBuilder()
    .setWriterVersion(wasm.WriterVersion.V1)
    .setCompression(WASM_CODECS[options.codec])
    .setMaxRowGroupSize(options.maxRowGroupRows)
    .setMaxRowGroupBytes(options.maxRowGroupBytes)
    .setStatisticsEnabled(wasm.EnabledStatistics.Page)
    .setCreatedBy(options.createdBy);
  const entries = Object.entries(options.keyValueMetadata);
  if (entries.length > 0) builder = builder.setKeyValueMetadata(new Map(entries));
  return builder.build();
}

/** Reads the footer out of the bytes the sink kept, or (when it is larger than that) from the store. */
async function parseFooter(
  store: ObjectStore,
  key: string,
  size: number,
  tail: Uint8Array,
  signal: AbortSignal | undefined,
): Promise<FileMetaData> {
  if (tail.byteLength < 8)
    throw new DeltaLiteError("generic", `parquet writer produced a truncated file: ${key}`);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  const footerLength = view.getUint32(tail.byteLength - 8, true);
  const bytes =
    footerLength + 8 <= tail.byteLength
      ? tail
      : await store.get(key, { range: { start: size - footerLength - 8, end: size }, signal });
  return parquetMetadata(bytes, { parsers: FOOTER_PARSERS });
}

/** A one-item look-ahead over an async iterator. */
class Peekable<T> {
  readonly #source: AsyncIterator<T>;
  #next: IteratorResult<T> | undefined;

  constructor(source: AsyncIterator<T>) {
    this.#source = source;
  }

  async peek(): Promise<IteratorResult<T>> {
    this.#next ??= await this.#source.next();
    return this.#next;
  }

  async take(): Promise<IteratorResult<T>> {
    const result = await this.peek();
    this.#next = undefined;
    return result;
  }

  /** Puts a value back in front (only when nothing is peeked). */
  putBack(value: T): void {
    this.#next = { done: false, value };
  }

  async close(): Promise<void> {
    const pending = this.#next;
    this.#next = undefined;
    if (pending && !pending.done) (pending.value as { free?: () => void }).free?.();
    await this.#source.return?.();
  }
}

async function writeOneFile(
  store: ObjectStore,
  slices: Peekable<wasm.RecordBatch>,
  options: ResolvedWriteOptions,
): Promise<WrittenFile> {
  const key = options.nextKey();
  const sink = new ObjectSink(store, key, {
    mode: "create",
    uniqueKey: options.uniqueKeys,
    multipartThresholdBytes: options.multipartThresholdBytes,
    partSizeBytes: options.multipartPartSizeBytes,
    concurrency: options.multipartConcurrency,
    signal: options.signal,
  });
  let numRows = 0;
  let inputFailure: unknown;
  const input = new ReadableStream<wasm.RecordBatch>(
    {
      async pull(controller) {
        try {
          // Let the output side take in row groups parquet-rs just flushed before judging the size.
          await new Promise((resolve) => setImmediate(resolve));
          options.signal?.throwIfAborted();
          if (numRows > 0 && sink.size >= options.targetFileSize) {
            controller.close();
            return;
          }
          const next = await slices.take();
          if (next.done) {
            controller.close();
            return;
          }
          // Never let a slice straddle a row-count boundary: row groups then close exactly at the row cap,
          // and the size check above runs at every row-group boundary.
          let slice = next.value;
          const room = options.maxRowGroupRows - (numRows % options.maxRowGroupRows);
          if (slice.numRows > room) {
            const whole = slice;
            slice = whole.slice(0, room);
            slices.putBack(whole.slice(room, whole.numRows - room));
            whole.free();
          }
          numRows += slice.numRows;
          controller.enqueue(slice);
        } catch (error) {
          inputFailure = error;
          controller.error(error);
        }
      },
    },
    { highWaterMark: 0 },
  );
  try {
    const output = (await wasm.transformParquetStream(
      input,
      writerProperties(options),
    )) as ReadableStream<Uint8Array>;
    for await (const chunk of output) {
      await sink.write(chunk);
    }
    if (inputFailure !== undefined) throw inputFailure;
    const { size, tail } = await sink.finish();
    const metadata = await parseFooter(store, key, size, tail, options.signal);
    if (Number(metadata.num_rows) !== numRows) {
      // parquet-wasm's stream transform drops batches it fails to encode without reporting it: never hand
      // out a file that lost rows.
      await store.delete(key).catch(() => undefined);
      throw new DeltaLiteError(
        "generic",
        `parquet encoder wrote ${metadata.num_rows} of ${numRows} rows into ${key}; the file was removed`,
      );
    }
    return { key, size, numRows, metadata };
  } catch (caught) {
    const error = inputFailure ?? caught;
    await sink.abort(error);
    throw asWriteError(error, key, options.signal);
  }
}

function asWriteError(error: unknown, key: string, signal: AbortSignal | undefined): unknown {
  if (isDeltaLiteError(error)) return error;
  if (signal?.aborted)
    return new DeltaLiteError("aborted", `parquet write aborted: ${key}`, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new DeltaLiteError("generic", `writing parquet file ${key} failed: ${message}`, { cause: error });
}

/**
 * Writes `batches` into as many Parquet objects as `targetFileSize` asks for, yielding each as it completes.
 * No object is written for an input without rows.
 */
export async function* parquetFileStream(
  store: ObjectStore,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  options: WriteParquetOptions,
): AsyncGenerator<WrittenFile> {
  const resolved = resolveWriteOptions(options);
  const limits = {
    maxSliceBytes: sliceBytesFor(resolved.maxRowGroupBytes),
    maxSliceRows: Math.min(MAX_SLICE_ROWS, resolved.maxRowGroupRows),
  };
  const slices = new Peekable(wasmSlices(batches, resolved.schema, limits, resolved.signal));
  try {
    while (!(await slices.peek()).done) {
      yield await writeOneFile(store, slices, resolved);
    }
  } finally {
    await slices.close();
  }
}

/** Writes `batches` into Parquet objects and returns them all once the last one is complete. */
export async function writeParquetFiles(
  store: ObjectStore,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  options: WriteParquetOptions,
): Promise<WrittenFile[]> {
  const files: WrittenFile[] = [];
  for await (const file of parquetFileStream(store, batches, options)) files.push(file);
  return files;
}

/**
 * Writes one Parquet object with `options.schema` and no rows (a file with the schema and zero row groups,
 * as pyarrow writes an empty table): what an export of an empty result must still produce. Created with
 * mode `create` at `options.nextKey()`, with the same writer properties as every other file.
 */
export async function writeEmptyParquetFile(
  store: ObjectStore,
  options: WriteParquetOptions,
): Promise<WrittenFile> {
  const resolved = resolveWriteOptions(options);
  const key = resolved.nextKey();
  const schema = resolved.schema;
  const children = schema.fields.map((f) => makeData({ type: f.type, length: 0, nullCount: 0 } as never));
  const empty = new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: 0, nullCount: 0, children } as never) as never,
  );
  const table = wasm.Table.fromIPCStream(RecordBatchStreamWriter.writeAll([empty]).toUint8Array(true));
  // writeParquet takes ownership of the table (and frees it).
  const bytes = wasm.writeParquet(table, writerProperties(resolved));
  await store.put(key, bytes, { mode: "create", signal: resolved.signal });
  const metadata = await parseFooter(store, key, bytes.byteLength, bytes, resolved.signal);
  return { key, size: bytes.byteLength, numRows: 0, metadata };
}
