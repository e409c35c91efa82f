/**
 * The main thread's side of a writer stream the native engine encodes on its own CPU threads into the
 * store's local files (parquet-native `openWriterStream`, its stream.rs): used instead of an encoder worker
 * where the engine is native and the store has local targets. It offers the encoder session's surface
 * (encoder-pool.ts), so the writer drives either alike: slices go out under the same credit
 * (MAX_QUEUED_SLICES), files to pass through under a larger one (MAX_QUEUED_FILES), each input's `onTaken`
 * runs once the stream has consumed it, and the same events come
 * back (`fileStart`, answered by `target`; `fileDone` with the file's size and footer; `done`). No worker
 * thread, no JavaScript per batch, and the streams of an upsert's partitions encode side by side on the pool
 * (merge-engine BENCHMARKS.md, session 24).
 */
import { createRequire } from "node:module";
import { DeltaLiteError } from "@deltalite/errors";
import type * as ParquetWasm from "parquet-wasm";
import type { IpcLayout } from "../arrow/ipc-stream.js";
import { parquetEngineEntry } from "../engine.js";
import { type FileToPassThrough, MAX_QUEUED_SLICES } from "./encoder-pool.js";
import { type EncoderEvent, type EncoderSettings, writerProperties } from "./encoder-worker.js";
import { Waits } from "./waits.js";

const require = createRequire(import.meta.url);

/**
 * Files to pass through queued on one stream and not yet decoded. A file queued holds nothing but its name
 * (or bytes its caller already holds, under its permit); with the slices' credit of 2 the stream ran dry
 * between files and waited for the main thread to queue the next: uniform 1M upsert, 3 pairs, 1,274 ->
 * 1,146 ms at 16 (merge-engine BENCHMARKS.md, session 24).
 */
export const MAX_QUEUED_FILES = 16;

/** The addon's writer stream (parquet-native engine.d.cts `NativeWriterStream`). */
interface WriterStream {
  push(input: {
    path?: string;
    size?: number;
    bytes?: Uint8Array;
    rowGroups?: number[];
    batchRows?: number;
    skipRows?: Int32Array | undefined;
  }): void;
  pushIpc(parts: Uint8Array[], offsets: number[], byteLength: number): Promise<void>;
  end(): void;
  run(): Promise<{ state: "drained" | "fileStart" | "full" | "ended"; taken: number }>;
  setTarget(path: string): void;
  finishFile(): Promise<{ size: number; footer: Uint8Array; numRows: number }>;
  abort(): void;
}

type NativeEngine = typeof ParquetWasm & {
  openWriterStream(
    schemaIpc: Uint8Array,
    props: ParquetWasm.WriterProperties,
    settings: { targetFileSize: number; maxRowGroupRows: number; judge?: EncoderSettings["judge"] },
  ): WriterStream;
};

/** What a writer reads of a session's events. */
type Event = Extract<EncoderEvent, { type: "fileStart" | "fileDone" | "done" }>;

/** An input pushed and not yet consumed: its kind (whose credit it holds), and what to run once it is taken. */
type Queued = { kind: "slice" | "file"; onTaken?: (() => void) | undefined };

function failure(error: unknown): DeltaLiteError {
  const message = error instanceof Error ? error.message : String(error);
  return new DeltaLiteError("generic", `parquet encoder failed: ${message}`, { cause: error });
}

/** One stream on the native engine's pool (see the module's comment). */
export class NativeStreamSession {
  #stream: WriterStream | undefined;
  #events: Event[] = [];
  #failure: unknown;
  #credit = { slice: MAX_QUEUED_SLICES, file: MAX_QUEUED_FILES };
  /** Each input pushed and not yet consumed, in pushing order: its kind, and what to run once it is taken. */
  #queued: Queued[] = [];
  /** An input (or the end) arrived since the stream last ran. */
  #pushed = false;
  #ended = false;
  #target: string | undefined;
  #finished = false;
  /** The producer, the consumer and the stream's driver may all wait at once. */
  #waits = new Waits();

