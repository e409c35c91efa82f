/**
 * ProbeCache: LRU order and byte cap against a model over random operation sequences (property test),
 * the per-entry cap (maxBytes/8), the in-flight cap (maxBytes/4) of collections, hit/miss counters,
 * key spaces, invalidation (also of collections in flight), 0 = off, the environment variable (an invalid
 * value is a typed error where the process-wide cache is first sized, not at import) and the process-wide
 * functions; KeyHashSet and ProbeKeys against a Set<bigint>.
 */
import { isDeltaLiteError } from "@deltalite/errors";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  clearProbeCache,
  DEFAULT_PROBE_CACHE_BYTES,
  ENTRY_OVERHEAD_BYTES,
  globalProbeCache,
  KeyHashSet,
  ProbeCache,
  ProbeKeys,
  probeCacheBytesFromEnv,
  probeCacheStats,
  setProbeCacheMaxBytes,
} from "../src/index.js";

const TABLE = "s3://bucket/t";
const SPACE = "id:int|xxh64";

function words(hashes: readonly bigint[]): Uint32Array {
  return new Uint32Array(BigUint64Array.from(hashes).buffer);
}

function setOf(hashes: readonly bigint[]): KeyHashSet {
  return KeyHashSet.fromWords(words(hashes));
}

function bytesFor(path: string, distinct: number, table = TABLE, space = SPACE): number {
  return 8 * distinct + ENTRY_OVERHEAD_BYTES + 2 * (table.length + path.length + space.length);
}

