import { DeltaLiteError } from "@deltalite/errors";
import { describe, expect, it } from "vitest";
import { InMemoryStore, listAll } from "../src/index.js";
import { CountingStore, FaultyStore } from "../src/testing-entry.js";

const bytes = (n: number) => new Uint8Array(n).fill(1);

describe("CountingStore", () => {
  it("counts calls and bytes per method and logs ranged requests", async () => {
    const store = new CountingStore(new InMemoryStore());
    await store.put("a", bytes(100));
    await store.putMultipart("b", [bytes(10), bytes(20)]);
    await store.get("a");
    await store.get("a", { range: { start: 90, end: 100 } });
    await store.head("b");
    await listAll(store, "");
    await store.delete("a");
    expect(store.counts).toEqual({
      put: { calls: 1, bytes: 100 },
      putMultipart: { calls: 1, bytes: 30 },
      get: { calls: 2, bytes: 110 },
      head: { calls: 1, bytes: 0 },
      list: { calls: 1, bytes: 2 },
      delete: { calls: 1, bytes: 0 },
    });
    expect(store.log.filter((r) => r.method === "get").map((r) => r.range)).toEqual([
      undefined,
      { start: 90, end: 100 },
    ]);
    expect(store.totalCalls).toBe(7);
    store.reset();
    expect(store.totalCalls).toBe(0);
  });
});

describe("FaultyStore", () => {
  it("fails only the chosen call with the chosen error", async () => {
    const inner = new InMemoryStore();
    const store = new FaultyStore(inner, [
      {
        method: "put",
        key: /_delta_log/,
        call: 2,
        fault: { type: "error", error: () => new DeltaLiteError("generic", "boom", { retryable: true }) },
      },
    ]);
    await store.put("_delta_log/0.json", bytes(1));
    const error = await store.put("_delta_log/1.json", bytes(1)).catch((e) => e);
    expect(error.kind).toBe("generic");
    expect(error.retryable).toBe(true);
    await store.put("_delta_log/2.json", bytes(1));
    await store.put("data.parquet", bytes(1));
    expect((await listAll(inner, "")).map((m) => m.key)).toEqual([
      "_delta_log/0.json",
      "_delta_log/2.json",
      "data.parquet",
    ]);
    expect(store.fired).toBe(1);
  });

  it("truncates bodies and delays calls", async () => {
    const store = new FaultyStore(new InMemoryStore(), [
      { method: "get", times: 1, fault: { type: "truncate", bytes: 3 } },
      { method: "head", fault: { type: "delay", ms: 50 } },
    ]);
    await store.put("k", bytes(10));
    expect((await store.get("k")).length).toBe(3);
    expect((await store.get("k")).length).toBe(10);
    const t0 = performance.now();
    await store.head("k");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);
  });

  it("a hung call never answers until its signal aborts, then fails with kind aborted", async () => {
    const store = new FaultyStore(new InMemoryStore(), [{ method: "get", fault: { type: "hang" } }]);
    await store.put("k", bytes(1));
    const controller = new AbortController();
    const pending = store.get("k", { signal: controller.signal });
    const raced = await Promise.race([
      pending.then(() => "answered"),
      new Promise((r) => setTimeout(() => r("still waiting"), 100)),
    ]);
    expect(raced).toBe("still waiting");
    controller.abort();
    expect((await pending.catch((e) => e)).kind).toBe("aborted");
  });
});
