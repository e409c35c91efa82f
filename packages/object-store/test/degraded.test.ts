// The degraded-store wrappers the log-request probes are tested against, and the CountingStore's record of
// failed requests (a 404 GET is a request too).
import { hasErrorKind } from "@deltalite/errors";
import { describe, expect, it } from "vitest";
import { InMemoryStore, listAll } from "../src/index.js";
import { CountingStore, EtaglessStore, StaleNotFoundStore } from "../src/testing-entry.js";

const text = (s: string) => new TextEncoder().encode(s);
const kindOf = (p: Promise<unknown>) =>
  p.then(
    () => "no error",
    (e: unknown) => (hasErrorKind(e, "not_found") ? "not_found" : String(e)),
  );

describe("EtaglessStore", () => {
  it("reports no etag on put, head and list, and no ifMatch capability", async () => {
    const inner = new InMemoryStore();
    const store = new EtaglessStore(inner);
    expect(await store.put("a", text("x"))).toEqual({ etag: undefined });
    expect((await store.head("a")).etag).toBeUndefined();
    expect((await listAll(store, "")).map((m) => m.etag)).toEqual([undefined]);
    expect((await inner.head("a")).etag).toBeTypeOf("string");
    expect(store.capabilities.ifMatch).toBe(false);
  });
});

describe("StaleNotFoundStore", () => {
  it("answers not_found on GET and HEAD of hidden keys while LIST sees them", async () => {
    const store = new StaleNotFoundStore(new InMemoryStore(), (key) => key === "b");
    await store.put("a", text("1"));
    await store.put("b", text("2"));
    expect(await kindOf(store.get("b"))).toBe("not_found");
    expect(await kindOf(store.head("b"))).toBe("not_found");
    expect(new TextDecoder().decode(await store.get("a"))).toBe("1");
    expect((await listAll(store, "")).map((m) => m.key)).toEqual(["a", "b"]);
    expect(store.staleAnswers).toBe(2);
    store.hide(() => false);
    expect(new TextDecoder().decode(await store.get("b"))).toBe("2");
  });
});

describe("CountingStore failures", () => {
  it("records failed GETs and HEADs apart from the counted calls; requests() counts both", async () => {
    const store = new CountingStore(new InMemoryStore());
    await store.put("a", text("1"));
    await store.get("a");
    expect(await kindOf(store.get("missing"))).toBe("not_found");
    expect(await kindOf(store.head("missing"))).toBe("not_found");
    expect(store.counts.get.calls).toBe(1);
    expect(store.failures).toEqual([
      { method: "get", key: "missing", kind: "not_found" },
      { method: "head", key: "missing", kind: "not_found" },
    ]);
    expect(store.requests("get")).toBe(2);
    expect(store.requests("head")).toBe(1);
    store.reset();
    expect(store.failures).toEqual([]);
  });
});
