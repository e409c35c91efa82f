/**
 * The upsert's stats pruning rules on hand-made Add stats: integer, long, date and string bounds prune; a
 * string max that may have been truncated (≥ 32 code points or ≥ 61 UTF-8 bytes) never prunes from above;
 * longs beyond 2^53, timestamps and doubles never prune; an all-NULL key column prunes; NULL-key source rows
 * contribute no values; strings compare in code-point (UTF-8 byte) order, not UTF-16 order.
 */
import type { FileStats } from "@deltalite/delta-log";
import { utf8ReaderMemo } from "@deltalite/parquet-stream";
import {
  type DataType,
  DateDay,
  Field,
  Float64,
  Int32,
  Int64,
  Schema,
  Table,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SourcePartition } from "../src/upsert/source-batch.js";
import {
  compareCodePoints,
  sortedValues,
  sourceKeyRanges,
  statsMayHoldKey,
} from "../src/upsert/stats-prune.js";

function partitionOf(type: DataType, values: unknown[]): SourcePartition {
  const table = new Table(new Schema([new Field("k", type, true)]), {
    k: vectorFromArray(values, type),
  } as never);
  return {
    batches: table.batches,
    values: {},
    label: "test",
    rows: values.length,
  } as unknown as SourcePartition;
}

const stats = (min: unknown, max: unknown, nullCount = 0, numRecords = 10): FileStats => ({
  numRecords,
  minValues: { k: min },
  maxValues: { k: max },
  nullCount: { k: nullCount },
});

const long32 = "a".repeat(32);

