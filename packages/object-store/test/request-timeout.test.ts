import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_REQUEST_TIMEOUT_POLICY,
  InMemoryStore,
  LocalFileStore,
  listAll,
  type ObjectStore,
  openStore,
  parseDurationMs,
  type RequestTimeoutPolicy,
  requestDeadlineMs,
  requestTimeoutPolicyFromEnv,
  type StoreMethod,
  TimeoutStore,
  withRequestDeadline,
  withRequestTimeouts,
} from "../src/index.js";
import { FaultyStore, runObjectStoreContract } from "../src/testing-entry.js";

const MiB = 1024 * 1024;
const bytes = (n: number) => new Uint8Array(n).fill(7);
const fast: RequestTimeoutPolicy = { baseMs: 200, minThroughputBytesPerSec: MiB };

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

async function failure(promise: Promise<unknown>): Promise<DeltaLiteError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!isDeltaLiteError(outcome)) throw new Error(`expected a DeltaLiteError, got ${String(outcome)}`);
  return outcome;
}

/** The calls of each method that the hang tests stall, all against the key "k" (or prefix "k"). */
const CALLS: Record<StoreMethod, (store: ObjectStore, signal?: AbortSignal) => Promise<unknown>> = {
  get: (s, signal) => s.get("k", { signal }),
  head: (s, signal) => s.head("k", { signal }),
  put: (s, signal) => s.put("k", bytes(3), { signal }),
  putMultipart: (s, signal) => s.putMultipart("k", [bytes(3), bytes(4)], { signal, partSizeBytes: 1024 }),
  list: (s, signal) => listAll(s, "k", { signal }),
  delete: (s, signal) => s.delete("k", { signal }),
};
const METHODS = Object.keys(CALLS) as StoreMethod[];

async function hangingStore(method: StoreMethod): Promise<{ store: TimeoutStore; faulty: FaultyStore }> {
  const inner = new InMemoryStore();
  await inner.put("k", bytes(3));
  const faulty = new FaultyStore(inner, [{ method, fault: { type: "hang" } }]);
  return { store: withRequestTimeouts(faulty, fast), faulty };
}

/** Active `setTimeout` handles of this process (Node's own view, not a count we keep ourselves). */
const activeTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("requestDeadlineMs", () => {
  it.each([
    ["no payload", 0, 30_000],
    ["exactly 8 MiB", 8 * MiB, 30_000],
    ["8 MiB + 1 byte (rounded up to a whole ms)", 8 * MiB + 1, 30_001],
    ["8 MiB + 10 MiB", 18 * MiB, 40_000],
    ["128 MiB (a large checkpoint read)", 128 * MiB, 150_000],
  ])("at the SPEC defaults: %s → %d ms", (_, payload, expected) => {
    expect(requestDeadlineMs(DEFAULT_REQUEST_TIMEOUT_POLICY, payload)).toBe(expected);
  });

  it("adds (payload beyond 8 MiB) / minimum throughput, and never goes below the base", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600_000 }),
        fc.integer({ min: 1, max: 1 << 30 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (baseMs, throughput, payload) => {
          const policy = { baseMs, minThroughputBytesPerSec: throughput };
          const deadline = requestDeadlineMs(policy, payload);
          // In ms, bytes × 1000 first: (bytes / throughput) × 1000 rounds differently at 10^13 ms and more
          // (CI seed -1768025742: 68766294538600 against 68766294538600.01).
          const extraMs = (Math.max(0, payload - 8 * MiB) * 1000) / throughput;
          expect(deadline).toBeGreaterThanOrEqual(baseMs);
          expect(deadline - baseMs).toBeGreaterThanOrEqual(extraMs);
          expect(deadline - baseMs).toBeLessThan(extraMs + 1);
          expect(requestDeadlineMs(policy, payload + MiB)).toBeGreaterThanOrEqual(deadline);
        },
      ),
      { examples: [[1, 15, 1031502806687]] },
    );
  });
});

