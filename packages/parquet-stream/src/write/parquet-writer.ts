/**
 * The streaming Parquet writer: Arrow RecordBatches in, Parquet objects out, encoded by parquet-wasm
 * (arrow-rs parquet 59 — DataPage V1, page statistics, strings in footer statistics truncated to 64 bytes,
 * all as delta-rs writes them; dictionary encoding except for columns the stream's first batch shows to be
 * mostly distinct, dictionary-policy.ts) on the encoder worker thread (encoder-pool.ts, encoder-worker.ts).
 * One row group is encoded at a time; a file closes at
 * the first row-group boundary at or beyond `targetFileSize` and the next one starts; bytes stream to the
 * store as row groups complete (a file below the multipart threshold comes from the worker in one piece
 * once complete, and is stored with one put; on a store with local targets and the native engine the worker
 * writes the file into the store's local target itself, and the store puts it in place once it is complete).
 * Each finished file is described by its key, size, row count
 * and parsed footer (read from the bytes just streamed, not from the store). Besides batches, the input may hold whole
 * Parquet files whose columns are exactly the schema (passthrough.ts): the worker decodes and writes them
 * without a JS decode.
 */
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import type { LocalFileTarget, ObjectStore } from "@deltalite/object-store";
import { makeData, RecordBatch, RecordBatchStreamWriter, type Schema, Struct } from "apache-arrow";
import { type FileMetaData, type ParquetParsers, parquetMetadata } from "hyparquet";
import { batchIpcLayout, schemaIpcStream } from "../arrow/ipc-stream.js";
import { parquetEngineName } from "../engine.js";
import { CompressionPolicy } from "./compression-policy.js";
import {
  DICTIONARY_PAGE_LIMIT_BYTES,
  DICTIONARY_SAMPLE_ROWS,
  DictionaryPolicy,
  judgedFields,
  MAX_DICTIONARY_DISTINCT_SHARE,
  MIN_SAMPLED_VALUES,
} from "./dictionary-policy.js";
import { EncoderSession, encoderFor, encodeWhole, startEncoderWorker } from "./encoder-pool.js";
import type { EncoderEvent, EncoderSettings } from "./encoder-worker.js";
import { NativeStreamSession } from "./native-stream.js";
import { ObjectSink } from "./object-sink.js";
import { type ResolvedWriteOptions, resolveWriteOptions, type WriteParquetOptions } from "./options.js";
import { isPassthrough, type ParquetPassthrough, passthroughBatchRows } from "./passthrough.js";
import { encoderSlices, MAX_SLICE_ROWS, sliceBytesFor } from "./wasm-batches.js";

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

