/**
 * SourceKeySet against a naive Map oracle (property-based): membership of random target keys, duplicate
 * and NULL-key counts, over one or several batches with row selections, single and composite keys — with
 * the real XXH64 hasher and with hashers that force collisions (every hash 0; only 2 bits of hash), which
 * must still give exact answers; `hashWords` holding every held key's hash; `entriesOf` against
 * `find` for the rows the set was built with. Plus the duplicate
 * error's kind and message.
 */
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultKeyHasher, encodeKeys, type KeyHasher, SourceKeySet } from "../src/index.js";
import { batchOf, column } from "./arrow-columns.js";

const zeroHasher: KeyHasher = {
  id: "zero",
  words8: (_w, count, out) => out.fill(0, 0, 2 * count),
  fixed: (_b, _w, count, out) => out.fill(0, 0, 2 * count),
  ranges: (_b, _o, count, out) => out.fill(0, 0, 2 * count),
};

/** XXH64 reduced to its lowest 2 bits: many partial collisions. */
const twoBitHasher: KeyHasher = {
  id: "two-bit",
  words8: (w, count, out) => {
    defaultKeyHasher.words8(w, count, out);
    for (let i = 0; i < count; i++) {
      out[2 * i] = (out[2 * i] as number) & 3;
      out[2 * i + 1] = 0;
    }
  },
  fixed: (b, width, count, out) => {
    defaultKeyHasher.fixed(b, width, count, out);
    for (let i = 0; i < count; i++) {
      out[2 * i] = (out[2 * i] as number) & 3;
      out[2 * i + 1] = 0;
    }
  },
  ranges: (b, o, count, out) => {
    defaultKeyHasher.ranges(b, o, count, out);
    for (let i = 0; i < count; i++) {
      out[2 * i] = (out[2 * i] as number) & 3;
      out[2 * i + 1] = 0;
    }
  },
};

const hashers: Array<[string, KeyHasher]> = [
  ["xxh64", defaultKeyHasher],
  ["all-zero (every key collides)", zeroHasher],
  ["two-bit (partial collisions)", twoBitHasher],
];

type Row = { id: bigint | null; name: string | null; n: number | null };

const rowArb = fc.record({
  id: fc.option(fc.bigInt({ min: -5n, max: 5n }), { freq: 8 }),
  name: fc.option(fc.constantFrom("", "a", "b", "ab", "é", "a\u0000"), { freq: 8 }),
  n: fc.option(fc.integer({ min: -3, max: 3 }), { freq: 8 }),
});

const keyChoiceArb = fc.constantFrom(
  ["id"],
  ["name"],
  ["n"],
  ["id", "name"],
  ["name", "id", "n"],
  ["n", "name"],
);

function batchFromRows(rows: Row[]) {
  return batchOf([
    [
      "id",
      column(
        "long",
        rows.map((r) => r.id),
      ),
    ],
    [
      "name",
      column(
        "string",
        rows.map((r) => r.name),
      ),
    ],
    [
      "n",
      column(
        "integer",
        rows.map((r) => r.n),
      ),
    ],
  ]);
}

/** The naive oracle's key: undefined for a NULL in any key column. */
function naiveKey(row: Row, keys: string[]): string | undefined {
  const parts: string[] = [];
  for (const k of keys) {
    const v = row[k as keyof Row];
    if (v === null) return undefined;
    parts.push(JSON.stringify(typeof v === "bigint" ? `${v}n` : v));
  }
  return parts.join("|");
}

