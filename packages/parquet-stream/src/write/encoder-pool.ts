/**
 * The main thread's side of the encoder worker (encoder-worker.ts): one worker for the whole process,
 * started on demand, serving every stream at once (so WebAssembly memory has one high-water mark, as when
 * encoding ran on the main thread), and never keeping the process alive while no stream uses it; and the
 * session one stream holds on it: slices go out under a credit of MAX_QUEUED_SLICES, events come back in
 * order. A stream that fails is dropped in the worker; a worker that fails (an error, an exit) fails every
 * stream it served, and the next stream starts a new one.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { DeltaLiteError } from "@deltalite/errors";
import {
  type EncoderSettings,
  encoderWorkerSource,
  type FromEncoder,
  type ToEncoder,
} from "./encoder-worker.js";

/** Slices of one stream sent to the worker and not yet handed to parquet-rs. */
export const MAX_QUEUED_SLICES = 2;

/** The failure a session reports when the worker itself failed. */
function workerFailure(message: string): DeltaLiteError {
  return new DeltaLiteError("generic", `parquet encoder worker failed: ${message}`);
}

/** The process's worker and the sessions it serves. */
class SharedEncoder {
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
    if (shared === this) shared = undefined;
    for (const session of [...this.sessions.values()]) session.fail(failure);
    this.sessions.clear();
  }
}

let source: string | undefined;
let shared: SharedEncoder | undefined;
let nextId = 0;

function encoder(): SharedEncoder {
  source ??= encoderWorkerSource(createRequire(import.meta.url).resolve("parquet-wasm"));
  shared ??= new SharedEncoder(source);
  return shared;
}

/** Ends the worker now, as a crash would (tests: a worker's failure fails the writes it served). */
export async function endEncoderWorker(): Promise<void> {
  await shared?.worker.terminate();
}

/** One stream's use of the worker. */
export class EncoderSession {
  readonly id = nextId++;
  readonly #encoder = encoder();
  #events: FromEncoder[] = [];
  #failure: unknown;
  #credit = MAX_QUEUED_SLICES;
  /** The producer (waiting for credit) and the consumer (waiting for events) may both wait at once. */
  #waiters: (() => void)[] = [];
  #closed = false;
  constructor() {
    this.#encoder.join(this);
  }

  /** An event for this session from the worker. */
  receive(event: FromEncoder): void {
    if (event.type === "taken") this.#credit++;
    else if (event.type === "error") this.fail(workerFailure(event.message));
    else this.#events.push(event);
    this.#notify();
  }

  begin(settings: EncoderSettings): void {
    this.#encoder.post({ id: this.id, type: "begin", settings });
  }

  /** Sends one slice (its buffer is transferred), first waiting for credit. */
  async send(ipc: Uint8Array): Promise<void> {
    await this.#until(() => this.#credit > 0);
    this.#credit--;
    this.#encoder.post({ id: this.id, type: "slice", ipc }, [ipc.buffer as ArrayBuffer]);
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
    this.#notify();
  }

  /** Leaves the worker; a stream that did not finish is dropped there. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const alive = this.#encoder.sessions.has(this.id);
    this.#encoder.leave(this);
    if (this.#failure !== undefined && alive) this.#encoder.post({ id: this.id, type: "abort" });
  }

  async #until(ready: () => boolean): Promise<void> {
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure;
      if (ready()) return;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
      });
    }
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * The encoder's WebAssembly memory in bytes (it only grows: the high-water mark of every write so far), for
 * benchmarks; starts the worker when none runs.
 */
export async function encoderWasmMemoryBytes(): Promise<number> {
  const session = new EncoderSession();
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