function encoderSettings(
  options: ResolvedWriteOptions,
  dictionary: DictionaryPolicy,
  compression: CompressionPolicy,
): EncoderSettings {
  const inWorker = dictionary.judgedInWorker;
  const judge = inWorker
    ? {
        fields: judgedFields(options.schema).map((field) => field.name),
        batchRows: inWorker.batchRows,
        sampleRows: DICTIONARY_SAMPLE_ROWS,
        maxShare: MAX_DICTIONARY_DISTINCT_SHARE,
        minValues: MIN_SAMPLED_VALUES,
        dictionaryLimit: DICTIONARY_PAGE_LIMIT_BYTES,
      }
    : undefined;
  return {
    judge,
    codec: options.codec,
    maxRowGroupRows: options.maxRowGroupRows,
    maxRowGroupBytes: options.maxRowGroupBytes,
    targetFileSize: options.targetFileSize,
    createdBy: options.createdBy,
    keyValueMetadata: options.keyValueMetadata,
    plainColumns: dictionary.plainColumns,
    uncompressedColumns: compression.uncompressedColumns,
    joinBelowBytes: options.multipartThresholdBytes,
  };
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

/**
 * The file being written: its key and the sink its bytes stream into, or the local file the native engine's
 * stream writes in place (`writesInPlace`).
 */
type OpenFile =
  | { key: string; sink: ObjectSink; target?: undefined }
  | { key: string; target: LocalFileTarget };

/**
 * Whether each file is written straight into the store's local file by the native engine's stream on its
 * own CPU threads (native-stream.ts), so its bytes are neither copied into JavaScript nor passed between threads
 * (uniform 1M upsert: those copies were ~20% of the encoder workers' samples, merge-engine BENCHMARKS.md,
 * session 19), and no worker runs.
 */
function writesInPlace(store: ObjectStore): boolean {
  return store.localTarget !== undefined && parquetEngineName() === "native";
}

async function openFile(
  store: ObjectStore,
  options: ResolvedWriteOptions,
  inPlace: NativeStreamSession | undefined,
): Promise<OpenFile> {
  const key = options.nextKey();
  if (inPlace && store.localTarget) {
    const target = await store.localTarget(key, { signal: options.signal });
    inPlace.target(target.path);
    return { key, target };
  }
  const sink = new ObjectSink(store, key, {
    mode: "create",
    uniqueKey: options.uniqueKeys,
    multipartThresholdBytes: options.multipartThresholdBytes,
    partSizeBytes: options.multipartPartSizeBytes,
    concurrency: options.multipartConcurrency,
    signal: options.signal,
  });
  return { key, sink };
}

/**
 * Completes the object (a file written in place: puts it in place, with `create` as the sink's put) and
 * describes it; a file that lost rows is removed and refused.
 */
async function finishFile(
  store: ObjectStore,
  file: OpenFile,
  done: { numRows: number; written?: { size: number; footer: Uint8Array } | undefined },
  signal: AbortSignal | undefined,
): Promise<WrittenFile> {
  const { key } = file;
  const { numRows } = done;
  const { size, tail } = await completed(file, done.written, signal);
  const metadata = await parseFooter(store, key, size, tail, signal);
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
}

/** The object's size and the bytes at its end, once it is stored. */
async function completed(
  file: OpenFile,
  written: { size: number; footer: Uint8Array } | undefined,
  signal: AbortSignal | undefined,
): Promise<{ size: number; tail: Uint8Array }> {
  if (file.target === undefined) return file.sink.finish();
  if (written === undefined) {
    await file.target.discard();
    throw new DeltaLiteError("generic", `the parquet encoder did not write ${file.key} in place`);
  }
  await file.target.commit({ mode: "create", signal }); // a refused commit removes the file
  return { size: written.size, tail: written.footer };
}

/** Gives up the file being written: its sink aborted, or what the worker wrote in place removed. */
async function abandon(file: OpenFile | undefined, reason: unknown): Promise<void> {
  if (file?.target) await file.target.discard();
  else await file?.sink.abort(reason);
}

/** A stream's encoder: a worker's session, or the native engine's stream on the pool (native-stream.ts). */
type WriterSession = Pick<
  EncoderSession,
  "begin" | "send" | "sendFile" | "end" | "ack" | "fail" | "close"
> & { next(): Promise<EncoderEvent> };

/**
 * Sends the stream's slices to the worker, then `end`. The settings go with the first slice (the dictionary
 * policy has judged the first batch by then). A failure here (the input's, a schema mismatch, an abort) fails
 * the session, so the side reading the worker's events throws it.
 */
async function feed(
  session: WriterSession,
  slices: AsyncIterable<RecordBatch | ParquetPassthrough>,
  settings: () => EncoderSettings,
  schema: Schema,
): Promise<void> {
  let begun = false;
  const begin = () => {
    if (!begun) session.begin(settings(), schemaIpcStream(schema));
    begun = true;
  };
  try {
    for await (const slice of slices) {
      begin();
      if (!isPassthrough(slice)) await session.send(batchIpcLayout(slice, schema));
      else {
        const { maxRowGroupBytes, maxRowGroupRows } = settings();
        const batchRows = passthroughBatchRows(slice, maxRowGroupBytes, maxRowGroupRows);
        const { source, rowGroups, skipRows } = slice;
        await session.sendFile({ source, rowGroups, batchRows, skipRows }, slice.release);
      }
    }
    begin();
    session.end();
  } catch (error) {
    session.fail(error);
  }
}

function asWriteError(error: unknown, key: string | undefined, signal: AbortSignal | undefined): unknown {
  if (isDeltaLiteError(error)) return error;
  const what = key ?? "(before the first file)";
  if (signal?.aborted)
    return new DeltaLiteError("aborted", `parquet write aborted: ${what}`, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new DeltaLiteError("generic", `writing parquet file ${what} failed: ${message}`, { cause: error });
}

/**
 * Writes `batches` into as many Parquet objects as `targetFileSize` asks for, yielding each as it completes.
 * No object is written for an input without rows. The encoding runs on a worker thread (encoder-pool.ts)
 * while this thread prepares the next slices and streams finished bytes to the store; a failure anywhere
 * (input, worker, store, signal) aborts the file being written and ends the worker.
 */
export async function* parquetFileStream(
  store: ObjectStore,
  batches: WriterInput,
  options: WriteParquetOptions,
): AsyncGenerator<WrittenFile> {
  const resolved = resolveWriteOptions(options);
  const { signal } = resolved;
  signal?.throwIfAborted();
  const limits = {
    maxSliceBytes: sliceBytesFor(resolved.maxRowGroupBytes),
    maxSliceRows: Math.min(MAX_SLICE_ROWS, resolved.maxRowGroupRows),
  };
  const dictionary = new DictionaryPolicy(options.plainColumns);
  const compression = new CompressionPolicy(resolved.codec, options.firstInputSizes);
  const slices = encoderSlices(
    compression.observe(dictionary.observe(batches)),
    resolved.schema,
    limits,
    signal,
  );
  const inPlace = writesInPlace(store) ? new NativeStreamSession() : undefined;
  const session: WriterSession = inPlace ?? new EncoderSession(encoderFor(options.spreadEncoders === true));
  const onAbort = () => session.fail(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const feeding = feed(
    session,
    slices,
    () => encoderSettings(resolved, dictionary, compression),
    resolved.schema,
  );
  let current: OpenFile | undefined;
  let key: string | undefined;
  let clean = false;
  try {
    for (let event = await session.next(); event.type !== "done"; event = await session.next()) {
      if (event.type === "fileStart") {
        current = await openFile(store, resolved, inPlace);
        key = current.key;
      } else if (event.type === "chunk") {
        if (current?.target !== undefined)
          throw new DeltaLiteError(
            "generic",
            `the parquet encoder sent bytes of ${current.key} to write in place`,
          );
        await current?.sink.write(event.bytes);
        session.ack();
      } else if (event.type === "fileDone" && current) {
        const done = current;
        current = undefined;
        yield await finishFile(store, done, event, signal);
      }
    }
    clean = true;
  } catch (caught) {
    session.fail(caught);
    await abandon(current, caught);
    current = undefined;
    throw asWriteError(caught, key, signal);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!clean) session.fail(new DeltaLiteError("aborted", "parquet write stopped before its end"));
    await abandon(current, new DeltaLiteError("aborted", "parquet write stopped before its end"));
    session.close();
    await feeding;
  }
}

/**
 * Starts what writes to `store` encode with, so that its start overlaps a write's planning and reads: the
 * encoder worker, unless the native engine writes the files in place on its own threads (nothing to start).
 */
export function startEncoderFor(store: ObjectStore): void {
  if (!writesInPlace(store)) startEncoderWorker();
}

/** Writes `batches` into Parquet objects and returns them all once the last one is complete. */
export async function writeParquetFiles(
  store: ObjectStore,
  batches: WriterInput,
  options: WriteParquetOptions,
): Promise<WrittenFile[]> {
  const files: WrittenFile[] = [];
  for await (const file of parquetFileStream(store, batches, options)) files.push(file);
  return files;
}

/** What the writer takes: Arrow batches, and Parquet files to pass through (passthrough.ts). */
export type WriterInput =
  | AsyncIterable<RecordBatch | ParquetPassthrough>
  | Iterable<RecordBatch | ParquetPassthrough>;

/** A batch of `schema` without rows. */
function emptyBatch(schema: Schema): RecordBatch {
  const children = schema.fields.map((f) => makeData({ type: f.type, length: 0, nullCount: 0 } as never));
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: 0, nullCount: 0, children } as never) as never,
  );
}

/** An IPC stream of `schema` (one empty batch), in a buffer of its own. */
function emptyIpc(schema: Schema): Uint8Array {
  return RecordBatchStreamWriter.writeAll([emptyBatch(schema)])
    .toUint8Array(true)
    .slice();
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
  const bytes = await encodeWhole(
    emptyIpc(resolved.schema),
    encoderSettings(resolved, new DictionaryPolicy([]), new CompressionPolicy(resolved.codec)),
  );
  await store.put(key, bytes, { mode: "create", signal: resolved.signal });
  const metadata = await parseFooter(store, key, bytes.byteLength, bytes, resolved.signal);
  return { key, size: bytes.byteLength, numRows: 0, metadata };
}
