/**
 * The Parquet encoder that runs in a worker thread: its own parquet-wasm (parquet-rs) instance turns the
 * Arrow IPC slices the main thread sends into Parquet bytes, file after file, so encoding overlaps the
 * main thread's reading, decoding and filtering. It owns the writer properties (`EncoderSettings`) and the
 * file and row-group boundaries: a file closes at the first row-group boundary at or beyond
 * `targetFileSize`, and no slice straddles a `maxRowGroupRows` boundary. Flow control: a slice is
 * acknowledged (`taken`) when it is handed to parquet-rs, and no further slice is handed over while more
 * than one output chunk waits for the main thread's `ack` (its bytes reached the sink). (On the native engine
 * with a store that has local targets the writer does not use a worker: native-stream.ts.)
 *
 * Besides IPC slices, a stream takes whole Parquet files to pass through (compaction, passthrough.ts): the
 * worker decodes them with its own parquet-wasm one row group at a time (`readParquet(bytes, { rowGroups })`),
 * or, on the native engine, one batch at a time (`readParquetBatches`, reading the file's bytes in place; or
 * `readParquetFileBatches`, reading a local file's pages from its path as they are decoded),
 * relabels each batch with the stream's schema (`withSchema`: refused unless the file's decoded schema fits
 * it) and hands the batches to the same parquet-rs writer; the file counts as one queued input and is
 * acknowledged (`taken`) once its last row group (native: its last batch) is decoded, so its bytes are held
 * one file at a time. Rows the
 * file's `skipRows` names are left out: each decoded batch goes on as the slices between them (parquet-rs
 * slices share the batch's buffers, nothing is copied).
 *
 * A worker serves any number of streams at once (messages carry the stream's `id`; encoder-pool.ts runs up
 * to one worker per core): the streams of one worker share its WebAssembly memory's high-water mark.
 *
 * The body is one self-contained function whose source text starts the worker (`eval`), so the same code
 * runs from the TypeScript sources (tests) and from the built package; it may use nothing but its argument.
 */
import type * as ParquetWasm from "parquet-wasm";
import type { ParquetCodec } from "./options.js";
import type { PassthroughSource } from "./passthrough-unit.js";

type WasmBatch = ParquetWasm.RecordBatch;
/** A native engine's batch: the rows of several ranges copied into one batch (parquet-wasm's have no such method). */
type KeepsRanges = { keepRanges?: (starts: number[], ends: number[]) => WasmBatch };
/** A native batch judges the dictionary policy itself (`EncoderSettings.judge`). */
type JudgesPolicy = {
  plainColumns?: (
    fields: string[],
    sampleRows: number,
    maxShare: number,
    minValues: number,
    dictionaryLimit: number,
  ) => string[];
};
/** A passed-through file's rows decoded a batch at a time (the native engine's `readParquetBatches`). */
type Batches = { nextTable(): ParquetWasm.Table | null; free(): void; readonly released: boolean };

/** Everything parquet-rs needs to know about the files of one stream. */
export interface EncoderSettings {
  codec: ParquetCodec;
  maxRowGroupRows: number;
  maxRowGroupBytes: number;
  targetFileSize: number;
  createdBy: string;
  keyValueMetadata: Record<string, string>;
  /** Columns written without a dictionary (dictionary-policy.ts). */
  plainColumns: readonly string[];
  /** Columns written UNCOMPRESSED whatever `codec` says (compression-policy.ts). */
  uncompressedColumns: readonly string[];
  /**
   * Set instead of judging `plainColumns` on the main thread (the stream's first input is a passed-through
   * file, `judgeInWorker`): the worker judges `fields` by the dictionary policy's rule (parquet-native's
   * `plainColumns`) on the rows the main thread's sample would have held — the first batch of `batchRows`
   * rows (cut within each row group, as the JS reader cuts them) that keeps a row, less the rows it skips —
   * decoded here natively, and writes every file of the stream by that judgement.
   */
  judge?:
    | {
        fields: readonly string[];
        batchRows: number;
        sampleRows: number;
        maxShare: number;
        minValues: number;
        dictionaryLimit: number;
      }
    | undefined;
  /**
   * A file whose bytes stay below this is sent as one chunk once complete (joined here, off the main
   * thread, which then stores it without a copy); from this size on its chunks stream as they are flushed.
   * The object sink's multipart threshold.
   */
  joinBelowBytes: number;
}

