/**
 * A wrapper that injects faults on chosen calls: an error, a delay, a call that never answers (until its
 * AbortSignal fires), or a truncated body. Later layers use it to prove that failures leave tables
 * unchanged and that a stalled request cannot hold other work hostage.
 */
import { DeltaLiteError } from "@deltalite/errors";
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
} from "./types.js";

export type Fault =
  | { type: "error"; error: () => Error }
  | { type: "delay"; ms: number }
  /** Never settles; rejects with `aborted` when the call's signal fires. */
  | { type: "hang" }
  /** `get` returns only the first `bytes` bytes of the real answer. */
  | { type: "truncate"; bytes: number };

export interface FaultRule {
  method: StoreMethod | "*";
  /** Only keys equal to (string) or matching (RegExp) this. */
  key?: string | RegExp;
  /** Fire on the nth matching call only (1-based); every matching call when omitted. */
  call?: number;
  /** Fire at most this many times. */
  times?: number;
  fault: Fault;
}

export class FaultyStore implements ObjectStore {
  readonly root: string;
  readonly #inner: ObjectStore;
  readonly #rules: { rule: FaultRule; seen: number; fired: number }[];
  /** Number of faults fired so far. */
  fired = 0;

  constructor(inner: ObjectStore, rules: FaultRule[] = []) {
    this.#inner = inner;
    this.root = inner.root;
    this.#rules = rules.map((rule) => ({ rule, seen: 0, fired: 0 }));
  }

  get capabilities() {
    return this.#inner.capabilities;
  }

  /** Adds a rule at run time (e.g. after a table was set up through this store). */
  addRule(rule: FaultRule): void {
    this.#rules.push({ rule, seen: 0, fired: 0 });
  }

  #match(method: StoreMethod, key: string): Fault | undefined {
    for (const entry of this.#rules) {
      const { rule } = entry;
      if (rule.method !== "*" && rule.method !== method) continue;
      if (typeof rule.key === "string" && rule.key !== key) continue;
      if (rule.key instanceof RegExp && !rule.key.test(key)) continue;
      entry.seen += 1;
      if (rule.call !== undefined && entry.seen !== rule.call) continue;
      if (rule.times !== undefined && entry.fired >= rule.times) continue;
      entry.fired += 1;
      this.fired += 1;
      return rule.fault;
    }
    return undefined;
  }

  /** Applies a pre-call fault; returns the fault when it must be applied to the result instead. */
  async #before(
    method: StoreMethod,
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<Fault | undefined> {
    const fault = this.#match(method, key);
    if (!fault) return undefined;
    switch (fault.type) {
      case "error":
        throw fault.error();
      case "delay":
        await sleep(fault.ms, signal, key);
        return undefined;
      case "hang":
        await sleep(Number.POSITIVE_INFINITY, signal, key);
        return undefined;
      case "truncate":
        return fault;
    }
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const fault = await this.#before("get", key, options?.signal);
    const data = await this.#inner.get(key, options);
    return fault?.type === "truncate" ? data.slice(0, fault.bytes) : data;
  }
  async head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    await this.#before("head", key, options?.signal);
    return this.#inner.head(key, options);
  }
  async put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    await this.#before("put", key, options?.signal);
    return this.#inner.put(key, data, options);
  }
  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    await this.#before("putMultipart", key, options?.signal);
    return this.#inner.putMultipart(key, chunks, options);
  }
  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta> {
    await this.#before("list", prefix, options?.signal);
    yield* this.#inner.list(prefix, options);
  }
  async delete(key: string, options?: SignalOptions): Promise<void> {
    await this.#before("delete", key, options?.signal);
    return this.#inner.delete(key, options);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined, key: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const abort = () => {
      if (timer !== undefined) clearTimeout(timer);
      reject(new DeltaLiteError("aborted", `injected stall on ${JSON.stringify(key)} aborted`));
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener("abort", abort, { once: true });
    if (Number.isFinite(ms)) {
      timer = setTimeout(() => {
        signal?.removeEventListener("abort", abort);
        resolve();
      }, ms);
    }
  });
}
