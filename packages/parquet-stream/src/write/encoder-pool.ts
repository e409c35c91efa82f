/**
 * The main thread's side of the encoder workers (encoder-worker.ts): a pool of up to one worker per core
 * (`encoderWorkerLimit`), started on demand, each serving any number of streams at once (one stream stays on
 * one worker; a stream joins the first worker unless it asks to be spread: then an idle worker, else a new
 * one while the limit allows, else the least busy), never keeping the process alive while no stream uses it; and the session one stream holds on a
 * worker: inputs (IPC slices, or Parquet files passed through) go out under a credit of MAX_QUEUED_SLICES,
 * each input's `onTaken` runs when the worker has consumed it (a file: decoded its last row group), events
 * come back in order. A stream that fails is dropped in the worker; a worker that fails (an error, an exit) fails every
 * stream it served, and the next stream starts a new one.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { DeltaLiteError } from "@deltalite/errors";
import { type IpcLayout, joinIpc } from "../arrow/ipc-stream.js";
import { parquetEngineEntry } from "../engine.js";
import {
  type EncoderSettings,
  encoderWorkerSource,
  type FromEncoder,
  type ToEncoder,
} from "./encoder-worker.js";
import type { PassthroughSource } from "./passthrough-unit.js";
import { Waits } from "./waits.js";

/** A whole Parquet file a session passes through: its row groups, read in batches of `batchRows`, less `skipRows`. */
export interface FileToPassThrough {
  source: PassthroughSource;
  rowGroups: number[];
  batchRows: number;
  skipRows?: Int32Array | undefined;
}

/** Slices of one stream sent to the worker and not yet handed to parquet-rs. */
export const MAX_QUEUED_SLICES = 2;

/** The most encoder workers a process runs, whatever its cores (each holds its own WebAssembly memory). */
export const MAX_ENCODER_WORKERS = 4;

/** How many encoder workers may run: `DELTALITE_ENCODER_WORKERS` when set (1 to the maximum), else one per core. */
export function encoderWorkerLimit(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env.DELTALITE_ENCODER_WORKERS);
  const wanted = Number.isSafeInteger(asked) && asked >= 1 ? asked : availableParallelism();
  return Math.max(1, Math.min(MAX_ENCODER_WORKERS, wanted));
}

/** The failure a session reports when the worker itself failed. */
function workerFailure(message: string): DeltaLiteError {
  return new DeltaLiteError("generic", `parquet encoder worker failed: ${message}`);
}

/** The process's worker and the sessions it serves. */
export class SharedEncoder {
  readonly worker: Worker;
  readonly sessions = new Map<number, EncoderSession>();

