/**
 * Per-request deadlines for object-store calls: the deadline rule (a base plus the
 * payload beyond the first 8 MiB at a minimum throughput), its policy from `DELTALITE_REQUEST_TIMEOUT_MS` /
 * `DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC` or a delta-rs `timeout` duration, the race that aborts a stalled
 * call through a linked AbortSignal and rejects even when the call ignores it, and `TimeoutStore`, the
 * wrapper that gives every call of any store its deadline. A timed-out request fails with kind `timeout`
 * (retryable); the caller's own signal still fails it with kind `aborted`.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { aborted, joinDisplay } from "./errors.js";
import type {
  ByteRange,
  GetOptions,
  ListOptions,
  LocalFileTarget,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutOptions,
  PutResult,
  SignalOptions,
  StoreMethod,
  TempSweepOptions,
} from "./types.js";

export interface RequestTimeoutPolicy {
  /** Deadline of a request whose payload is at most 8 MiB, in milliseconds. */
  baseMs: number;
  /** Payload beyond the first 8 MiB adds `bytes / minThroughputBytesPerSec` seconds to the deadline. */
  minThroughputBytesPerSec: number;
}

/** Payload bytes covered by the base deadline alone. */
export const REQUEST_TIMEOUT_FREE_BYTES = 8 * 1024 * 1024;

/** The defaults: 30 s, plus 1 s per MiB beyond the first 8 MiB. */
export const DEFAULT_REQUEST_TIMEOUT_POLICY: Readonly<RequestTimeoutPolicy> = Object.freeze({
  baseMs: 30_000,
  minThroughputBytesPerSec: 1024 * 1024,
});

export const REQUEST_TIMEOUT_ENV = "DELTALITE_REQUEST_TIMEOUT_MS";
export const MIN_THROUGHPUT_ENV = "DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC";

/** Part size assumed for a multipart upload that does not name one (the S3 store's default). */
const DEFAULT_PART_SIZE_BYTES = 16 * 1024 * 1024;
/** Largest delay `setTimeout` honours (a larger one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Object sizes remembered per wrapper as deadline hints for whole-object GETs. */
const SIZE_HINT_CAPACITY = 4096;

/** The deadline in ms of one request moving `payloadBytes` (unknown or small payloads get the base). */
export function requestDeadlineMs(policy: Readonly<RequestTimeoutPolicy>, payloadBytes = 0): number {
  const beyond = Math.max(0, payloadBytes - REQUEST_TIMEOUT_FREE_BYTES);
  return policy.baseMs + Math.ceil((beyond * 1000) / policy.minThroughputBytesPerSec);
}

/** Throws `generic` unless both fields are positive finite numbers. */
export function validateRequestTimeoutPolicy(policy: Readonly<RequestTimeoutPolicy>): RequestTimeoutPolicy {
  for (const field of ["baseMs", "minThroughputBytesPerSec"] as const) {
    const value = policy[field];
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new DeltaLiteError(
        "generic",
        `request timeout ${field} must be a positive number (got ${value})`,
      );
    }
  }
  return { baseMs: policy.baseMs, minThroughputBytesPerSec: policy.minThroughputBytesPerSec };
}

/**
 * The policy from `DELTALITE_REQUEST_TIMEOUT_MS` and `DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC` (positive whole
 * numbers; unset or empty means the default). A malformed value fails with `generic`, naming the variable.
 */
export function requestTimeoutPolicyFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): RequestTimeoutPolicy {
  return {
    baseMs: positiveIntegerFromEnv(env, REQUEST_TIMEOUT_ENV) ?? DEFAULT_REQUEST_TIMEOUT_POLICY.baseMs,
    minThroughputBytesPerSec:
      positiveIntegerFromEnv(env, MIN_THROUGHPUT_ENV) ??
      DEFAULT_REQUEST_TIMEOUT_POLICY.minThroughputBytesPerSec,
  };
}

function positiveIntegerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const text = raw.trim();
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value <= 0) {
    throw new DeltaLiteError(
      "generic",
      `environment variable ${name} must be a positive whole number (got ${JSON.stringify(raw)})`,
    );
  }
  return value;
}

const DURATION_UNIT_MS: Record<string, number> = {
  nsec: 1e-6,
  ns: 1e-6,
  usec: 1e-3,
  us: 1e-3,
  msec: 1,
  ms: 1,
  seconds: 1000,
  second: 1000,
  sec: 1000,
  s: 1000,
  minutes: 60_000,
  minute: 60_000,
  min: 60_000,
  m: 60_000,
  hours: 3_600_000,
  hour: 3_600_000,
  hr: 3_600_000,
  h: 3_600_000,
  days: 86_400_000,
  day: 86_400_000,
  d: 86_400_000,
  weeks: 604_800_000,
  week: 604_800_000,
  w: 604_800_000,
};

