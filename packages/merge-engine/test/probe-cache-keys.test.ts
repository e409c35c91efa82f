/**
 * The probe cache fed with real key hashes: a file's non-null key hashes are collected and cached, then
 * asked about the source key set. A cached "no" must be exact — a file that holds a source key is never
 * skipped — under the real XXH64 and under hashers that force collisions (which may only ADD files).
 */
import { KeyHashSet, ProbeCache } from "@deltalite/probe-cache";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultKeyHasher, encodeKeys, type KeyHasher, SourceKeySet } from "../src/index.js";
import { batchOf, column } from "./arrow-columns.js";
import { truncated, zeroHasher } from "./colliding-hashers.js";

const keyArb = fc.record({
  id: fc.option(fc.bigInt({ min: 0n, max: 30n }), { freq: 6 }),
  tag: fc.option(fc.constantFrom("x", "y", "zz"), { freq: 6 }),
});
type Key = { id: bigint | null; tag: string | null };

function keysOf(rows: Key[], keyColumns: string[], hasher: KeyHasher) {
  const batch = batchOf([
    [
      "id",
      column(
        "long",
        rows.map((r) => r.id),
      ),
    ],
    [
      "tag",
      column(
        "string",
        rows.map((r) => r.tag),
      ),
    ],
  ]);
  return encodeKeys(batch, keyColumns, { hasher });
}

describe("probe cache with key hashes", () => {
  it.each([
    ["xxh64", defaultKeyHasher, true],
    ["xxh64 cut to 3 bits", truncated(3), false],
    ["all-zero", zeroHasher, false],
  ] as Array<[string, KeyHasher, boolean]>)(
    "never skips a file that holds a source key (%s hasher)",
    (_name, hasher, exactExpected) => {
      fc.assert(
        fc.property(
          fc.array(fc.array(keyArb, { maxLength: 25 }), { minLength: 1, maxLength: 6 }),
          fc.array(keyArb, { maxLength: 15 }),
          fc.constantFrom(["id"], ["tag"], ["id", "tag"]),
          (files, sourceRows, keyColumns) => {
            const cache = new ProbeCache(1 << 20);
            const source = SourceKeySet.build({ keys: keysOf(sourceRows, keyColumns, hasher) });
            const sourceHashes = source.hashWords();
            files.forEach((rows, f) => {
              const fileKeys = keysOf(rows, keyColumns, hasher);
              const collection = cache.beginCollection("memory://t", `part-${f}.parquet`, fileKeys.keySpace);
              collection?.add(fileKeys.hashWords, fileKeys.nullKeys);
              expect(collection?.commit()).toBe(true);
              const exact = source.containsAny(fileKeys);
              const cached = cache.mayContainAny(
                "memory://t",
                `part-${f}.parquet`,
                source.keySpace,
                sourceHashes,
              );
              expect(cached).toBeDefined();
              if (exact) expect(cached).toBe(true);
              if (exactExpected) expect(cached).toBe(exact);
              if (hasher === zeroHasher)
                expect(cached).toBe(source.size > 0 && fileKeys.nullKeyCount < rows.length);
            });
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  it("answers a lookup under other key columns as a miss, never with the other keys' hashes", () => {
    const cache = new ProbeCache(1 << 20);
    const rows: Key[] = [{ id: 1n, tag: "x" }];
    const byId = keysOf(rows, ["id"], defaultKeyHasher);
    cache.put("memory://t", "f.parquet", byId.keySpace, KeyHashSet.fromWords(byId.hashWords));
    const byIdAndTag = SourceKeySet.build({ keys: keysOf(rows, ["id", "tag"], defaultKeyHasher) });
    expect(
      cache.mayContainAny("memory://t", "f.parquet", byIdAndTag.keySpace, byIdAndTag.hashWords()),
    ).toBeUndefined();
    const byIdSource = SourceKeySet.build({ keys: byId });
    expect(cache.mayContainAny("memory://t", "f.parquet", byIdSource.keySpace, byIdSource.hashWords())).toBe(
      true,
    );
  });
});