describe("request timeout policy from the environment and from delta-rs's timeout option", () => {
  it("defaults to 30 s and 1 MiB/s; reads both variables; treats empty as unset", () => {
    expect(requestTimeoutPolicyFromEnv({})).toEqual({ baseMs: 30_000, minThroughputBytesPerSec: MiB });
    expect(
      requestTimeoutPolicyFromEnv({
        DELTALITE_REQUEST_TIMEOUT_MS: "1500",
        DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC: " 4194304 ",
      }),
    ).toEqual({ baseMs: 1500, minThroughputBytesPerSec: 4 * MiB });
    expect(requestTimeoutPolicyFromEnv({ DELTALITE_REQUEST_TIMEOUT_MS: "" }).baseMs).toBe(30_000);
  });

  it.each([
    ["DELTALITE_REQUEST_TIMEOUT_MS", "30s"],
    ["DELTALITE_REQUEST_TIMEOUT_MS", "0"],
    ["DELTALITE_REQUEST_TIMEOUT_MS", "-5"],
    ["DELTALITE_REQUEST_TIMEOUT_MS", "1.5"],
    ["DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC", "1MiB"],
    ["DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC", "99999999999999999999"],
  ])("rejects %s=%j with kind generic naming the variable", (name, value) => {
    let error: unknown;
    try {
      requestTimeoutPolicyFromEnv({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(isDeltaLiteError(error) && error.kind).toBe("generic");
    expect((error as Error).message).toContain(name);
  });

  it.each([
    ["30s", 30_000],
    ["500ms", 500],
    ["2m 30s", 150_000],
    ["1h", 3_600_000],
    ["1500us", 2],
    ["10 seconds", 10_000],
  ])("parses the duration %j as %d ms", (text, ms) => {
    expect(parseDurationMs("timeout", text)).toBe(ms);
  });

  it.each([["30"], ["0s"], ["s"], ["30 parsecs"], ["1.5s"], [""]])("refuses the duration %j", (text) => {
    expect(() => parseDurationMs("storage option TIMEOUT", text)).toThrow(/storage option TIMEOUT/);
  });
});

describe("TimeoutStore over a call that never answers", () => {
  it.each(METHODS)("%s fails with kind timeout (retryable) soon after its deadline", async (method) => {
    const { store, faulty } = await hangingStore(method);
    const t0 = performance.now();
    const error = await failure(CALLS[method](store));
    const elapsed = performance.now() - t0;
    expect(faulty.fired).toBe(1);
    expect(error.kind).toBe("timeout");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(method);
    expect(error.message).toContain("memory://");
    expect(error.message).toContain("/k");
    // A multipart stretch may last one part's deadline plus the base (for the create/complete request).
    const deadline = method === "putMultipart" ? 400 : 200;
    expect(error.message).toContain(`deadline of ${deadline} ms`);
    expect(elapsed).toBeGreaterThanOrEqual(deadline - 10);
    expect(elapsed).toBeLessThan(2_000);
  });

  it.each(METHODS)("%s still fails with kind aborted when the caller aborts first", async (method) => {
    const { store } = await hangingStore(method);
    const slow = withRequestTimeouts(store, { ...fast, baseMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const t0 = performance.now();
    const error = await failure(CALLS[method](slow, controller.signal));
    expect(error.kind).toBe("aborted");
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it("an already aborted caller signal fails with aborted without waiting", async () => {
    const { store } = await hangingStore("get");
    const error = await failure(store.get("k", { signal: AbortSignal.abort() }));
    expect(error.kind).toBe("aborted");
  });

  it("aborts the stalled inner call through its signal (the inner call ends too, not only the race)", async () => {
    const inner = new InMemoryStore();
    let innerOutcome: unknown = "still pending";
    const observed: ObjectStore = {
      root: inner.root,
      capabilities: inner.capabilities,
      get: (key, options) => {
        const pending = new FaultyStore(inner, [{ method: "get", fault: { type: "hang" } }]).get(
          key,
          options,
        );
        pending.catch((e: unknown) => {
          innerOutcome = e;
        });
        return pending;
      },
      head: (k, o) => inner.head(k, o),
      put: (k, d, o) => inner.put(k, d, o),
      putMultipart: (k, c, o) => inner.putMultipart(k, c, o),
      list: (p, o) => inner.list(p, o),
      delete: (k, o) => inner.delete(k, o),
    };
    await inner.put("k", bytes(1));
    const error = await failure(withRequestTimeouts(observed, fast).get("k"));
    expect(error.kind).toBe("timeout");
    await new Promise((r) => setTimeout(r, 20));
    expect(isDeltaLiteError(innerOutcome) && innerOutcome.kind).toBe("aborted");
  });

  it("rejects on time even when the inner call ignores its signal", async () => {
    let release!: () => void;
    const deaf = new Promise<number>((resolve) => {
      release = () => resolve(1);
    });
    const t0 = performance.now();
    const error = await failure(
      withRequestDeadline({ method: "get", root: "memory://deaf", key: "k", deadlineMs: 100 }, () => deaf),
    );
    expect(error.kind).toBe("timeout");
    expect(performance.now() - t0).toBeLessThan(1_000);
    release();
  });

  it("a listing gets its deadline per page: a slow consumer between pages is not timed out", async () => {
    const inner = new InMemoryStore();
    for (const k of ["k1", "k2", "k3"]) await inner.put(k, bytes(1));
    const store = withRequestTimeouts(inner, { ...fast, baseMs: 100 });
    const seen: string[] = [];
    for await (const meta of store.list("k")) {
      seen.push(meta.key);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(seen).toEqual(["k1", "k2", "k3"]);
  });

  it("a multipart upload does not count the time its chunk source takes, only the store's", async () => {
    const store = withRequestTimeouts(new InMemoryStore(), { ...fast, baseMs: 100 });
    async function* slowSource() {
      for (let i = 0; i < 3; i++) {
        // Longer than a whole stretch (100 ms for the part + 100 ms base): counted, it would time out.
        await new Promise((r) => setTimeout(r, 250));
        yield bytes(10);
      }
    }
    await store.putMultipart("slow", slowSource(), { partSizeBytes: 1024 });
    expect((await store.head("slow")).size).toBe(30);

    const stalled = withRequestTimeouts(
      new FaultyStore(new InMemoryStore(), [{ method: "putMultipart", fault: { type: "hang" } }]),
      { ...fast, baseMs: 100 },
    );
    const error = await failure(stalled.putMultipart("k", slowSource(), { partSizeBytes: 1024 }));
    expect(error.kind).toBe("timeout");
  });
});

describe("TimeoutStore over a multipart upload whose store ignores its signal", () => {
  it("stops feeding it the caller's chunks once the deadline passed, and closes the source", async () => {
    const inner = new InMemoryStore();
    let pulled = 0;
    let sourceClosed = false;
    const deaf: ObjectStore = {
      root: inner.root,
      capabilities: inner.capabilities,
      get: (k, o) => inner.get(k, o),
      head: (k, o) => inner.head(k, o),
      put: (k, d, o) => inner.put(k, d, o),
      // Takes 300 ms per chunk and never looks at its signal.
      putMultipart: async (_key, chunks) => {
        for await (const _ of chunks) await new Promise((r) => setTimeout(r, 300));
        return { etag: undefined };
      },
      list: (p, o) => inner.list(p, o),
      delete: (k, o) => inner.delete(k, o),
    };
    async function* source() {
      try {
        for (let i = 0; i < 5; i++) {
          pulled += 1;
          yield bytes(10);
        }
      } finally {
        sourceClosed = true;
      }
    }
    const store = withRequestTimeouts(deaf, { baseMs: 50, minThroughputBytesPerSec: MiB });
    const t0 = performance.now();
    const error = await failure(store.putMultipart("k", source(), { partSizeBytes: 1024 }));
    expect(error.kind).toBe("timeout");
    expect(performance.now() - t0).toBeLessThan(300);
    await new Promise((r) => setTimeout(r, 400));
    expect(pulled).toBe(1);
    expect(sourceClosed).toBe(true);
  });
});

describe("TimeoutStore timers", () => {
  it("clears its timer when a call settles: no Timeout handle outlives the calls", async () => {
    const store = withRequestTimeouts(new InMemoryStore(), { ...fast, baseMs: 60_000 });
    await store.put("k", bytes(5));
    const before = activeTimers();
    const pending = Array.from({ length: 20 }, () => store.get("k"));
    // The check can fail: while the calls run, their 20 timers are visible to Node.
    expect(activeTimers()).toBeGreaterThanOrEqual(before + 20);
    await Promise.all(pending);
    for (const method of METHODS) await CALLS[method](store);
    expect(activeTimers()).toBeLessThanOrEqual(before);
  });

  it("clears its timer when a call fails, is aborted by its caller, or times out", async () => {
    const { store: hanging } = await hangingStore("head");
    const store = withRequestTimeouts(hanging, { ...fast, baseMs: 60_000 });
    const before = activeTimers();
    // Ten of each: a leaked 60 s timer per call would show as at least ten extra handles.
    for (let i = 0; i < 10; i++) {
      expect((await failure(store.get(`missing-${i}`))).kind).toBe("not_found");
      const controller = new AbortController();
      const pending = store.head("k", { signal: controller.signal });
      controller.abort();
      expect((await failure(pending)).kind).toBe("aborted");
    }
    expect((await failure(hanging.head("k"))).kind).toBe("timeout");
    expect(activeTimers()).toBeLessThan(before + 10);
  });
});

describe("TimeoutStore deadlines scale with the payload", () => {
  /** Records the deadline each call got by stalling it and measuring when the timeout arrives. */
  async function deadlineOf(call: (store: ObjectStore) => Promise<unknown>, policy: RequestTimeoutPolicy) {
    const inner = new InMemoryStore();
    await inner.put("big", bytes(9 * MiB));
    const store = withRequestTimeouts(
      new FaultyStore(inner, [{ method: "*", fault: { type: "hang" } }]),
      policy,
    );
    const error = await failure(call(store));
    expect(error.kind).toBe("timeout");
    return Number(/within its request deadline of (\d+) ms/.exec(error.message)?.[1]);
  }
  // 1 MiB beyond the free 8 MiB at 4 MiB/s = +250 ms on a 100 ms base.
  const policy = { baseMs: 100, minThroughputBytesPerSec: 4 * MiB };

  it("a ranged GET by its range length, a PUT by its body length", async () => {
    expect(await deadlineOf((s) => s.get("big", { range: { start: 0, end: 9 * MiB } }), policy)).toBe(350);
    expect(await deadlineOf((s) => s.get("big", { range: { start: 0, end: MiB } }), policy)).toBe(100);
    expect(await deadlineOf((s) => s.put("x", bytes(9 * MiB)), policy)).toBe(350);
    expect(await deadlineOf((s) => s.head("big"), policy)).toBe(100);
  });

  it("a whole GET by the size the wrapper last saw for the key, else the base", async () => {
    const inner = new InMemoryStore();
    await inner.put("big", bytes(9 * MiB));
    const faulty = new FaultyStore(inner);
    const store = withRequestTimeouts(faulty, policy);
    faulty.addRule({ method: "get", fault: { type: "hang" } });
    const unknownSize = await failure(store.get("big"));
    expect(unknownSize.message).toContain("deadline of 100 ms");
    await store.head("big");
    const knownSize = await failure(store.get("big"));
    expect(knownSize.message).toContain("deadline of 350 ms");
  });
});

describe("openStore applies request deadlines to S3 only, unless asked", () => {
  it("leaves memory:// and file:// stores unwrapped by default", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-timeout-"));
    dirs.push(dir);
    expect(openStore(dir)).toBeInstanceOf(LocalFileStore);
    expect(openStore("memory://timeouts-default")).not.toBeInstanceOf(TimeoutStore);
  });

  it("wraps any store on request, explicit fields winning over the environment", () => {
    const env = { DELTALITE_REQUEST_TIMEOUT_MS: "1234", DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC: "99" };
    const store = openStore("memory://timeouts-opt-in/sub", { requestTimeout: true, env });
    expect(store).toBeInstanceOf(TimeoutStore);
    expect((store as TimeoutStore).policy).toEqual({ baseMs: 1234, minThroughputBytesPerSec: 99 });
    expect(store.root).toBe("memory://timeouts-opt-in/sub");
    const partial = openStore("memory://timeouts-opt-in", { requestTimeout: { baseMs: 50 }, env });
    expect((partial as TimeoutStore).policy).toEqual({ baseMs: 50, minThroughputBytesPerSec: 99 });
  });

  it("keeps the wrapped store's capabilities", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-timeout-"));
    dirs.push(dir);
    const local = openStore(dir, { requestTimeout: true });
    expect(local.capabilities).toEqual(new LocalFileStore(dir).capabilities);
    expect(openStore("memory://caps", { requestTimeout: true }).capabilities).toEqual({ ifMatch: true });
  });

  it("reports a malformed environment variable only when deadlines are wanted", () => {
    const env = { DELTALITE_REQUEST_TIMEOUT_MS: "soon" };
    expect(() => openStore("memory://timeouts-env", { env })).not.toThrow();
    expect(() => openStore("memory://timeouts-env", { env, requestTimeout: true })).toThrow(
      /DELTALITE_REQUEST_TIMEOUT_MS/,
    );
    expect(() => openStore("s3://timeouts-env", { env })).toThrow(/DELTALITE_REQUEST_TIMEOUT_MS/);
    expect(() => openStore("memory://timeouts-env", { requestTimeout: { baseMs: 0 } })).toThrow(/baseMs/);
  });
});

runObjectStoreContract("memory, with request deadlines", () => withRequestTimeouts(new InMemoryStore()), {
  partSizeBytes: 64 * 1024,
});

runObjectStoreContract(
  "local file system, with request deadlines (via openStore)",
  async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-timeout-contract-"));
    dirs.push(dir);
    return openStore(dir, { requestTimeout: { baseMs: 10_000 } });
  },
  { partSizeBytes: 64 * 1024 },
);

describe("a timed-out request names where, never what is inside", () => {
  it("the error serialises to kind, message and retryable only", async () => {
    const { store } = await hangingStore("get");
    const error = await failure(store.get("k"));
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      kind: "timeout",
      message: error.message,
      retryable: true,
    });
    expect(error).toBeInstanceOf(DeltaLiteError);
  });
});
