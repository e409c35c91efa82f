/**
 * Ranged GETs for the column chunks a read needs: ranges closer than `coalesceGapBytes` are merged into one
 * request, merged ranges larger than `partSizeBytes` are split into parts, and at most `concurrency`
 * requests are in flight. Each requested range comes back as a view of its merged buffer.
 */
import type { ObjectStore } from "@deltalite/object-store";

export interface ByteSpan {
  start: number;
  end: number;
}

export interface FetchRangesOptions {
  partSizeBytes: number;
  /** Requests in flight at once for this call (ignored when `limiter` is given). */
  concurrency: number;
  coalesceGapBytes: number;
  /** A limiter shared by several calls (a reader's read-ahead), so their sum stays within its limit. */
  limiter?: RequestLimiter | undefined;
  signal?: AbortSignal | undefined;
}

/** A FIFO counting semaphore over async tasks. */
export class RequestLimiter {
  readonly limit: number;
  #active = 0;
  #waiting: (() => void)[] = [];
  constructor(limit: number) {
    this.limit = Math.max(1, limit);
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}

interface Merged extends ByteSpan {
  members: number[];
}

/** Merges sorted spans whose gap is at most `gap`; keeps the index of every original span. */
export function coalesceSpans(spans: readonly ByteSpan[], gap: number): Merged[] {
  const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.start - spans[b]!.start);
  const merged: Merged[] = [];
  for (const i of order) {
    const span = spans[i]!;
    const last = merged[merged.length - 1];
    if (last && span.start - last.end <= gap) {
      last.end = Math.max(last.end, span.end);
      last.members.push(i);
    } else {
      merged.push({ start: span.start, end: span.end, members: [i] });
    }
  }
  return merged;
}

/** Splits a span into consecutive parts of at most `partSize` bytes. */
export function splitSpan(span: ByteSpan, partSize: number): ByteSpan[] {
  const parts: ByteSpan[] = [];
  for (let start = span.start; start < span.end; start += partSize) {
    parts.push({ start, end: Math.min(span.end, start + partSize) });
  }
  return parts;
}

/** Fetches `spans` of `key`; result[i] holds the bytes of spans[i]. */
export async function fetchRanges(
  store: ObjectStore,
  key: string,
  spans: readonly ByteSpan[],
  options: FetchRangesOptions,
): Promise<Uint8Array[]> {
  const merged = coalesceSpans(spans, options.coalesceGapBytes);
  const partSize = Math.max(1, options.partSizeBytes);
  const buffers = merged.map((m) =>
    m.end - m.start > partSize ? new Uint8Array(m.end - m.start) : undefined,
  );
  const whole: (Uint8Array | undefined)[] = merged.map(() => undefined);
  const tasks: (() => Promise<void>)[] = [];
  merged.forEach((m, mi) => {
    for (const part of splitSpan(m, partSize)) {
      tasks.push(async () => {
        const bytes = await store.get(key, { range: part, signal: options.signal });
        const target = buffers[mi];
        if (target) target.set(bytes, part.start - m.start);
        else whole[mi] = bytes;
      });
    }
  });
  const limiter = options.limiter ?? new RequestLimiter(options.concurrency);
  await settleAll(tasks.map((task) => limiter.run(task)));
  const out: Uint8Array[] = new Array(spans.length);
  merged.forEach((m, mi) => {
    const buffer = buffers[mi] ?? whole[mi] ?? new Uint8Array(0); // an empty span needs no GET
    for (const i of m.members) {
      const span = spans[i]!;
      out[i] = buffer.subarray(span.start - m.start, span.end - m.start);
    }
  });
  return out;
}

/** Waits for every task; rethrows the first failure once all have settled (no request left running). */
async function settleAll(tasks: Promise<void>[]): Promise<void> {
  const results = await Promise.allSettled(tasks);
  const failure = results.find((r) => r.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
}