/** Main thread → worker (`id` names the stream). */
export type ToEncoder = { id: number } & (
  | { type: "begin"; settings: EncoderSettings; schemaIpc?: Uint8Array | undefined }
  | { type: "slice"; ipc: Uint8Array }
  | {
      type: "file";
      source: PassthroughSource;
      rowGroups: number[];
      batchRows: number;
      skipRows?: Int32Array | undefined;
    }
  | { type: "end" }
  | { type: "ack" }
  | { type: "abort" }
  | { type: "whole"; ipc: Uint8Array; settings: EncoderSettings }
  | { type: "memory" }
);

/** Worker → main thread (`id` names the stream). */
export type FromEncoder = { id: number } & EncoderEvent;

/** What an encoder tells the writer of a stream. */
export type EncoderEvent =
  | { type: "taken" }
  | { type: "fileStart" }
  | { type: "chunk"; bytes: Uint8Array }
  /** `written`: a file written in place (native-stream.ts), its size and footer. */
  | { type: "fileDone"; numRows: number; written?: { size: number; footer: Uint8Array } | undefined }
  | { type: "done" }
  | { type: "whole"; bytes: Uint8Array }
  | { type: "memory"; bytes: number }
  | { type: "error"; message: string };

/**
 * The writer properties of a stream's files (`plainColumns` written without a dictionary, the settings'
 * `uncompressedColumns` without compression), built with
 * `engine`'s builder: parquet-wasm's, or the native engine's, which offers the same API. The encoder worker
 * runs it (its source text is passed in) as well as the native engine's writer streams, so it may use
 * nothing but its arguments.
 */
export function writerProperties(
  engine: typeof ParquetWasm,
  settings: EncoderSettings,
  plainColumns: readonly string[],
): ParquetWasm.WriterProperties {
  const codecs: Record<ParquetCodec, ParquetWasm.Compression> = {
    snappy: engine.Compression.SNAPPY,
    zstd: engine.Compression.ZSTD,
    uncompressed: engine.Compression.UNCOMPRESSED,
  };
  let builder = new engine.WriterPropertiesBuilder()
    .setWriterVersion(engine.WriterVersion.V1)
    .setCompression(codecs[settings.codec])
    .setMaxRowGroupSize(settings.maxRowGroupRows)
    .setMaxRowGroupBytes(settings.maxRowGroupBytes)
    .setStatisticsEnabled(engine.EnabledStatistics.Page)
    .setCreatedBy(settings.createdBy);
  const entries = Object.entries(settings.keyValueMetadata);
  if (entries.length > 0) builder = builder.setKeyValueMetadata(new Map(entries));
  for (const column of plainColumns) builder = builder.setColumnDictionaryEnabled(column, false);
  for (const column of settings.uncompressedColumns)
    builder = builder.setColumnCompression(column, engine.Compression.UNCOMPRESSED);
  return builder.build();
}

/**
 * The worker's code. Runs in the worker with `require` (CommonJS eval); `wasmEntry` is the Parquet engine:
 * parquet-wasm's node build, or @deltalite/parquet-native, which offers the same API natively plus
 * `releaseParquet` (the end of a file's reads, so its parsed copy is freed at once).
 */