describe("KeyHashSet", () => {
  it("answers membership like a Set<bigint>, dedupes, skips masked rows and intersects", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { maxLength: 60 }),
        fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { maxLength: 20 }),
        fc.array(fc.boolean(), { maxLength: 60 }),
        (stored, probes, mask) => {
          const all = [...stored, ...stored.slice(0, 5)]; // duplicates
          const skip = Uint8Array.from(all, (_, i) => (mask[i] ? 1 : 0));
          const set = KeyHashSet.fromWords(words(all), skip);
          const expected = new Set(all.filter((_, i) => !mask[i]));
          expect(set.size).toBe(expected.size);
          expect(set.byteLength).toBe(8 * expected.size);
          expect([...set.toHashes()]).toEqual([...expected].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
          for (const h of [...probes, ...all]) {
            const w = words([h]);
            expect(set.has(w[0] as number, w[1] as number)).toBe(expected.has(h));
          }
          expect(set.intersects(words(probes))).toBe(probes.some((h) => expected.has(h)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("ofOwnedWords sorts on first read: the same set as fromWords, counted at its given size until then", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { maxLength: 60 }),
        fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { maxLength: 20 }),
        (stored, probes) => {
          const all = [...stored, ...stored.slice(0, 5)]; // duplicates
          const eager = KeyHashSet.fromWords(words(all));
          const lazy = KeyHashSet.ofOwnedWords(words(all));
          expect(lazy.byteLength).toBe(8 * all.length);
          expect(lazy.intersects(words(probes))).toBe(eager.intersects(words(probes)));
          expect([...lazy.words]).toEqual([...eager.words]);
          expect(lazy.byteLength).toBe(eager.byteLength);
          expect(lazy.size).toBe(new Set(all).size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("ProbeKeys.sharedWith answers like the per-hash intersects, on sets of any sizes (both strategies)", () => {
    // Hashes from a small pool of words (equal lo words with other hi words, so filter slots collide; both
    // ends of the range) make shared and near-miss hashes frequent; sizes run from empty to a few hundred,
    // so both the scan and the per-source-key search run.
    const word = fc.constantFrom(0, 1, 2, 1024, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff);
    const hash = fc.tuple(word, word).map(([hi, lo]) => (BigInt(hi) << 32n) | BigInt(lo));
    const anyHash = fc.oneof(hash, fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));
    fc.assert(
      fc.property(
        fc.array(anyHash, { maxLength: 300 }),
        fc.array(anyHash, { maxLength: 300 }),
        (file, source) => {
          const expected = source.some((h) => new Set(file).has(h));
          expect(ProbeKeys.fromWords(words(source)).sharedWith(setOf(file))).toBe(expected);
          expect(setOf(file).intersects(words(source))).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("ProbeKeys finds one shared hash anywhere in a large file, from a small and from a large source", () => {
    const file = setOf(Array.from({ length: 5000 }, (_, i) => BigInt(i) * 0x1_0000_0001n));
    for (const at of [0, 1, 2499, 4998, 4999]) {
      const shared = BigInt(at) * 0x1_0000_0001n;
      const misses = Array.from({ length: 9000 }, (_, i) => BigInt(i) * 0x1_0000_0001n + 0x8000_0000n);
      expect(ProbeKeys.fromWords(words([shared + 1n, shared])).sharedWith(file)).toBe(true);
      expect(ProbeKeys.fromWords(words([...misses, shared])).sharedWith(file)).toBe(true);
      expect(ProbeKeys.fromWords(words(misses)).sharedWith(file)).toBe(false);
    }
    expect(ProbeKeys.fromWords(words([])).sharedWith(file)).toBe(false);
    expect(ProbeKeys.fromWords(words([0n])).sharedWith(setOf([]))).toBe(false);
  });
});

describe("ProbeCache", () => {
  it("evicts the least recently used entry first; a lookup refreshes an entry", () => {
    const one = bytesFor("a", 1);
    const cache = new ProbeCache(8 * one); // room for 8 one-hash entries; one entry may use maxBytes/8
    for (const p of ["a", "b", "c", "d", "e", "f", "g", "h"])
      expect(cache.put(TABLE, p, SPACE, setOf([1n]))).toBe(true);
    expect(cache.stats()).toMatchObject({ entries: 8, size: 8 * one });
    expect(cache.lookup(TABLE, "a", SPACE)).toBeDefined();
    expect(cache.put(TABLE, "i", SPACE, setOf([2n]))).toBe(true);
    expect(cache.keys().map(([, p]) => p)).toEqual(["c", "d", "e", "f", "g", "h", "a", "i"]);
  });

  it("refuses an entry above maxBytes/8 and keeps one at exactly maxBytes/8", () => {
    const distinct = 100;
    const exact = bytesFor("f", distinct);
    const cache = new ProbeCache(exact * 8);
    const hashes = Array.from({ length: distinct }, (_, i) => BigInt(i) * 7919n);
    expect(cache.put(TABLE, "f", SPACE, setOf(hashes))).toBe(true);
    expect(cache.put(TABLE, "g", SPACE, setOf([...hashes, 1n]))).toBe(false);
    expect(cache.has(TABLE, "g", SPACE)).toBe(false);
    expect(cache.stats().size).toBe(exact);
  });

  it("counts hits and misses; another key space is a miss; mayContainAny answers from the entry", () => {
    const cache = new ProbeCache(1 << 20);
    cache.put(TABLE, "f", SPACE, setOf([10n, 20n]));
    expect(cache.mayContainAny(TABLE, "f", SPACE, words([5n, 20n]))).toBe(true);
    expect(cache.mayContainAny(TABLE, "f", SPACE, words([5n, 6n]))).toBe(false);
    expect(cache.mayContainAny(TABLE, "f", SPACE, ProbeKeys.fromWords(words([5n, 20n])))).toBe(true);
    expect(cache.mayContainAny(TABLE, "f", SPACE, ProbeKeys.fromWords(words([5n, 6n])))).toBe(false);
    expect(cache.mayContainAny(TABLE, "f", "other-keys", words([20n]))).toBeUndefined();
    expect(cache.mayContainAny(TABLE, "g", SPACE, words([20n]))).toBeUndefined();
    expect(cache.mayContainAny("s3://bucket/other", "f", SPACE, words([20n]))).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 4, misses: 3, entries: 1 });
    cache.clear();
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 0, entries: 0, size: 0 });
  });

  it("invalidates removed files and whole tables", () => {
    const cache = new ProbeCache(1 << 20);
    for (const p of ["a", "b", "c"]) cache.put(TABLE, p, SPACE, setOf([1n]));
    cache.put("other", "a", SPACE, setOf([1n]));
    cache.invalidate(TABLE, ["a", "c", "missing"]);
    expect(cache.keys()).toEqual([
      [TABLE, "b"],
      ["other", "a"],
    ]);
    cache.invalidateTable(TABLE);
    expect(cache.keys()).toEqual([["other", "a"]]);
    expect(cache.stats().size).toBe(bytesFor("a", 1, "other"));
  });

  it("caps collections in flight at maxBytes/4 together, releases on abort, commits into the cache", () => {
    const cache = new ProbeCache(64 * 1024); // in flight ≤ 16 KiB, one entry ≤ 8 KiB
    const a = cache.beginCollection(TABLE, "a", SPACE);
    const b = cache.beginCollection(TABLE, "b", SPACE);
    const c = cache.beginCollection(TABLE, "c", SPACE);
    if (!a || !b || !c) throw new Error("cache is on");
    const chunk = (n: number, base: bigint) => words(Array.from({ length: n }, (_, i) => base + BigInt(i)));
    expect(a.add(chunk(900, 0n))).toBe(true); // 7200 B
    expect(b.add(chunk(900, 10_000n))).toBe(true); // 14400 B in flight
    expect(c.add(chunk(300, 20_000n))).toBe(false); // would be 16800 > 16384: c gives up
    expect(c.active).toBe(false);
    expect(cache.stats().inFlightBytes).toBe(14_400);
    expect(a.add(chunk(200, 30_000n))).toBe(false); // a would exceed the per-entry cap (8 KiB)
    expect(cache.stats().inFlightBytes).toBe(7200);
    expect(b.commit()).toBe(true);
    expect(cache.stats()).toMatchObject({ inFlightBytes: 0, entries: 1, size: bytesFor("b", 900) });
    expect(cache.mayContainAny(TABLE, "b", SPACE, words([10_899n]))).toBe(true);
    expect(a.commit()).toBe(false);
  });

  it("leaves NULL-key rows out of a collection (skip mask)", () => {
    const cache = new ProbeCache(1 << 20);
    const c = cache.beginCollection(TABLE, "f", SPACE);
    c?.add(words([1n, 2n, 3n]), Uint8Array.of(0, 1, 0));
    c?.commit();
    expect(cache.lookup(TABLE, "f", SPACE)?.size).toBe(2);
    expect(cache.mayContainAny(TABLE, "f", SPACE, words([2n]))).toBe(false);
  });

  it("abandons a collection in flight for a file that is invalidated (removed by a commit)", () => {
    const cache = new ProbeCache(1 << 20);
    const c = cache.beginCollection(TABLE, "f", SPACE);
    c?.add(words([1n]));
    cache.invalidate(TABLE, ["f"]);
    expect(c?.commit()).toBe(false);
    expect(cache.has(TABLE, "f", SPACE)).toBe(false);
    expect(cache.stats().inFlightBytes).toBe(0);
  });

  it("is off at 0 bytes: nothing is cached or collected, lookups miss", () => {
    const cache = new ProbeCache(0);
    expect(cache.put(TABLE, "f", SPACE, setOf([1n]))).toBe(false);
    expect(cache.beginCollection(TABLE, "f", SPACE)).toBeUndefined();
    expect(cache.mayContainAny(TABLE, "f", SPACE, words([1n]))).toBeUndefined();
    expect(cache.stats()).toEqual({ size: 0, entries: 0, hits: 0, misses: 1, maxBytes: 0, inFlightBytes: 0 });
    const on = new ProbeCache(1 << 20);
    on.put(TABLE, "f", SPACE, setOf([1n]));
    on.setMaxBytes(0);
    expect(on.stats()).toMatchObject({ size: 0, entries: 0, maxBytes: 0 });
  });

  it.each([-1, 1.5, Number.NaN])("rejects a cap of %s", (n) => {
    expect(() => new ProbeCache(n)).toThrow(/non-negative integer/);
  });

  it("keeps the byte cap, the per-entry cap and the LRU order of a model after any operation sequence", () => {
    const paths = ["a", "b", "c", "d", "e", "f"];
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("put" as const),
        path: fc.constantFrom(...paths),
        n: fc.integer({ min: 0, max: 40 }),
      }),
      fc.record({
        kind: fc.constant("lookup" as const),
        path: fc.constantFrom(...paths),
        space: fc.constantFrom(SPACE, "x"),
      }),
      fc.record({ kind: fc.constant("invalidate" as const), path: fc.constantFrom(...paths) }),
      fc.record({ kind: fc.constant("cap" as const), bytes: fc.integer({ min: 0, max: 6000 }) }),
      fc.record({
        kind: fc.constant("collect" as const),
        path: fc.constantFrom(...paths),
        chunks: fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 4 }),
        commit: fc.boolean(),
      }),
      fc.record({ kind: fc.constant("clear" as const) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6000 }), fc.array(op, { maxLength: 40 }), (initial, ops) => {
        const cache = new ProbeCache(initial);
        let cap = initial;
        const model = new Map<string, number>(); // path -> bytes, insertion order = LRU order
        let hits = 0;
        let misses = 0;
        let base = 0n;
        const modelPut = (path: string, bytes: number) => {
          model.delete(path);
          if (cap === 0 || bytes > Math.floor(cap / 8)) return;
          let size = [...model.values()].reduce((a, b) => a + b, 0);
          for (const [p, b] of [...model]) {
            if (size + bytes <= cap) break;
            model.delete(p);
            size -= b;
          }
          model.set(path, bytes);
        };
        for (const o of ops) {
          if (o.kind === "put") {
            const hashes = Array.from({ length: o.n }, (_, i) => base + BigInt(i));
            base += 1000n;
            cache.put(TABLE, o.path, SPACE, setOf(hashes));
            modelPut(o.path, bytesFor(o.path, o.n));
          } else if (o.kind === "lookup") {
            const found = cache.lookup(TABLE, o.path, o.space);
            const expected = o.space === SPACE && model.has(o.path);
            expect(found !== undefined).toBe(expected);
            if (expected) {
              const b = model.get(o.path) as number;
              model.delete(o.path);
              model.set(o.path, b);
              hits++;
            } else misses++;
          } else if (o.kind === "invalidate") {
            cache.invalidate(TABLE, [o.path]);
            model.delete(o.path);
          } else if (o.kind === "cap") {
            cache.setMaxBytes(o.bytes);
            cap = o.bytes;
            for (const [p, b] of [...model]) if (b > Math.floor(cap / 8)) model.delete(p);
            let size = [...model.values()].reduce((a, b) => a + b, 0);
            for (const [p, b] of [...model]) {
              if (size <= cap) break;
              model.delete(p);
              size -= b;
            }
          } else if (o.kind === "collect") {
            const c = cache.beginCollection(TABLE, o.path, SPACE);
            if (cap === 0) expect(c).toBeUndefined();
            let raw = 0;
            let ok = c !== undefined;
            for (const n of o.chunks) {
              const hashes = Array.from({ length: n }, (_, i) => base + BigInt(i));
              base += 1000n;
              const accepted = c?.add(words(hashes)) ?? false;
              const fits =
                ok &&
                bytesFor(o.path, (raw + 8 * n) / 8) <= Math.floor(cap / 8) &&
                raw + 8 * n <= Math.floor(cap / 4);
              expect(accepted).toBe(fits);
              if (fits) raw += 8 * n;
              else ok = false;
              expect(cache.stats().inFlightBytes).toBeLessThanOrEqual(Math.floor(cap / 4));
            }
            if (o.commit) {
              expect(c?.commit() ?? false).toBe(ok && bytesFor(o.path, raw / 8) <= Math.floor(cap / 8));
              if (ok) modelPut(o.path, bytesFor(o.path, raw / 8));
            } else c?.abort();
            expect(cache.stats().inFlightBytes).toBe(0);
          } else {
            cache.clear();
            model.clear();
            hits = 0;
            misses = 0;
          }
          const stats = cache.stats();
          const modelSize = [...model.values()].reduce((a, b) => a + b, 0);
          expect(stats.size).toBeLessThanOrEqual(cap);
          expect(stats.size).toBe(modelSize);
          expect(stats.entries).toBe(model.size);
          expect(stats.maxBytes).toBe(cap);
          expect({ hits: stats.hits, misses: stats.misses }).toEqual({ hits, misses });
          expect(cache.keys().map(([, p]) => p)).toEqual([...model.keys()]);
          for (const b of model.values()) expect(b).toBeLessThanOrEqual(Math.floor(cap / 8));
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe("process-wide cache", () => {
  afterEach(() => {
    setProbeCacheMaxBytes(DEFAULT_PROBE_CACHE_BYTES);
    clearProbeCache();
  });

  it("is one instance per process, controlled by setProbeCacheMaxBytes / clearProbeCache / probeCacheStats", () => {
    expect(globalProbeCache()).toBe(globalProbeCache());
    setProbeCacheMaxBytes(1 << 20);
    globalProbeCache().put(TABLE, "f", SPACE, setOf([1n, 2n]));
    globalProbeCache().lookup(TABLE, "f", SPACE);
    globalProbeCache().lookup(TABLE, "g", SPACE);
    expect(probeCacheStats()).toEqual({
      size: bytesFor("f", 2),
      entries: 1,
      hits: 1,
      misses: 1,
      maxBytes: 1 << 20,
      inFlightBytes: 0,
    });
    clearProbeCache();
    expect(probeCacheStats()).toMatchObject({ size: 0, entries: 0, hits: 0, misses: 0 });
  });

  it.each([
    [undefined, DEFAULT_PROBE_CACHE_BYTES],
    ["", DEFAULT_PROBE_CACHE_BYTES],
    ["0", 0],
    [" 1048576 ", 1048576],
  ])("DELTALITE_PROBE_CACHE_BYTES=%j gives %i bytes, no warning", (raw, expected) => {
    const spy = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    try {
      const env = raw === undefined ? {} : { DELTALITE_PROBE_CACHE_BYTES: raw };
      expect(probeCacheBytesFromEnv(env)).toBe(expected);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  // One rule with every other DELTALITE_* variable: a typed error naming the variable and the value.
  it.each(["-5", "12MB", "1.5", "1e3", "99999999999999999999"])(
    "DELTALITE_PROBE_CACHE_BYTES=%j is a DeltaLiteError (kind generic), no warning",
    (raw) => {
      const spy = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
      try {
        let error: unknown;
        try {
          probeCacheBytesFromEnv({ DELTALITE_PROBE_CACHE_BYTES: raw });
        } catch (e) {
          error = e;
        }
        expect(isDeltaLiteError(error)).toBe(true);
        expect(error).toMatchObject({
          kind: "generic",
          message: `DELTALITE_PROBE_CACHE_BYTES must be a non-negative integer (got ${JSON.stringify(raw)})`,
        });
        expect(spy).not.toHaveBeenCalled();
      } finally {
        spy.mockRestore();
      }
    },
  );

  it("an invalid DELTALITE_PROBE_CACHE_BYTES throws where the cache is first sized, not at import", async () => {
    const holder = globalThis as Record<symbol, unknown>;
    const key = Symbol.for("deltalite.probeCache");
    const saved = holder[key];
    delete holder[key];
    vi.stubEnv("DELTALITE_PROBE_CACHE_BYTES", "lots");
    try {
      vi.resetModules();
      const fresh = await import("../src/index.js");
      const expected = {
        kind: "generic",
        message: 'DELTALITE_PROBE_CACHE_BYTES must be a non-negative integer (got "lots")',
      };
      expect(() => fresh.probeCacheStats()).toThrow(expect.objectContaining(expected));
      expect(() => fresh.globalProbeCache()).toThrow(expect.objectContaining(expected));
      // Nothing was created: a corrected value is read on the next use.
      expect(holder[key]).toBeUndefined();
      vi.stubEnv("DELTALITE_PROBE_CACHE_BYTES", "4096");
      expect(fresh.probeCacheStats().maxBytes).toBe(4096);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
      if (saved === undefined) delete holder[key];
      else holder[key] = saved;
    }
  });
});
