/**
 * The merge engine's stats pruning in its null-safe mode (the history upsert's key matching: a NULL key part
 * matches a NULL key part) and in its MERGE mode (the upsert's, unchanged): over random composite keys with
 * NULLs and random files, a file whose rows hold a key that matches a source key is never ruled out by its
 * stats; and a file whose values lie outside every source value is ruled out (so pruning does happen).
 * Stats are written the way Delta writers write them (numRecords, per-column min / max / nullCount).
 */

import { sourceKeyRanges, statsMayHoldKey } from "@deltalite/merge-engine";
import { Field, Int64, type RecordBatch, Schema, Table, Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

type Key = { k1: number | null; k2: string | null };
const KEY_TYPES = { k1: "long", k2: "string" };
const key = fc.record({
  k1: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }),
  k2: fc.option(fc.constantFrom("a", "b", "c", "d", "e"), { nil: null }),
});

function batchOf(keys: readonly Key[]): RecordBatch {
  const schema = new Schema([new Field("k1", new Int64(), true), new Field("k2", new Utf8(), true)]);
  const table = new Table(schema, {
    k1: vectorFromArray(
      keys.map((k) => (k.k1 === null ? null : BigInt(k.k1))),
      new Int64(),
    ),
    k2: vectorFromArray(
      keys.map((k) => k.k2),
      new Utf8(),
    ),
  } as never);
  return table.batches[0] as RecordBatch;
}

/** Delta-style stats of a file holding `rows`. */
function statsOf(rows: readonly Key[]) {
  const column = <C extends keyof Key>(c: C) =>
    rows.map((r) => r[c]).filter((v) => v !== null) as NonNullable<Key[C]>[];
  const bounds = <T>(values: T[]) => {
    const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { min: sorted[0], max: sorted.at(-1) };
  };
  const k1 = bounds(column("k1"));
  const k2 = bounds(column("k2"));
  return {
    numRecords: rows.length,
    minValues: {
      ...(k1.min === undefined ? {} : { k1: k1.min }),
      ...(k2.min === undefined ? {} : { k2: k2.min }),
    },
    maxValues: {
      ...(k1.max === undefined ? {} : { k1: k1.max }),
      ...(k2.max === undefined ? {} : { k2: k2.max }),
    },
    nullCount: { k1: rows.filter((r) => r.k1 === null).length, k2: rows.filter((r) => r.k2 === null).length },
  };
}

const nullSafeEqual = (a: Key, b: Key) => a.k1 === b.k1 && a.k2 === b.k2;
const mergeEqual = (a: Key, b: Key) => a.k1 !== null && a.k2 !== null && nullSafeEqual(a, b);

describe("stats pruning, null-safe and MERGE modes", () => {
  it("never rules out a file holding a matching key", () => {
    fc.assert(
      fc.property(
        fc.array(key, { minLength: 1, maxLength: 8 }),
        fc.array(key, { minLength: 1, maxLength: 8 }),
        (source, file) => {
          const stats = statsOf(file);
          const partition = { batches: [batchOf(source)] };
          const nullSafe = statsMayHoldKey(stats, sourceKeyRanges(partition, KEY_TYPES, { nullSafe: true }));
          const merge = statsMayHoldKey(stats, sourceKeyRanges(partition, KEY_TYPES));
          if (source.some((s) => file.some((f) => nullSafeEqual(s, f)))) expect(nullSafe).toBe(true);
          if (source.some((s) => file.some((f) => mergeEqual(s, f)))) expect(merge).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("rules out a file whose values lie outside every source value (NULLs included)", () => {
    const source = [
      { k1: 1, k2: "a" },
      { k1: null, k2: "b" },
    ];
    const partition = { batches: [batchOf(source)] };
    const far = statsOf([
      { k1: 7, k2: "a" },
      { k1: 9, k2: "b" },
    ]);
    // k1: the source's only value 1 is below the file's [7, 9]; its NULL finds no NULL there (nullCount 0).
    expect(statsMayHoldKey(far, sourceKeyRanges(partition, KEY_TYPES, { nullSafe: true }))).toBe(false);
    expect(statsMayHoldKey(far, sourceKeyRanges(partition, KEY_TYPES))).toBe(false);
    // The same file with a NULL k1 may hold the source's (NULL, "b") null-safely, never under MERGE.
    const withNull = statsOf([
      { k1: 7, k2: "a" },
      { k1: null, k2: "b" },
    ]);
    expect(statsMayHoldKey(withNull, sourceKeyRanges(partition, KEY_TYPES, { nullSafe: true }))).toBe(true);
    expect(statsMayHoldKey(withNull, sourceKeyRanges(partition, KEY_TYPES))).toBe(false);
  });
});