  /** Starts the stream; `schemaIpc` (an IPC stream of its schema) relabels passed-through files' batches. */
  begin(settings: EncoderSettings, schemaIpc?: Uint8Array): void {
    if (schemaIpc === undefined)
      throw new DeltaLiteError("generic", "a native writer stream needs its schema");
    const engine = require(parquetEngineEntry()) as NativeEngine;
    const { targetFileSize, maxRowGroupRows, judge } = settings;
    try {
      this.#stream = engine.openWriterStream(
        schemaIpc,
        writerProperties(engine, settings, settings.plainColumns),
        { targetFileSize, maxRowGroupRows, judge: judge && { ...judge, fields: [...judge.fields] } },
      );
    } catch (error) {
      this.fail(failure(error));
      return;
    }
    void this.#drive(this.#stream);
  }

  /**
   * Queues one slice (an IPC stream laid out in parts, which must not change until this resolves), first
   * waiting for credit. The stream joins the parts on libuv's pool: in a cold recent 1M upsert, joining the
   * source slices here and copying them into the addon cost ~30 ms of this thread (merge-engine BENCHMARKS.md,
   * session 31). Resolves once the slice is queued, so the next input queues after it.
   */
  async send(ipc: IpcLayout): Promise<void> {
    await this.#until(() => this.#credit.slice > 0);
    await this.#push({ kind: "slice" }, (stream) => stream.pushIpc(ipc.parts, ipc.offsets, ipc.byteLength));
  }

  /**
   * Queues a whole Parquet file to pass through, first waiting for credit; `onTaken` runs once the stream
   * decoded its last batch, or when the session fails or closes.
   */
  async sendFile(file: FileToPassThrough, onTaken: () => void): Promise<void> {
    try {
      await this.#until(() => this.#credit.file > 0);
    } catch (error) {
      onTaken();
      throw error;
    }
    const { source, rowGroups, batchRows, skipRows } = file;
    const from = "bytes" in source ? { bytes: source.bytes } : { path: source.path, size: source.size };
    await this.#push({ kind: "file", onTaken }, (stream) =>
      stream.push({ ...from, rowGroups, batchRows, skipRows }),
    );
  }

  end(): void {
    if (this.#failure !== undefined) return;
    this.#stream?.end();
    this.#ended = true;
    this.#notify();
  }

  /** Names the local file the stream writes the file it just started into. */
  target(path: string): void {
    this.#target = path;
    this.#notify();
  }

  /** Nothing to acknowledge: files are written in place, no chunk comes back. */
  ack(): void {}

  /** The next event; throws the session's failure. */
  async next(): Promise<Event> {
    await this.#until(() => this.#events.length > 0);
    return this.#events.shift() as Event;
  }

  /** Makes every wait (now and later) throw `reason` and stops the stream. */
  fail(reason: unknown): void {
    if (this.#failure === undefined) this.#failure = reason;
    this.#releaseInputs();
    this.#stream?.abort();
    this.#notify();
  }

  /** Ends the session; a stream that did not finish is stopped. */
  close(): void {
    this.#releaseInputs();
    if (!this.#finished) this.#stream?.abort();
  }

  /** Takes `queued`'s credit and queues its input with `push` (awaited: the next input queues after it). */
  async #push(queued: Queued, push: (stream: WriterStream) => void | Promise<void>): Promise<void> {
    this.#credit[queued.kind]--;
    this.#queued.push(queued);
    try {
      if (this.#stream) await push(this.#stream);
    } catch (error) {
      this.fail(failure(error));
      throw this.#failure;
    }
    this.#pushed = true;
    this.#notify();
  }

  /** Runs the stream whenever it has something to do, and turns what it stops at into events. */
  async #drive(stream: WriterStream): Promise<void> {
    try {
      let fileOpen = false;
      for (;;) {
        await this.#until(() => this.#pushed || this.#ended);
        this.#pushed = false;
        const { state, taken } = await stream.run();
        this.#taken(taken);
        if (state === "drained") continue;
        if (state === "fileStart") {
          this.#emit({ type: "fileStart" });
          await this.#until(() => this.#target !== undefined);
          stream.setTarget(this.#target as string);
          this.#target = undefined;
          fileOpen = true;
        } else if (fileOpen) {
          const { size, footer, numRows } = await stream.finishFile();
          fileOpen = false;
          this.#emit({ type: "fileDone", numRows, written: { size, footer } });
        }
        if (state === "ended") {
          this.#finished = true;
          this.#emit({ type: "done" });
          return;
        }
        this.#pushed = true; // a file to start or to go on after: run again at once
      }
    } catch (error) {
      this.fail(this.#failure ?? failure(error));
    }
  }

  #taken(count: number): void {
    for (const { kind, onTaken } of this.#queued.splice(0, count)) {
      this.#credit[kind]++;
      onTaken?.();
    }
    if (count > 0) this.#notify();
  }

  #emit(event: Event): void {
    this.#events.push(event);
    this.#notify();
  }

  /** Runs every pending `onTaken` (the stream will not consume those inputs any more). */
  #releaseInputs(): void {
    for (const { onTaken } of this.#queued.splice(0)) onTaken?.();
  }

  #until(ready: () => boolean): Promise<void> {
    return this.#waits.until(ready, () => this.#failure);
  }

  #notify(): void {
    this.#waits.notify();
  }
}
