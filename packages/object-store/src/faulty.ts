/**
 * A wrapper that injects faults on chosen calls: an error, a delay, a call that never answers (until its
 * AbortSignal fires), a truncated body, an error after the call took effect (a lost answer), or an error at
 * once for a call that reaches the store later (a request that lands after its client gave up). Later layers use it to prove that failures leave tables
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
  TempSweepOptions,
} from "./types.js";

export type Fault =
  | { type: "error"; error: () => Error }
  | { type: "delay"; ms: number }
  /** Never settles; rejects with `aborted` when the call's signal fires. */
  | { type: "hang" }
  /** `get` returns only the first `bytes` bytes of the real answer. */
  | { type: "truncate"; bytes: number }
  /** The call runs to completion on the inner store, then fails with `error` (an answer lost after the store applied it). */
  | { type: "errorAfter"; error: () => Error }
  /** The caller gets `error` at once; the call reaches the inner store `ms` later (a request that lands after the client gave up). */
  | { type: "landsLate"; ms: number; error: () => Error };

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
  /** Outcomes of `landsLate` calls (each resolves to the value or the error the late call met). */
  readonly late: Promise<unknown>[] = [];

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
      case "errorAfter":
      case "landsLate":
        return fault;
    }
  }

  /** Runs `call` under the rules: pre-call faults first, then the call, then an `errorAfter` fault. */
  async #run<T>(
    method: StoreMethod,
    key: string,
    signal: AbortSignal | undefined,
    call: () => Promise<T>,
  ): Promise<{ value: T; fault: Fault | undefined }> {
    const fault = await this.#before(method, key, signal);
    if (fault?.type === "landsLate") {
      const delay = new Promise((resolve) => setTimeout(resolve, fault.ms));
      this.late.push(delay.then(call).catch((error: unknown) => error));
      throw fault.error();
    }
    const value = await call();
    if (fault?.type === "errorAfter") throw fault.error();
    return { value, fault };
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const { value, fault } = await this.#run("get", key, options?.signal, () =>
      this.#inner.get(key, options),
    );
    return fault?.type === "truncate" ? value.slice(0, fault.bytes) : value;
  }
  async head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    return (await this.#run("head", key, options?.signal, () => this.#inner.head(key, options))).value;
  }
  async put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    return (await this.#run("put", key, options?.signal, () => this.#inner.put(key, data, options))).value;
  }
  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    const call = () => this.#inner.putMultipart(key, chunks, options);
    return (await this.#run("putMultipart", key, options?.signal, call)).value;
  }
  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta> {
    const fault = await this.#before("list", prefix, options?.signal);
    yield* this.#inner.list(prefix, options);
    if (fault?.type === "errorAfter") throw fault.error();
  }
  async delete(key: string, options?: SignalOptions): Promise<void> {
    await this.#run("delete", key, options?.signal, () => this.#inner.delete(key, options));
  }
  async removeStaleTempFiles(
    prefix: string,
    olderThanMs: number,
    options?: TempSweepOptions,
  ): Promise<string[]> {
    return (await this.#inner.removeStaleTempFiles?.(prefix, olderThanMs, options)) ?? [];
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
