/**
 * A wrapper that counts calls and bytes per method and keeps a log of requests, so tests can assert I/O
 * budgets ("footer read = 1 GET", "snapshot load = 1 LIST + k GETs") instead of only observing slowness.
 * `counts` and `log` hold the calls that succeeded (and every put); reads that failed — a GET or HEAD
 * answered `not_found` is a request too — are in `failures`, and `requests(method)` counts both.
 */
import { isDeltaLiteError } from "@deltalite/errors";
import type {
  GetOptions,
  ListOptions,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutOptions,
  PutResult,
  SignalOptions,
  StoreMethod,
  TempSweepOptions,
} from "./types.js";

export interface MethodCount {
  calls: number;
  /** Bytes moved: returned by `get`, sent by `put`/`putMultipart`; objects listed for `list`. */
  bytes: number;
}

export interface RequestRecord {
  method: StoreMethod;
  key: string;
  range?: { start: number; end: number };
  bytes: number;
}

/** A call that failed, with the error's kind (`not_found`, …; `unknown` for a foreign error). */
export interface FailedRequest {
  method: StoreMethod;
  key: string;
  kind: string;
}

export class CountingStore implements ObjectStore {
  readonly root: string;
  readonly #inner: ObjectStore;
  counts: Record<StoreMethod, MethodCount> = emptyCounts();
  log: RequestRecord[] = [];
  failures: FailedRequest[] = [];

  constructor(inner: ObjectStore) {
    this.#inner = inner;
    this.root = inner.root;
  }

  get capabilities() {
    return this.#inner.capabilities;
  }

  /** Zeroes the counters and the log. */
  reset(): void {
    this.counts = emptyCounts();
    this.log = [];
    this.failures = [];
  }

  /** Requests of `method` sent: the counted calls plus the failed ones (a 404 GET included). */
  requests(method: StoreMethod): number {
    return this.counts[method].calls + this.failures.filter((f) => f.method === method).length;
  }

  /** Runs `call`, recording its failure (then rethrown) under `method` and `key`. */
  async #failing<T>(method: StoreMethod, key: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.failures.push({ method, key, kind: isDeltaLiteError(error) ? error.kind : "unknown" });
      throw error;
    }
  }

  /** Total calls over all methods. */
  get totalCalls(): number {
    return Object.values(this.counts).reduce((sum, c) => sum + c.calls, 0);
  }

  #record(method: StoreMethod, key: string, bytes: number, range?: { start: number; end: number }): void {
    this.counts[method].calls += 1;
    this.counts[method].bytes += bytes;
    this.log.push(range ? { method, key, range, bytes } : { method, key, bytes });
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const data = await this.#failing("get", key, () => this.#inner.get(key, options));
    this.#record("get", key, data.length, options?.range ? { ...options.range } : undefined);
    return data;
  }
  async head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    const meta = await this.#failing("head", key, () => this.#inner.head(key, options));
    this.#record("head", key, 0);
    return meta;
  }
  async put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    this.#record("put", key, data.length);
    return this.#inner.put(key, data, options);
  }
  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    this.#record("putMultipart", key, 0);
    const counts = this.counts;
    const counted = async function* () {
      for await (const chunk of chunks) {
        counts.putMultipart.bytes += chunk.length;
        yield chunk;
      }
    };
    return this.#inner.putMultipart(key, counted(), options);
  }
  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta> {
    this.#record("list", prefix, 0);
    for await (const meta of this.#inner.list(prefix, options)) {
      this.counts.list.bytes += 1;
      yield meta;
    }
  }
  async delete(key: string, options?: SignalOptions): Promise<void> {
    this.#record("delete", key, 0);
    return this.#inner.delete(key, options);
  }
  async removeStaleTempFiles(
    prefix: string,
    olderThanMs: number,
    options?: TempSweepOptions,
  ): Promise<string[]> {
    return (await this.#inner.removeStaleTempFiles?.(prefix, olderThanMs, options)) ?? [];
  }
}

function emptyCounts(): Record<StoreMethod, MethodCount> {
  return {
    get: { calls: 0, bytes: 0 },
    head: { calls: 0, bytes: 0 },
    put: { calls: 0, bytes: 0 },
    putMultipart: { calls: 0, bytes: 0 },
    list: { calls: 0, bytes: 0 },
    delete: { calls: 0, bytes: 0 },
  };
}
