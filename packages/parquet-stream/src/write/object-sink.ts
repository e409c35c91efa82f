/**
 * Streams one object's bytes into an ObjectStore as they are produced: the chunks are kept as they come
 * (each is handed over: the caller does not touch it again, and the sink hands it on to the store, which may
 * free it once stored: `PutOptions.handOver`) until the object reaches the multipart threshold (an object
 * that ends below it is stored with one `put` of the chunks joined once), after which a multipart put takes
 * over and the producer waits whenever more than one part's worth of bytes is queued. The last bytes seen
 * are kept (a bounded tail) so the Parquet footer can be parsed without reading the object back. A create of
 * a unique key whose answer was lost is recognised by the object's size there.
 */
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import type { ObjectStore, PutMode } from "@deltalite/object-store";

/** Failures after which a put cannot have stored anything. */
const REFUSALS = new Set(["invalid_path", "permission_denied", "unsupported", "not_implemented", "aborted"]);

/**
 * How many trailing bytes the sink keeps for the footer: 256 KiB holds the footer of a file of ~1,800 column
 * chunks (ours take ~150 bytes each: 25 row groups of 72 columns); a longer footer is read back with one
 * ranged GET. With 1 MiB, the ring's copy of the last MiB of every 4 MiB chunk was 109 ms of the main
 * thread's profile in a 4M-row upsert writing 1.3 GB (merge-engine BENCHMARKS.md, session 17).
 */
export const TAIL_BYTES = 256 * 1024;

export interface ObjectSinkOptions {
  mode: PutMode;
  /** The key is a name only this writer uses (see `WriteParquetOptions.uniqueKeys`). */
  uniqueKey: boolean;
  multipartThresholdBytes: number;
  partSizeBytes: number;
  concurrency: number;
  signal: AbortSignal | undefined;
}

