/**
 * Streams one object's bytes into an ObjectStore as they are produced: bytes are gathered in one growing
 * buffer until the object reaches the multipart threshold (an object that ends below it is stored with one
 * `put` of that buffer, no second copy), after which a multipart put takes over and the producer waits
 * whenever more than one part's worth of bytes is queued. The last bytes seen
 * are kept (a bounded tail) so the Parquet footer can be parsed without reading the object back. A create
 * of a unique key whose answer was lost is recognised by the object's size there.
 */
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import type { ObjectStore, PutMode } from "@deltalite/object-store";

/** Failures after which a put cannot have stored anything. */
const REFUSALS = new Set(["invalid_path", "permission_denied", "unsupported", "not_implemented", "aborted"]);

/** How many trailing bytes the sink keeps for the footer. */
export const TAIL_BYTES = 1 << 20;

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

export class ObjectSink {
  readonly #store: ObjectStore;
  readonly #key: string;
  readonly #options: ObjectSinkOptions;
  /** Bytes gathered before multipart starts: `#held[0, #size)`. */
  #held = new Uint8Array(0);
  #size = 0;
  #tail = new Uint8Array(0);
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
    const before = this.#size;
    this.#size += chunk.byteLength;
    this.#keepTail(chunk);
    if (this.#queue) {
      await this.#queue.push(chunk);
      return;
    }
    if (this.#size >= this.#options.multipartThresholdBytes) {
      await this.#startMultipart(this.#held.subarray(0, before), chunk);
      return;
    }
    if (this.#size > this.#held.byteLength) {
      const capacity = Math.min(
        this.#options.multipartThresholdBytes,
        Math.max(this.#size, this.#held.byteLength * 2, 1 << 20),
      );
      const grown = new Uint8Array(capacity);
      grown.set(this.#held.subarray(0, before));
      this.#held = grown;
    }
    this.#held.set(chunk, before);
  }

  /** Completes the object; returns its size and the bytes at its end (at most TAIL_BYTES). */
  async finish(): Promise<{ size: number; tail: Uint8Array }> {
    try {
      if (this.#queue) {
        this.#queue.close();
        await this.#upload;
      } else {
        const body = this.#held.subarray(0, this.#size);
        this.#held = new Uint8Array(0);
        await this.#store.put(this.#key, body, { mode: this.#options.mode, signal: this.#options.signal });
      }
    } catch (error) {
      if (!(await this.#storedAnyway(error))) throw error;
    }
    return { size: this.#size, tail: this.#tail };
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
    this.#held = new Uint8Array(0);
    if (!this.#queue) return;
    this.#queue.fail(reason);
    this.#uploadAbort.abort();
    await this.#upload?.catch(() => undefined);
  }

  #keepTail(chunk: Uint8Array): void {
    if (chunk.byteLength >= TAIL_BYTES) {
      this.#tail = chunk.slice(chunk.byteLength - TAIL_BYTES);
      return;
    }
    const keep = Math.min(this.#tail.byteLength, TAIL_BYTES - chunk.byteLength);
    const tail = new Uint8Array(keep + chunk.byteLength);
    tail.set(this.#tail.subarray(this.#tail.byteLength - keep), 0);
    tail.set(chunk, keep);
    this.#tail = tail;
  }

  async #startMultipart(gathered: Uint8Array, chunk: Uint8Array): Promise<void> {
    const queue = new ChunkQueue(this.#options.partSizeBytes);
    this.#queue = queue;
    const signal = this.#options.signal
      ? AbortSignal.any([this.#options.signal, this.#uploadAbort.signal])
      : this.#uploadAbort.signal;
    this.#upload = this.#store
      .putMultipart(this.#key, queue, {
        mode: this.#options.mode,
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
    this.#held = new Uint8Array(0);
    if (gathered.byteLength > 0) await queue.push(gathered);
    await queue.push(chunk);
  }
}