  constructor(source: string) {
    this.worker = new Worker(source, { eval: true });
    this.worker.unref();
    this.worker.on("message", (event: FromEncoder) => this.sessions.get(event.id)?.receive(event));
    this.worker.on("error", (error: Error) => this.#died(workerFailure(error.message)));
    this.worker.on("exit", (code: number) => this.#died(workerFailure(`it exited with code ${code}`)));
  }

  post(message: ToEncoder, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  join(session: EncoderSession): void {
    if (this.sessions.size === 0) this.worker.ref();
    this.sessions.set(session.id, session);
  }

  leave(session: EncoderSession): void {
    this.sessions.delete(session.id);
    if (this.sessions.size === 0) this.worker.unref();
  }

  #died(failure: DeltaLiteError): void {
    running = running.filter((encoder) => encoder !== this);
    for (const session of [...this.sessions.values()]) session.fail(failure);
    this.sessions.clear();
  }
}

let source: string | undefined;
let running: SharedEncoder[] = [];
let nextId = 0;

/**
 * The worker a new stream joins. By default the process's first worker (one WebAssembly high-water mark for
 * every stream, as the upsert's memory figures assume); with `spread` (compaction: its knobs count one
 * row-group budget per bin) an idle worker, else a new one while the limit allows, else the least busy.
 */
function encoder(spread = false): SharedEncoder {
  source ??= encoderWorkerSource(parquetEngineEntry());
  const least = running.reduce<SharedEncoder | undefined>(
    (best, e) => (best === undefined || e.sessions.size < best.sessions.size ? e : best),
    undefined,
  );
  const reuse = spread
    ? least !== undefined && (least.sessions.size === 0 || running.length >= encoderWorkerLimit())
    : least !== undefined;
  if (reuse) return spread ? (least as SharedEncoder) : (running[0] as SharedEncoder);
  const started = new SharedEncoder(source);
  running.push(started);
  return started;
}

/** The worker a new stream joins (see `encoder`). */
export function encoderFor(spread: boolean): SharedEncoder {
  return encoder(spread);
}

/** Ends the worker now, as a crash would (tests: a worker's failure fails the writes it served). */
export async function endEncoderWorker(): Promise<void> {
  await Promise.all(running.map((e) => e.worker.terminate()));
}

/** Encoder workers running now (tests). */
export function runningEncoderWorkers(): number {
  return running.length;
}

/** One stream's use of the worker. */
export class EncoderSession {
  readonly id = nextId++;
  readonly #encoder: SharedEncoder;
  #events: FromEncoder[] = [];
  #failure: unknown;
  #credit = MAX_QUEUED_SLICES;
  /** What to run as each input sent and not yet consumed is taken by the worker, in sending order. */
  #onTaken: ((() => void) | undefined)[] = [];
  /** The producer (waiting for credit) and the consumer (waiting for events) may both wait at once. */
  #waits = new Waits();
  #closed = false;
  constructor(on: SharedEncoder = encoder()) {
    this.#encoder = on;
    this.#encoder.join(this);
  }

  /** An event for this session from the worker. */
  receive(event: FromEncoder): void {
    if (event.type === "taken") {
      this.#credit++;
      this.#onTaken.shift()?.();
    } else if (event.type === "error") this.fail(workerFailure(event.message));
    else this.#events.push(event);
    this.#notify();
  }

  /** Starts the stream; `schemaIpc` (an IPC stream of its schema) relabels passed-through files' batches. */
  begin(settings: EncoderSettings, schemaIpc?: Uint8Array): void {
    this.#encoder.post({ id: this.id, type: "begin", settings, schemaIpc });
  }

  /** Sends one slice (joined into a buffer of its own, which is transferred), first waiting for credit. */
  async send(layout: IpcLayout): Promise<void> {
    await this.#until(() => this.#credit > 0);
    const ipc = joinIpc(layout);
    this.#credit--;
    this.#onTaken.push(undefined);
    this.#encoder.post({ id: this.id, type: "slice", ipc }, [ipc.buffer as ArrayBuffer]);
  }

  /**
   * Sends a whole Parquet file to pass through (its buffer, when it is given as bytes, is transferred), first
   * waiting for credit; `onTaken` runs once the worker decoded its last row group, or when the session fails
   * or closes.
   */
  async sendFile(file: FileToPassThrough, onTaken: () => void): Promise<void> {
    try {
      await this.#until(() => this.#credit > 0);
    } catch (error) {
      onTaken();
      throw error;
    }
    this.#credit--;
    this.#onTaken.push(onTaken);
    const { source, rowGroups, batchRows, skipRows } = file;
    const transfer = "bytes" in source ? [source.bytes.buffer as ArrayBuffer] : [];
    this.#encoder.post({ id: this.id, type: "file", source, rowGroups, batchRows, skipRows }, transfer);
  }

  /** Sends a one-reply request (the reply is the next event). */
  ask(message: ToEncoder): void {
    this.#encoder.post(message);
  }

  /** Asks for one whole file's bytes (the reply is a `whole` event). */
  postWhole(ipc: Uint8Array, settings: EncoderSettings): void {
    this.#encoder.post({ id: this.id, type: "whole", ipc, settings }, [ipc.buffer as ArrayBuffer]);
  }

  end(): void {
    if (this.#failure === undefined) this.#encoder.post({ id: this.id, type: "end" });
  }

  /** The chunk just received reached the sink: the worker may read the next. */
  ack(): void {
    if (this.#failure === undefined) this.#encoder.post({ id: this.id, type: "ack" });
  }

  /** The next event from the worker; throws the session's failure. */
  async next(): Promise<FromEncoder> {
    await this.#until(() => this.#events.length > 0);
    return this.#events.shift() as FromEncoder;
  }

  /** Makes every wait (now and later) throw `reason`; the worker is ended at close(). */
  fail(reason: unknown): void {
    if (this.#failure === undefined) this.#failure = reason;
    this.#releaseInputs();
    this.#notify();
  }

  /** Leaves the worker; a stream that did not finish is dropped there. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#releaseInputs();
    const alive = this.#encoder.sessions.has(this.id);
    this.#encoder.leave(this);
    if (this.#failure !== undefined && alive) this.#encoder.post({ id: this.id, type: "abort" });
  }

  /** Runs every pending `onTaken` (the worker will not consume those inputs for this session any more). */
  #releaseInputs(): void {
    for (const onTaken of this.#onTaken.splice(0)) onTaken?.();
  }

  #until(ready: () => boolean): Promise<void> {
    return this.#waits.until(ready, () => this.#failure);
  }

  #notify(): void {
    this.#waits.notify();
  }
}

/**
 * The encoder's WebAssembly memory in bytes (it only grows: the high-water mark of every write so far), for
 * benchmarks; starts the worker when none runs.
 */
export async function encoderWasmMemoryBytes(): Promise<number> {
  if (running.length === 0) encoder();
  const each = await Promise.all(running.map(workerWasmMemoryBytes));
  return each.reduce((sum, bytes) => sum + bytes, 0);
}

async function workerWasmMemoryBytes(on: SharedEncoder): Promise<number> {
  const session = new EncoderSession(on);
  try {
    session.ask({ id: session.id, type: "memory" });
    const event = await session.next();
    if (event.type !== "memory") throw workerFailure(`unexpected ${event.type} reply`);
    return event.bytes;
  } finally {
    session.close();
  }
}

/** Encodes one whole table (an IPC stream) into one Parquet file's bytes on a pooled worker. */
export async function encodeWhole(ipc: Uint8Array, settings: EncoderSettings): Promise<Uint8Array> {
  const session = new EncoderSession();
  try {
    session.postWhole(ipc, settings);
    const event = await session.next();
    if (event.type !== "whole") throw workerFailure(`unexpected ${event.type} reply`);
    return event.bytes;
  } catch (error) {
    session.fail(error);
    throw error;
  } finally {
    session.close();
  }
}

/**
 * Starts an encoder worker now when none runs, so that a writer about to encode overlaps the worker's start
 * (a thread, parquet-wasm's compile) with its reads; the worker serves the next stream as any idle one would
 * and, idle, keeps the process alive no more than one started on demand.
 */
export function startEncoderWorker(): void {
  if (running.length === 0) encoder();
}