/**
 * Parses a duration the way delta-rs's `timeout` storage option is written (humantime: `30s`, `500ms`,
 * `2m 30s`, `1h`): whole numbers with a unit, several parts summed. Returns whole milliseconds (rounded up);
 * fails with `generic`, naming `name`, on anything else or on a zero duration.
 */
export function parseDurationMs(name: string, text: string): number {
  const fail = () =>
    new DeltaLiteError(
      "generic",
      `${name} must be a duration such as "30s", "500ms" or "2m 30s" (got ${JSON.stringify(text)})`,
    );
  const trimmed = text.trim();
  if (!/^(\d+\s*[a-z]+\s*)+$/i.test(trimmed)) throw fail();
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)\s*([a-z]+)/gi)) {
    const perUnit = DURATION_UNIT_MS[unit ?? ""];
    if (perUnit === undefined) throw fail();
    total += Number(amount) * perUnit;
  }
  const ms = Math.ceil(total);
  if (!Number.isSafeInteger(ms) || ms <= 0) throw fail();
  return ms;
}

export interface TimedRequest {
  /** What the request does, as messages name it (`get`, `head`, `list`, …). */
  method: StoreMethod | string;
  /** Root of the store and key (or listing prefix) of the request, for the message. */
  root: string;
  key: string;
  deadlineMs: number;
  /** The caller's signal: when it fires, the request fails with `aborted` (not `timeout`). */
  signal?: AbortSignal | undefined;
}

/**
 * Runs one request under a deadline. `run` gets a signal linked to the caller's that also fires when the
 * deadline passes; the returned promise settles with the request, or with `timeout` / `aborted` as soon as
 * the deadline passes or the caller aborts, even if `run` ignores its signal. The timer is cleared on settle.
 */
export function withRequestDeadline<T>(
  request: TimedRequest,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return guarded(request, request.signal, (signal, clock) => {
    clock.arm(request.deadlineMs);
    return run(signal);
  });
}

/** The timer of a guarded call: armed while the store owes an answer, disarmed while the caller works. */
interface RequestClock {
  arm(deadlineMs: number): void;
  disarm(): void;
}

function guarded<T>(
  where: { method: string; root: string; key: string },
  callerSignal: AbortSignal | undefined,
  run: (signal: AbortSignal, clock: RequestClock) => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const controller = new AbortController();
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const disarm = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      disarm();
      callerSignal?.removeEventListener("abort", onCallerAbort);
      finish();
    };
    const fail = (error: unknown, abortInner: boolean) =>
      settle(() => {
        if (abortInner) controller.abort(error);
        reject(error);
      });
    function onCallerAbort() {
      fail(aborted(where.root, where.key), true);
    }
    const clock: RequestClock = {
      arm(deadlineMs) {
        disarm();
        if (settled) return;
        timer = setTimeout(() => fail(timeoutError(where, deadlineMs), true), timerDelay(deadlineMs));
      },
      disarm,
    };
    if (callerSignal?.aborted) return onCallerAbort();
    callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
    let pending: Promise<T>;
    try {
      pending = run(controller.signal, clock);
    } catch (error) {
      return fail(error, false);
    }
    pending.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => fail(error, false),
    );
  });
}

function timerDelay(deadlineMs: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(deadlineMs)));
}

function timeoutError(where: { method: string; root: string; key: string }, deadlineMs: number) {
  return new DeltaLiteError(
    "timeout",
    `${where.method} ${joinDisplay(where.root, where.key)} got no answer within its request deadline of ${Math.ceil(deadlineMs)} ms`,
    { retryable: true },
  );
}

function rangeLength(range: ByteRange): number {
  const length = range.end - range.start;
  return Number.isFinite(length) && length > 0 ? length : 0;
}

/**
 * A store whose every call has a deadline (`requestDeadlineMs` of its payload): `get` (a ranged GET by the
 * range length; a whole GET by the size this wrapper last saw for the key from `head`, `list`, `put` or a
 * GET, else the base), `head`, `put` (body length), `delete`, and each page of `list` (every `next()`; the
 * time the caller spends between pages is not counted). `putMultipart` runs its clock only while the store
 * holds it — from handing the store a chunk until it asks for the next, and from the last chunk until the
 * upload settles — and each such stretch may last the deadline of one part (`partSizeBytes`, default
 * 16 MiB) plus the base for the create/complete request; time the caller's chunk source takes is not counted.
 */
export class TimeoutStore implements ObjectStore {
  readonly root: string;
  readonly policy: Readonly<RequestTimeoutPolicy>;
  readonly #inner: ObjectStore;
  readonly #sizes = new Map<string, number>();