describe("SourceKeySet", () => {
  it.each(hashers)("equals a naive Map oracle with the %s hasher", (_name, hasher) => {
    fc.assert(
      fc.property(
        fc.array(fc.array(rowArb, { maxLength: 40 }), { minLength: 1, maxLength: 3 }),
        fc.array(rowArb, { maxLength: 40 }),
        keyChoiceArb,
        fc.boolean(),
        (sourceBatches, targetRows, keyColumns, selectRows) => {
          const naive = new Map<string, number>();
          let nulls = 0;
          let duplicates = 0;
          let rowCount = 0;
          const sources = sourceBatches.map((rows) => {
            const keys = encodeKeys(batchFromRows(rows), keyColumns, { hasher });
            const selected = selectRows
              ? rows.map((_, i) => i).filter((i) => i % 3 !== 1)
              : rows.map((_, i) => i);
            for (const i of selected) {
              rowCount++;
              const key = naiveKey(rows[i] as Row, keyColumns);
              if (key === undefined) nulls++;
              else if (naive.has(key)) duplicates++;
              else naive.set(key, i);
            }
            return selectRows ? { keys, rows: Int32Array.from(selected) } : { keys };
          });
          const set = SourceKeySet.build(sources);
          expect(set.rowCount).toBe(rowCount);
          expect(set.nullKeyRows).toBe(nulls);
          expect(set.duplicateRows).toBe(duplicates);
          expect(set.size).toBe(naive.size);
          // entriesOf: each row the set was built with has the entry `find` gives its key, in build order.
          sources.forEach((source, part) => {
            const selected = source.rows ?? Int32Array.from({ length: source.keys.length }, (_, i) => i);
            expect([...set.entriesOf(part)]).toEqual([...selected].map((row) => set.find(source.keys, row)));
          });

          const target = encodeKeys(batchFromRows(targetRows), keyColumns, { hasher });
          const hit = new Uint8Array(targetRows.length);
          const hits = set.matchRows(target, hit);
          const expected = targetRows.map((r) => {
            const key = naiveKey(r, keyColumns);
            return key !== undefined && naive.has(key) ? 1 : 0;
          });
          expect([...hit]).toEqual(expected);
          expect(hits).toBe(expected.reduce((a: number, b) => a + b, 0));
          expect(set.containsAny(target)).toBe(hits > 0);
          expect(set.hashWords().length).toBe(2 * naive.size);
          // hashWords (what the native probe asks a file's hashes against): the hash of every key of the set,
          // so every target row the set holds has its hash there.
          const entryHashes = new Set<string>();
          const words = set.hashWords();
          for (let e = 0; 2 * e < words.length; e++) entryHashes.add(`${words[2 * e]},${words[2 * e + 1]}`);
          targetRows.forEach((_, i) => {
            const hash = `${target.hashWords[2 * i]},${target.hashWords[2 * i + 1]}`;
            if (hit[i] === 1) expect(entryHashes.has(hash)).toBe(true);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("finds the source row of a key and never matches NULL keys, even when every hash collides", () => {
    const rows: Row[] = Array.from({ length: 500 }, (_, i) => ({
      id: BigInt(i),
      name: i % 7 === 0 ? null : `k${i}`,
      n: i,
    }));
    const keys = encodeKeys(batchFromRows(rows), ["id", "name"], { hasher: zeroHasher });
    const set = SourceKeySet.build({ keys });
    expect(set.nullKeyRows).toBe(rows.filter((r) => r.name === null).length);
    for (let i = 0; i < rows.length; i++) {
      const entry = set.find(keys, i);
      if (rows[i]?.name === null) expect(entry).toBe(-1);
      else expect(set.entrySource(entry)).toEqual({ part: 0, row: i });
    }
  });

  it("rejects duplicate non-null keys with a generic DeltaLiteError naming the count, partition and a key", () => {
    const rows: Row[] = [
      { id: 1n, name: "a", n: 0 },
      { id: 1n, name: "a", n: 1 },
      { id: 2n, name: "a", n: 2 },
      { id: 1n, name: "a", n: 3 },
      { id: null, name: "a", n: 4 },
      { id: null, name: "a", n: 5 },
    ];
    const set = SourceKeySet.build({ keys: encodeKeys(batchFromRows(rows), ["id", "name"]) });
    expect(set.duplicateRows).toBe(2);
    expect(set.nullKeyRows).toBe(2);
    let error: unknown;
    try {
      set.assertNoDuplicates("day=2026-01-01");
    } catch (e) {
      error = e;
    }
    expect(isDeltaLiteError(error)).toBe(true);
    expect((error as DeltaLiteError).kind).toBe("generic");
    expect((error as DeltaLiteError).message).toMatch(
      /^2 duplicate primary-key rows in partition day=2026-01-01 /,
    );
    expect((error as DeltaLiteError).message).toContain('id=1, name="a"');
  });

  it("accepts NULL-key rows that repeat (they are not duplicates)", () => {
    const rows: Row[] = [
      { id: null, name: "a", n: 0 },
      { id: null, name: "a", n: 0 },
    ];
    const set = SourceKeySet.build({ keys: encodeKeys(batchFromRows(rows), ["id", "name"]) });
    expect(() => set.assertNoDuplicates("(unpartitioned)")).not.toThrow();
    expect(set.size).toBe(0);
  });

  it.each([
    ["a key column of another type", ["name"], ["id"]],
    ["another hash function", ["id"], ["id"]],
  ])("refuses to compare keys of %s", (name, sourceKeys, targetKeys) => {
    const rows: Row[] = [{ id: 1n, name: "a", n: 1 }];
    const set = SourceKeySet.build({ keys: encodeKeys(batchFromRows(rows), sourceKeys) });
    const hasher = name === "another hash function" ? zeroHasher : defaultKeyHasher;
    const target = encodeKeys(batchFromRows(rows), targetKeys, { hasher });
    expect(() => set.matchRows(target, new Uint8Array(1))).toThrowError(DeltaLiteError);
  });

  it("compares integer keys of different widths by value (int32 5 = int64 5, as a cast would)", () => {
    const rows: Row[] = [{ id: 5n, name: "a", n: 5 }];
    const set = SourceKeySet.build({ keys: encodeKeys(batchFromRows(rows), ["n"]) });
    expect(set.has(encodeKeys(batchFromRows(rows), ["id"]), 0)).toBe(true);
  });

  it("names a missing key column in a schema_mismatch error", () => {
    const batch = batchFromRows([{ id: 1n, name: "a", n: 1 }]);
    try {
      encodeKeys(batch, ["nope"]);
      expect.unreachable();
    } catch (e) {
      expect((e as DeltaLiteError).kind).toBe("schema_mismatch");
      expect((e as DeltaLiteError).message).toContain("'nope'");
    }
  });
});