/** A single-producer, single-consumer chunk queue that makes the producer wait above `capacity` bytes. */
class ChunkQueue implements AsyncIterable<Uint8Array> {
  readonly #capacity: number;
  #chunks: Uint8Array[] = [];
  #bytes = 0;
  #closed = false;
  #failure: unknown;
  #wakeConsumer: (() => void) | undefined;
  #wakeProducer: (() => void) | undefined;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  async push(chunk: Uint8Array): Promise<void> {
    while (this.#bytes >= this.#capacity && this.#failure === undefined) {
      await new Promise<void>((resolve) => {
        this.#wakeProducer = resolve;
      });
    }
    if (this.#failure !== undefined) throw this.#failure;
    this.#chunks.push(chunk);
    this.#bytes += chunk.byteLength;
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** Stops both sides: the producer's next push throws `reason`, the consumer's iteration throws it too. */
  fail(reason: unknown): void {
    if (this.#failure === undefined) this.#failure = reason;
    this.#chunks = [];
    this.#bytes = 0;
    this.#wake();
  }

  #wake(): void {
    const consumer = this.#wakeConsumer;
    const producer = this.#wakeProducer;
    this.#wakeConsumer = undefined;
    this.#wakeProducer = undefined;
    consumer?.();
    producer?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    try {
      for (;;) {
        if (this.#failure !== undefined) throw this.#failure;
        const chunk = this.#chunks.shift();
        if (chunk !== undefined) {
          this.#bytes -= chunk.byteLength;
          this.#wake();
          yield chunk;
          continue;
        }
        if (this.#closed) return;
        await new Promise<void>((resolve) => {
          this.#wakeConsumer = resolve;
        });
      }
    } finally {
      // The consumer stopped (finished, failed or gave up): a waiting producer must not hang.
      if (this.#failure === undefined && !this.#closed) {
        this.fail(new DeltaLiteError("generic", "multipart upload stopped consuming bytes"));
      }
    }
  }
}

/**
 * The last TAIL_BYTES bytes of a multipart object, in a ring: each byte is copied once, nothing is allocated
 * per chunk. (Re-allocating a tail of up to 1 MiB per chunk cost 290 ms of main-thread time per 1M-row upsert,
 * 66 MB written in small chunks: a CPU profile's `write` self time.) A chunk longer than the ring has only its
 * last TAIL_BYTES copied.
 */
class TailRing {
  readonly #ring = new Uint8Array(TAIL_BYTES);
  /** Bytes pushed in all. */
  #total = 0;

  push(bytes: Uint8Array): void {
    const kept = bytes.byteLength > TAIL_BYTES ? bytes.subarray(bytes.byteLength - TAIL_BYTES) : bytes;
    this.#total += bytes.byteLength - kept.byteLength;
    const at = this.#total % TAIL_BYTES;
    const first = Math.min(kept.byteLength, TAIL_BYTES - at);
    this.#ring.set(kept.subarray(0, first), at);
    if (first < kept.byteLength) this.#ring.set(kept.subarray(first), 0);
    this.#total += kept.byteLength;
  }

  /** The kept bytes in order (a copy). */
  bytes(): Uint8Array {
    const length = Math.min(this.#total, TAIL_BYTES);
    const start = (this.#total - length) % TAIL_BYTES;
    const first = Math.min(length, TAIL_BYTES - start);
    const out = new Uint8Array(length);
    out.set(this.#ring.subarray(start, start + first), 0);
    if (first < length) out.set(this.#ring.subarray(0, length - first), first);
    return out;
  }
}

export class ObjectSink {
  readonly #store: ObjectStore;
  readonly #key: string;
  readonly #options: ObjectSinkOptions;
  /** The chunks written before multipart starts (kept, not copied: the caller hands each one over). */
  #held: Uint8Array[] = [];
  #size = 0;
  /** The object's last bytes once it streams as a multipart put (before that they are `#held`'s end). */
  #tail: TailRing | undefined;
  #queue: ChunkQueue | undefined;
  #upload: Promise<unknown> | undefined;
  readonly #uploadAbort = new AbortController();

  constructor(store: ObjectStore, key: string, options: ObjectSinkOptions) {
    this.#store = store;
    this.#key = key;
    this.#options = options;
  }

  /** Bytes accepted so far. */
  get size(): number {
    return this.#size;
  }

  /** True once the object is being streamed with a multipart put. */
  get multipart(): boolean {
    return this.#queue !== undefined;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (chunk.byteLength === 0) return;
    this.#size += chunk.byteLength;
    if (this.#queue) {
      this.#tail?.push(chunk);
      await this.#queue.push(chunk);
      return;
    }
    if (this.#size >= this.#options.multipartThresholdBytes) {
      const gathered = this.#held;
      this.#held = [];
      const tail = new TailRing();
      for (const held of gathered) tail.push(held);
      tail.push(chunk);
      this.#tail = tail;
      await this.#startMultipart([...gathered, chunk]);
      return;
    }
    this.#held.push(chunk);
  }

  /** Completes the object; returns its size and the bytes at its end (at most TAIL_BYTES). */
  async finish(): Promise<{ size: number; tail: Uint8Array }> {
    // One chunk is stored as it is; more are joined once (no buffer grown and copied while they arrive).
    const held = this.#held;
    const body = this.#queue
      ? undefined
      : held.length === 1
        ? (held[0] as Uint8Array)
        : Buffer.concat(held, this.#size);
    this.#held = [];
    const tail = this.#tail?.bytes() ?? (body as Uint8Array).slice(Math.max(0, this.#size - TAIL_BYTES));
    try {
      if (!body) {
        this.#queue?.close();
        await this.#upload;
      } else {
        await this.#store.put(this.#key, body, {
          mode: this.#options.mode,
          signal: this.#options.signal,
          handOver: true,
        });
      }
    } catch (error) {
      if (!(await this.#storedAnyway(error))) throw error;
    }
    return { size: this.#size, tail };
  }

  /**
   * When the key is a name only this writer uses (a data file's fresh UUID), after a failed create an
   * object at the key of exactly our size is ours: an attempt whose reply was lost or timed out did land (a store's
   * retry of it then reads `already_exists`, a retried multipart completion `not_found`). One HEAD decides;
   * nothing is taken as ours on an abort or a refusal.
   */
  async #storedAnyway(error: unknown): Promise<boolean> {
    const { mode, uniqueKey, signal } = this.#options;
    if (mode !== "create" || !uniqueKey || signal?.aborted) return false;
    if (isDeltaLiteError(error) && REFUSALS.has(error.kind)) return false;
    try {
      const meta = await this.#store.head(this.#key, { signal: this.#options.signal });
      return meta.size === this.#size;
    } catch {
      return false;
    }
  }

  /** Gives up: a multipart upload in flight is aborted and leaves no object behind. */
  async abort(reason: unknown): Promise<void> {
    this.#held = [];
    if (!this.#queue) return;
    this.#queue.fail(reason);
    this.#uploadAbort.abort();
    await this.#upload?.catch(() => undefined);
  }

  async #startMultipart(gathered: readonly Uint8Array[]): Promise<void> {
    const queue = new ChunkQueue(this.#options.partSizeBytes);
    this.#queue = queue;
    const signal = this.#options.signal
      ? AbortSignal.any([this.#options.signal, this.#uploadAbort.signal])
      : this.#uploadAbort.signal;
    this.#upload = this.#store
      .putMultipart(this.#key, queue, {
        mode: this.#options.mode,
        handOver: true,
        partSizeBytes: this.#options.partSizeBytes,
        concurrency: this.#options.concurrency,
        signal,
      })
      .catch((error: unknown) => {
        const failure = isDeltaLiteError(error)
          ? error
          : new DeltaLiteError("generic", `multipart upload of ${this.#key} failed`, { cause: error });
        queue.fail(failure);
        throw failure;
      });
    // Surfaced through push/finish; keep an early failure from being reported as unhandled.
    this.#upload.catch(() => undefined);
    for (const chunk of gathered) await queue.push(chunk);
  }
}