  constructor(inner: ObjectStore, policy: Readonly<RequestTimeoutPolicy> = DEFAULT_REQUEST_TIMEOUT_POLICY) {
    this.#inner = inner;
    this.root = inner.root;
    this.policy = Object.freeze(validateRequestTimeoutPolicy(policy));
    // A local file read in place is no request: nothing to time.
    const localPath = inner.localPath?.bind(inner);
    if (localPath) this.localPath = localPath;
    const localTarget = inner.localTarget?.bind(inner);
    if (localTarget) this.localTarget = localTarget;
  }

  /** The inner store's local target of a key, when it has local targets (a file written in place). */
  readonly localTarget?: (key: string, options?: SignalOptions) => Promise<LocalFileTarget>;

  /** The inner store's local path of a key, when it has local paths. */
  readonly localPath?: (key: string) => string;

  get capabilities() {
    return this.#inner.capabilities;
  }

  #remember(key: string, size: number): void {
    this.#sizes.delete(key);
    this.#sizes.set(key, size);
    if (this.#sizes.size > SIZE_HINT_CAPACITY) {
      const oldest = this.#sizes.keys().next().value;
      if (oldest !== undefined) this.#sizes.delete(oldest);
    }
  }

  #request<T>(
    method: StoreMethod,
    key: string,
    payloadBytes: number | undefined,
    signal: AbortSignal | undefined,
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const deadlineMs = requestDeadlineMs(this.policy, payloadBytes);
    return withRequestDeadline({ method, root: this.root, key, deadlineMs, signal }, run);
  }

  async get(key: string, options: GetOptions = {}): Promise<Uint8Array> {
    const payload = options.range ? rangeLength(options.range) : this.#sizes.get(key);
    const data = await this.#request("get", key, payload, options.signal, (signal) =>
      this.#inner.get(key, { ...options, signal }),
    );
    if (!options.range) this.#remember(key, data.length);
    return data;
  }

  async head(key: string, options: SignalOptions = {}): Promise<ObjectMeta> {
    const meta = await this.#request("head", key, 0, options.signal, (signal) =>
      this.#inner.head(key, { ...options, signal }),
    );
    this.#remember(key, meta.size);
    return meta;
  }

  async put(key: string, data: Uint8Array, options: PutOptions = {}): Promise<PutResult> {
    const result = await this.#request("put", key, data.length, options.signal, (signal) =>
      this.#inner.put(key, data, { ...options, signal }),
    );
    this.#remember(key, data.length);
    return result;
  }

  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: MultipartPutOptions = {},
  ): Promise<PutResult> {
    const stretchMs =
      requestDeadlineMs(this.policy, options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES) + this.policy.baseMs;
    let streamed = 0;
    const result = await guarded(
      { method: "putMultipart", root: this.root, key },
      options.signal,
      (signal, clock) => {
        async function* clocked(): AsyncIterable<Uint8Array> {
          clock.disarm();
          for await (const chunk of chunks) {
            streamed += chunk.length;
            clock.arm(stretchMs);
            yield chunk;
            clock.disarm();
            // A store that ignores its signal gets no more of the caller's chunks once the upload failed.
            if (signal.aborted) throw signal.reason;
          }
          clock.arm(stretchMs);
        }
        clock.arm(stretchMs);
        return this.#inner.putMultipart(key, clocked(), { ...options, signal });
      },
    );
    this.#remember(key, streamed);
    return result;
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta> {
    const listing = new AbortController();
    const iterator = this.#inner.list(prefix, { ...options, signal: listing.signal })[Symbol.asyncIterator]();
    let done = false;
    try {
      for (;;) {
        const step = await this.#request("list", prefix, 0, options.signal, (signal) => {
          signal.addEventListener("abort", () => listing.abort(signal.reason), { once: true });
          return iterator.next();
        });
        if (step.done) {
          done = true;
          return;
        }
        this.#remember(step.value.key, step.value.size);
        yield step.value;
      }
    } finally {
      if (!done) {
        listing.abort(aborted(this.root, prefix));
        void iterator.return?.()?.catch(() => undefined);
      }
    }
  }

  async delete(key: string, options: SignalOptions = {}): Promise<void> {
    this.#sizes.delete(key);
    await this.#request("delete", key, 0, options.signal, (signal) =>
      this.#inner.delete(key, { ...options, signal }),
    );
  }
  /** A walk of local folders, not one request: no request deadline. */
  async removeStaleTempFiles(
    prefix: string,
    olderThanMs: number,
    options?: TempSweepOptions,
  ): Promise<string[]> {
    return (await this.#inner.removeStaleTempFiles?.(prefix, olderThanMs, options)) ?? [];
  }
}

/** Wraps `store` so that every call has a request deadline (see `TimeoutStore`). */
export function withRequestTimeouts(
  store: ObjectStore,
  policy: Readonly<RequestTimeoutPolicy> = DEFAULT_REQUEST_TIMEOUT_POLICY,
): TimeoutStore {
  return new TimeoutStore(store, policy);
}