describe("upsert stats pruning", () => {
  it.each([
    { name: "int inside", type: new Int32(), deltaType: "integer", source: [5], st: stats(1, 9), may: true },
    { name: "int below", type: new Int32(), deltaType: "integer", source: [0], st: stats(1, 9), may: false },
    { name: "int above", type: new Int32(), deltaType: "integer", source: [10], st: stats(1, 9), may: false },
    {
      name: "ints around",
      type: new Int32(),
      deltaType: "integer",
      source: [0, 10],
      st: stats(1, 9),
      may: false,
    },
    { name: "long inside", type: new Int64(), deltaType: "long", source: [5n], st: stats(5, 5), may: true },
    { name: "long above", type: new Int64(), deltaType: "long", source: [6n], st: stats(5, 5), may: false },
    {
      name: "long bound beyond 2^53 is ignored",
      type: new Int64(),
      deltaType: "long",
      source: [2n ** 60n],
      st: stats(1, 2 ** 54),
      may: true,
    },
    {
      name: "date below",
      type: new DateDay(),
      deltaType: "date",
      source: [new Date(0)],
      st: stats("1970-01-02", "1970-02-01"),
      may: false,
    },
    {
      name: "date inside",
      type: new DateDay(),
      deltaType: "date",
      source: [new Date(86_400_000 * 3)],
      st: stats("1970-01-02", "1970-02-01"),
      may: true,
    },
    {
      name: "string above a short max",
      type: new Utf8(),
      deltaType: "string",
      source: ["abd"],
      st: stats("abb", "abc"),
      may: false,
    },
    {
      name: "string below min",
      type: new Utf8(),
      deltaType: "string",
      source: ["aba"],
      st: stats("abb", "abc"),
      may: false,
    },
    {
      name: "string above a max that may be truncated (32 code points)",
      type: new Utf8(),
      deltaType: "string",
      source: [`${long32}b`],
      st: stats("a", long32),
      may: true,
    },
    {
      name: "string above a max of ≥ 61 UTF-8 bytes",
      type: new Utf8(),
      deltaType: "string",
      source: [`${"é".repeat(31)}z`],
      st: stats("a", "é".repeat(31)),
      may: true,
    },
    {
      name: "code-point order (U+FFFD < U+1F600, though UTF-16 says otherwise)",
      type: new Utf8(),
      deltaType: "string",
      source: ["\u{1F600}"],
      st: stats("a", "\uFFFD"),
      may: false,
    },
    {
      name: "double never prunes",
      type: new Float64(),
      deltaType: "double",
      source: [100],
      st: stats(1, 2),
      may: true,
    },
    {
      name: "all-NULL key column",
      type: new Int32(),
      deltaType: "integer",
      source: [5],
      st: stats(null, null, 10, 10),
      may: false,
    },
    {
      name: "only NULL source keys",
      type: new Int32(),
      deltaType: "integer",
      source: [null],
      st: stats(1, 9),
      may: false,
    },
    { name: "no stats", type: new Int32(), deltaType: "integer", source: [100], st: undefined, may: true },
  ])("$name → may hold a key: $may", ({ type, deltaType, source, st, may }) => {
    const ranges = sourceKeyRanges(partitionOf(type, source), { k: deltaType });
    expect(statsMayHoldKey(st, ranges)).toBe(may);
  });

  it("collects a string key column's source values in UTF-8 byte order, whatever code units they hold", () => {
    const byBytes = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));
    // The strings below U+D800 alone, and mixed with the code units where UTF-16 order differs (lone
    // surrogates are not well-formed UTF-8, so the mixed ones take whole code points).
    const low = fc.string({ unit: fc.integer({ min: 0, max: 0xd7ff }).map((c) => String.fromCharCode(c)) });
    const any = fc.string({ unit: "grapheme" });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(low, any, fc.constant("\uFFFD"), fc.constant("\u{1F600}"))),
        (strings) => {
          const [column] = sourceKeyRanges(partitionOf(new Utf8(), strings), { k: "string" });
          if (!column) throw new Error("a string key column prunes");
          expect(sortedValues(column)).toEqual([...strings].sort(byBytes));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reads a partition's key values from its source batches at its rows", () => {
    const whole = partitionOf(new Utf8(), ["d", "a", null, "c", "b"]);
    const source = { sources: whole.batches, sourceRows: [Int32Array.of(0, 2, 3)] };
    const ofRows = (ranges: ReturnType<typeof sourceKeyRanges>) => [...(ranges[0]?.values ?? [])].sort();
    expect(ofRows(sourceKeyRanges(source, { k: "string" }))).toEqual(["c", "d"]);
    // Partitions of one source share a memo of its decoded string columns: each still gets its own rows.
    const utf8Readers = utf8ReaderMemo();
    const other = { sources: whole.batches, sourceRows: [Int32Array.of(1, 4)] };
    expect(ofRows(sourceKeyRanges(source, { k: "string" }, { utf8Readers }))).toEqual(["c", "d"]);
    expect(ofRows(sourceKeyRanges(other, { k: "string" }, { utf8Readers }))).toEqual(["a", "b"]);
  });

  it("answers like a scan of every source value, for files asked one after another (ints and strings)", () => {
    // Bounds a file's stats may lack on either side (absent: unbounded there), and files inside, around and
    // beside the source's values: the answer from the source's ends, or from its values sorted when first
    // needed, must be the scan's.
    const bound = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
    const byBytes = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));
    const cases = [
      {
        type: new Int32(),
        deltaType: "integer",
        value: fc.integer({ min: -50, max: 50 }),
        compare: (a: number, b: number) => a - b,
      },
      {
        type: new Utf8(),
        deltaType: "string",
        value: fc.string({ unit: fc.constantFrom("a", "b", "c", "é", "\uFFFD", "\u{1F600}"), maxLength: 3 }),
        compare: byBytes,
      },
    ] as const;
    for (const c of cases) {
      const value = c.value as fc.Arbitrary<number | string>;
      const compare = c.compare as (a: number | string, b: number | string) => number;
      fc.assert(
        fc.property(
          fc.array(fc.option(value, { nil: null }), { maxLength: 30 }),
          fc.array(fc.tuple(bound(value), bound(value)), { minLength: 1, maxLength: 6 }),
          (source, files) => {
            const ranges = sourceKeyRanges(partitionOf(c.type, source), { k: c.deltaType });
            for (const [min, max] of files) {
              const st: FileStats = {
                numRecords: 10,
                minValues: min === undefined ? {} : { k: min },
                maxValues: max === undefined ? {} : { k: max },
                nullCount: { k: 0 },
              };
              const scan = source.some(
                (v) =>
                  v !== null &&
                  (min === undefined || compare(v, min) >= 0) &&
                  (max === undefined || compare(v, max) <= 0),
              );
              const unbounded = min === undefined && max === undefined;
              expect(statsMayHoldKey(st, ranges)).toBe(unbounded || scan);
            }
          },
        ),
        { numRuns: 300 },
      );
    }
  });

  it("compares strings like UTF-8 bytes", () => {
    const strings = ["", "a", "é", "\uFFFD", "\u{1F600}", "ab", "\u{10FFFF}"];
    const byBytes = [...strings].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...strings].sort(compareCodePoints)).toEqual(byBytes);
  });
});