function encoderWorkerMain(wasmEntry: string, writerPropertiesOf: typeof writerProperties): void {
  const { MessageChannel, parentPort } = require("node:worker_threads");
  const wasm: typeof ParquetWasm & {
    releaseParquet?: (bytes: Uint8Array) => void;
    readParquetBatches?: (bytes: Uint8Array, options: { rowGroups: number[]; batchSize: number }) => Batches;
    readParquetFileBatches?: (
      path: string,
      size: number,
      options: { rowGroups: number[]; batchSize: number },
    ) => Batches;
  } = require(wasmEntry);
  /** The native engine (@deltalite/parquet-native): it streams passed-through files and takes async iterables. */
  const native = typeof wasm.readParquetBatches === "function";
  /** Output chunks of a stream posted and not yet stored by the main thread, above which input waits. */
  const MAX_UNACKED_CHUNKS = 1;

  const properties = (settings: EncoderSettings, plainColumns: readonly string[]) =>
    writerPropertiesOf(wasm, settings, plainColumns);

  /**
   * Frees an input's bytes now, once parquet-wasm has copied them into its memory: a buffer transferred into
   * a message on a port that is then closed is released at once, where the worker's rare garbage collection
   * would keep every file it was sent (tens of MB per worker) alive for a while.
   */
  function drop(bytes: Uint8Array): void {
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(null, [bytes.buffer]);
    port1.close();
    port2.close();
  }

  /** Frees a passed-through file's bytes and whatever the engine holds of it. */
  function dropFile(bytes: Uint8Array): void {
    wasm.releaseParquet?.(bytes);
    drop(bytes);
  }

  /**
   * A queued input: an IPC slice, or a Parquet file's row groups still to decode (`next` indexes them; `row`
   * counts the rows decoded so far and `skipAt` the first of `skipRows` not yet reached). A file comes as its
   * bytes or (native engine) as a local path.
   */
  type FileInput = {
    kind: "file";
    source: PassthroughSource;
    rowGroups: number[];
    batchRows: number;
    next: number;
    skipRows: Int32Array | undefined;
    row: number;
    skipAt: number;
    /** The file's batch stream once opened (native engine). */
    batches?: Batches | undefined;
  };
  type Input = { kind: "ipc"; ipc: Uint8Array } | FileInput;

  /** The [start, end) row ranges of the file's next `numRows` decoded rows that are written (none skipped). */
  function keptRanges(input: FileInput, numRows: number): [number, number][] {
    const skip = input.skipRows;
    const first = input.row;
    input.row += numRows;
    if (!skip) return [[0, numRows]];
    const ranges: [number, number][] = [];
    let start = 0;
    while (input.skipAt < skip.length && (skip[input.skipAt] as number) < first + numRows) {
      const at = (skip[input.skipAt++] as number) - first;
      if (at > start) ranges.push([start, at]);
      start = at + 1;
    }
    if (start < numRows) ranges.push([start, numRows]);
    return ranges;
  }

  /**
   * The rows of `batch` in `ranges` (at least one) as one batch: the batch itself when it keeps them all, a
   * slice for one range, else (native engine) a copy of the ranges; `batch` is freed when not returned.
   */
  function keptRows(batch: WasmBatch, ranges: [number, number][]): WasmBatch {
    const [first] = ranges;
    if (ranges.length === 1 && first?.[0] === 0 && first[1] === batch.numRows) return batch;
    try {
      const keepRanges = (batch as KeepsRanges).keepRanges;
      if (ranges.length === 1 || keepRanges === undefined) {
        const [start, end] = first as [number, number];
        return batch.slice(start, end - start);
      }
      return keepRanges.call(
        batch,
        ranges.map(([start]) => start),
        ranges.map(([, end]) => end),
      );
    } finally {
      batch.free();
    }
  }

  /**
   * The chunks' bytes in one buffer (the one chunk itself when there is only one); the chunks are freed at
   * once (`drop`), so a joined file does not hold its size twice until the worker's next collection.
   */
  function joined(chunks: Uint8Array[], size: number): Uint8Array {
    if (chunks.length === 1) return chunks[0] as Uint8Array;
    const out = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
      drop(chunk);
    }
    return out;
  }

  /** One stream being encoded: inputs waiting, whether `end` came, chunks unacknowledged, who waits. */
  class Stream {
    readonly queue: Input[] = [];
    readonly carry: WasmBatch[] = [];
    ended = false;
    aborted = false;
    unacked = 0;
    /** The columns this stream writes PLAIN, once judged here (`EncoderSettings.judge`). */
    plainColumns: readonly string[] | undefined;
    #waiters: (() => void)[] = [];
    /**
     * A table without rows of the stream's schema: passed-through files' batches are relabelled with a fresh
     * copy of its schema each (`withSchema` consumes the schema it is given).
     */
    schemaTable: ParquetWasm.Table | undefined;
    constructor(readonly id: number) {}

    post(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): void {
      if (!this.aborted) parentPort.postMessage({ id: this.id, ...message }, transfer);
    }

    async until(ready: () => boolean): Promise<void> {
      while (!ready()) {
        if (this.aborted) throw new Error("stream aborted");
        await new Promise<void>((resolve) => this.#waiters.push(resolve));
      }
      if (this.aborted) throw new Error("stream aborted");
    }

    wake(): void {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }

    /** True once a slice is waiting; false when the stream ended without one. */
    async hasInput(): Promise<boolean> {
      await this.until(() => this.carry.length > 0 || this.queue.length > 0 || this.ended);
      return this.carry.length > 0 || this.queue.length > 0;
    }

    /** The next WASM batch (undefined at the end); the caller hands it on or frees it. */
    async nextBatch(): Promise<WasmBatch | undefined> {
      return (await this.hasRows()) ? this.carry.shift() : undefined;
    }

    /**
     * True once a batch with rows waits in `carry`, taking inputs until one does; false when the stream ended
     * without one (what inputs were left kept no rows: a passed-through file's last rows all skipped).
     */
    async hasRows(): Promise<boolean> {
      while (this.carry.length === 0) {
        if (!(await this.hasInput())) return false;
        const input = this.queue[0] as Input;
        if (input.kind === "ipc") {
          this.queue.shift();
          this.#takeTable(wasm.Table.fromIPCStream(input.ipc), undefined);
          drop(input.ipc);
          this.post({ type: "taken" });
        } else if (wasm.readParquetBatches) this.#takeStreamed(input);
        else this.#takeRowGroup(input);
      }
      return true;
    }

    /**
     * The next batch of a passed-through file on the native engine, decoded alone from the file's bytes read
     * in place or from its path; the file is taken once its rows run out, and its bytes dropped once the
     * engine has released them (else they are left to the collector).
     */
    #takeStreamed(input: FileInput): void {
      const source = input.source;
      input.batches ??= openBatches(source, { rowGroups: input.rowGroups, batchSize: input.batchRows });
      // Never take a file as read without reading it: its rows would be missing from a file that looks whole.
      if (input.batches === undefined)
        throw new Error("this Parquet engine cannot read the passed-through file");
      const table = input.batches.nextTable();
      if (table) {
        this.#takeTable(table, this.schemaTable, input);
        return;
      }
      this.queue.shift();
      if (input.batches?.released && "bytes" in source) drop(source.bytes);
      input.batches = undefined;
      this.post({ type: "taken" });
    }

    /**
     * The next row group of a passed-through file, decoded whole (parquet-wasm, which is only sent bytes);
     * taken after its last.
     */
    #takeRowGroup(input: FileInput): void {
      if (!("bytes" in input.source))
        throw new Error("parquet-wasm cannot read a passed-through file's path");
      const bytes = input.source.bytes;
      if (input.next >= input.rowGroups.length) {
        this.queue.shift();
        dropFile(bytes);
        this.post({ type: "taken" });
        return;
      }
      const rowGroup = input.rowGroups[input.next++] as number;
      const table = wasm.readParquet(bytes, { rowGroups: [rowGroup], batchSize: input.batchRows });
      this.#takeTable(table, this.schemaTable, input);
      if (input.next >= input.rowGroups.length) {
        // The file's bytes are no longer needed: drop them before encoding its last rows.
        this.queue.shift();
        dropFile(bytes);
        this.post({ type: "taken" });
      }
    }

    /**
     * Moves a table's non-empty batches into `carry`, relabelled with `like`'s schema when given, less the
     * rows a passed-through `file` skips.
     */
    #takeTable(table: ParquetWasm.Table, like: ParquetWasm.Table | undefined, file?: FileInput): void {
      try {
        for (const batch of table.recordBatches()) {
          if (batch.numRows === 0) {
            batch.free();
            continue;
          }
          let labelled = batch;
          if (like) {
            try {
              labelled = batch.withSchema(like.schema);
            } finally {
              batch.free();
            }
          }
          this.#keep(labelled, file);
        }
      } finally {
        table.free();
      }
    }

    /**
     * Puts `batch` into `carry`, or what of it a passed-through file keeps (the batch is then freed): on the
     * native engine those rows copied into one batch, else a slice per kept range. A file with hundreds of
     * replaced rows made hundreds of slices, each a turn of the encode loop and a write of its own.
     */
    #keep(batch: WasmBatch, file: FileInput | undefined): void {
      const ranges: [number, number][] = file ? keptRanges(file, batch.numRows) : [[0, batch.numRows]];
      if (ranges.length === 1 || (ranges.length > 1 && (batch as KeepsRanges).keepRanges !== undefined)) {
        this.carry.push(keptRows(batch, ranges));
        return;
      }
      try {
        for (const [start, end] of ranges) this.carry.push(batch.slice(start, end - start));
      } finally {
        batch.free();
      }
    }
  }
  const streams = new Map<number, Stream>();

  /** `batches` as a ReadableStream pulled one batch at a time (a failure errors the stream). */
  function readableOf(batches: AsyncGenerator<WasmBatch>): ReadableStream<WasmBatch> {
    return new ReadableStream({
      async pull(controller) {
        const next = await batches.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await batches.return(undefined);
      },
    });
  }

  /** Opens a passed-through file's batch stream on the native engine (undefined on parquet-wasm). */
  function openBatches(source: PassthroughSource, options: { rowGroups: number[]; batchSize: number }) {
    return "bytes" in source
      ? wasm.readParquetBatches?.(source.bytes, options)
      : wasm.readParquetFileBatches?.(source.path, source.size, options);
  }

  /**
   * The policy's sample of a passed-through file, decoded here: its first batch of `batchRows` rows (cut
   * within each row group) that keeps a row, less the rows it skips; undefined when it keeps none.
   */
  function fileSample(input: FileInput, batchRows: number): WasmBatch | undefined {
    const walk: FileInput = { ...input, row: 0, skipAt: 0, batches: undefined };
    for (const rowGroup of input.rowGroups) {
      const batches = openBatches(input.source, { rowGroups: [rowGroup], batchSize: batchRows });
      if (batches === undefined) return undefined;
      try {
        for (let table = batches.nextTable(); table; table = batches.nextTable()) {
          try {
            for (const batch of table.recordBatches()) {
              const ranges = keptRanges(walk, batch.numRows);
              if (ranges.length === 0) {
                batch.free();
                continue;
              }
              return keptRows(batch, ranges);
            }
          } finally {
            table.free();
          }
        }
      } finally {
        batches.free();
      }
    }
    return undefined;
  }

  /**
   * The stream's plain columns: the main thread's, or (`settings.judge`) judged here once, on the sample of
   * the stream's first input, a passed-through file (`fileSample`).
   */
  function plainColumnsOf(stream: Stream, settings: EncoderSettings): readonly string[] {
    const judge = settings.judge;
    if (judge === undefined) return settings.plainColumns;
    if (stream.plainColumns === undefined) {
      const input = stream.queue[0];
      const sample = input?.kind === "file" ? fileSample(input, judge.batchRows) : undefined;
      const judged = (sample as JudgesPolicy | undefined)?.plainColumns;
      try {
        stream.plainColumns =
          sample && judged
            ? judged.call(
                sample,
                [...judge.fields],
                judge.sampleRows,
                judge.maxShare,
                judge.minValues,
                judge.dictionaryLimit,
              )
            : settings.plainColumns;
      } finally {
        sample?.free();
      }
    }
    return stream.plainColumns;
  }

  async function encodeFile(
    stream: Stream,
    settings: EncoderSettings,
    plainColumns: readonly string[],
  ): Promise<void> {
    let numRows = 0;
    let bytes = 0;
    // Kept to be thrown after the output ends: an input failure must fail the file even where the engine
    // ended its output without one (parquet-wasm does not always rethrow its input stream's error).
    let inputFailure: unknown;
    stream.post({ type: "fileStart" });
    // The file's batches, each taken once the output side has taken in the row groups parquet-rs just
    // flushed (so the size check sees them) and the main thread has stored an earlier chunk.
    async function* fileBatches(): AsyncGenerator<WasmBatch> {
      try {
        for (;;) {
          await new Promise((resolve) => setImmediate(resolve));
          await stream.until(() => stream.unacked <= MAX_UNACKED_CHUNKS);
          if (numRows > 0 && bytes >= settings.targetFileSize) return;
          let batch = await stream.nextBatch();
          if (batch === undefined) return;
          // Never let a slice straddle a row-count boundary: row groups then close exactly at the row cap,
          // and the size check above runs at every row-group boundary.
          const room = settings.maxRowGroupRows - (numRows % settings.maxRowGroupRows);
          if (batch.numRows > room) {
            const whole = batch;
            batch = whole.slice(0, room);
            stream.carry.unshift(whole.slice(room, whole.numRows - room));
            whole.free();
          }
          numRows += batch.numRows;
          yield batch;
        }
      } catch (error) {
        inputFailure = error;
        throw error;
      }
    }
    // The native engine takes a third argument (parquet-wasm takes two, and ignores it).
    const transform = wasm.transformParquetStream as (
      ...args: [...Parameters<typeof wasm.transformParquetStream>, { holdBelowBytes: number }]
    ) => ReturnType<typeof wasm.transformParquetStream>;
    const output = await transform(
      // The native engine takes the batches as they are; parquet-wasm wants a ReadableStream, whose pull
      // machinery is JavaScript the worker would otherwise run and compile for every batch.
      (native ? fileBatches() : readableOf(fileBatches())) as ReadableStream,
      properties(settings, plainColumns),
      // The native engine holds a small file itself and yields it whole, so `held` below has one chunk. It
      // holds no further than the target size: the size check above sees only the bytes handed out.
      { holdBelowBytes: Math.min(settings.joinBelowBytes, settings.targetFileSize) },
    );
    const send = (chunk: Uint8Array) => {
      stream.unacked++;
      stream.post({ type: "chunk", bytes: chunk }, [chunk.buffer as ArrayBuffer]);
    };
    // A file below `joinBelowBytes` is held here and sent whole at its end; once it reaches that size, what
    // is held and every later chunk go out as they come.
    let held: Uint8Array[] | undefined = [];
    // Output is read as soon as parquet-rs flushes it (so the size check sees it); the flow control is on
    // the input side, which waits while the main thread has not yet stored an earlier chunk.
    for await (const chunk of output as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      const own =
        chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice();
      if (held === undefined) send(own);
      else if (bytes < settings.joinBelowBytes) held.push(own);
      else {
        for (const earlier of held) send(earlier);
        held = undefined;
        send(own);
      }
    }
    if (inputFailure !== undefined) throw inputFailure;
    if (held !== undefined && held.length > 0) send(joined(held, bytes));
    await stream.until(() => stream.unacked === 0);
    stream.post({ type: "fileDone", numRows });
  }

  async function encodeStream(stream: Stream, settings: EncoderSettings): Promise<void> {
    try {
      while (await stream.hasInput()) {
        // Judged on the stream's first input before any of it is taken, as the sample is that input's.
        const plainColumns = plainColumnsOf(stream, settings);
        // A file starts only with a row to write: after a file rolls over, the inputs left may keep none.
        if (!(await stream.hasRows())) break;
        await encodeFile(stream, settings, plainColumns);
      }
      stream.post({ type: "done" });
    } catch (error) {
      stream.post({ type: "error", message: error instanceof Error ? error.message : String(error) });
    } finally {
      for (const batch of stream.carry.splice(0)) batch.free();
      for (const input of stream.queue.splice(0)) {
        if (input.kind !== "file") continue;
        // Freed, not dropped: a batch may still share the bytes (the collector frees them).
        input.batches?.free();
        if ("bytes" in input.source) wasm.releaseParquet?.(input.source.bytes);
      }
      stream.schemaTable?.free();
      streams.delete(stream.id);
    }
  }

  function encodeWhole(id: number, ipc: Uint8Array, settings: EncoderSettings): void {
    try {
      // writeParquet takes ownership of the table (and frees it).
      const bytes = wasm.writeParquet(
        wasm.Table.fromIPCStream(ipc),
        properties(settings, settings.plainColumns),
      );
      parentPort.postMessage({ id, type: "whole", bytes }, [bytes.buffer as ArrayBuffer]);
    } catch (error) {
      parentPort.postMessage({
        id,
        type: "error",
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }

  parentPort.on("message", (message: ToEncoder) => {
    if (message.type === "whole") return encodeWhole(message.id, message.ipc, message.settings);
    if (message.type === "memory") {
      return parentPort.postMessage({
        id: message.id,
        type: "memory",
        bytes: wasm.wasmMemory().buffer.byteLength,
      });
    }
    if (message.type === "begin") {
      const stream = new Stream(message.id);
      if (message.schemaIpc) stream.schemaTable = wasm.Table.fromIPCStream(message.schemaIpc);
      streams.set(message.id, stream);
      void encodeStream(stream, message.settings);
      return;
    }
    const stream = streams.get(message.id);
    if (!stream) return;
    if (message.type === "slice") stream.queue.push({ kind: "ipc", ipc: message.ipc });
    else if (message.type === "file") {
      const { source, rowGroups, batchRows, skipRows } = message;
      stream.queue.push({ kind: "file", source, rowGroups, batchRows, next: 0, skipRows, row: 0, skipAt: 0 });
    } else if (message.type === "end") stream.ended = true;
    else if (message.type === "ack") stream.unacked--;
    else if (message.type === "abort") stream.aborted = true;
    stream.wake();
  });
}

/** The source text a worker is started from (`new Worker(source, { eval: true })`). */
export function encoderWorkerSource(wasmEntry: string): string {
  return `(${encoderWorkerMain.toString()})(${JSON.stringify(wasmEntry)}, ${writerProperties.toString()});`;
}
