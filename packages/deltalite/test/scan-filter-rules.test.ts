// The rules behind scan filters, checked one by one: string order is UTF-8 byte order (property test against
// Buffer.compare), filter values in every documented form resolve to the same comparable value, and stats
// pruning keeps a file whenever its stats cannot exclude a match — in particular with truncated string maxes
// (delta-rs: cut within 64 bytes; Spark: 32 characters) and 64-bit bounds that JSON cannot hold exactly.

import {
  compareStrings,
  resolveFilter,
  type ScanFilterCondition,
  statsMayMatch,
} from "@deltalite/data-files";
import type { DeltaSchema, FileStats } from "@deltalite/delta-log";
import { isDeltaLiteError } from "@deltalite/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const schema: DeltaSchema = {
  type: "struct",
  fields: [
    ["l", "long"],
    ["i", "integer"],
    ["s", "string"],
    ["d", "date"],
    ["t", "timestamp"],
    ["n", "timestamp_ntz"],
    ["b", "binary"],
    ["x", "decimal(10,2)"],
    ["f", "double"],
  ].map(([name, type]) => ({ name: name!, type: type!, nullable: true, metadata: {} })),
};

const resolve = (c: ScanFilterCondition) => resolveFilter([c], schema, "t")[0]!;

describe("string order", () => {
  it("compareStrings is UTF-8 byte order (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        const bytes = Math.sign(Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
        expect(Math.sign(compareStrings(a, b))).toBe(bytes);
      }),
      { numRuns: 2000 },
    );
    expect(compareStrings("\uffff", "😀")).toBeLessThan(0); // U+FFFF < U+1F600, though "\uffff" > "\ud83d" in UTF-16
  });
});

describe("filter values in every documented form", () => {
  it.each([
    ["long", { column: "l", op: "eq", value: 5n }, [5n]],
    ["long from a safe number", { column: "l", op: "eq", value: 5 }, [5n]],
    ["long from digits", { column: "l", op: "eq", value: "-9223372036854775808" }, [-(2n ** 63n)]],
    ["date text", { column: "d", op: "eq", value: "1970-01-02" }, [1]],
    ["date from a Date", { column: "d", op: "eq", value: new Date(Date.UTC(1969, 11, 31, 12)) }, [-1]],
    ["timestamp ISO Z", { column: "t", op: "eq", value: "1970-01-01T00:00:01.000002Z" }, [1_000_002n]],
    ["timestamp with an offset", { column: "t", op: "eq", value: "1970-01-01T01:00:00+01:00" }, [0n]],
    ["timestamp from a Date", { column: "t", op: "eq", value: new Date(1500) }, [1_500_000n]],
    ["timestamp_ntz text", { column: "n", op: "eq", value: "2024-02-29 12:00:00" }, [1709208000000000n]],
    ["binary from base64", { column: "b", op: "eq", value: "AP8=" }, [Uint8Array.of(0, 255)]],
    ["decimal text", { column: "x", op: "eq", value: "12.3" }, [1230n]],
    ["decimal with more digits than the scale", { column: "x", op: "lt", value: "0.125" }, [125n]],
    [
      "double specials",
      { column: "f", op: "in", value: ["NaN", "-Infinity", 2] },
      [Number.NaN, -Infinity, 2],
    ],
    ["in drops nulls", { column: "i", op: "in", value: [1, null, 3] }, [1, 3]],
  ] as [string, ScanFilterCondition, unknown[]][])("%s", (_label, condition, operands) => {
    expect(resolve(condition).operands).toEqual(operands);
  });

  it("a decimal operand with more fraction digits scales row values up", () => {
    expect(resolve({ column: "x", op: "lt", value: "0.125" }).extraScale).toBe(1);
  });

  it.each([
    { column: "i", op: "eq", value: 2 ** 31 },
    { column: "i", op: "eq", value: 1.5 },
    { column: "l", op: "eq", value: 2 ** 60 },
    { column: "x", op: "eq", value: "1.2.3" },
    { column: "b", op: "eq", value: "not base64!" },
    { column: "t", op: "eq", value: "yesterday" },
    { column: "s", op: "eq", value: 1 },
    { column: "s", op: "in", value: "a" },
    { column: "s", op: "isNull", value: "a" },
  ] as ScanFilterCondition[])("rejects %j with kind invalid_argument", (condition) => {
    let error: unknown;
    try {
      resolve(condition);
    } catch (e) {
      error = e;
    }
    expect(isDeltaLiteError(error) && error.kind).toBe("invalid_argument");
  });
});

describe("stats pruning keeps every file that may hold a match", () => {
  const stats = (column: string, min: unknown, max: unknown, nullCount = 0, numRecords = 10): FileStats => ({
    numRecords,
    minValues: { [column]: min },
    maxValues: { [column]: max },
    nullCount: { [column]: nullCount },
  });
  const spark32 = "a".repeat(32); // Spark truncates string stats to 32 characters
  const delta64 = `${"b".repeat(63)}c`; // delta-rs: cut within 64 bytes, last char incremented
  it.each([
    ["eq inside [min, max]", stats("i", 1, 9), { column: "i", op: "eq", value: 5 }, true],
    ["eq above max", stats("i", 1, 9), { column: "i", op: "eq", value: 10 }, false],
    ["lt at min", stats("i", 1, 9), { column: "i", op: "lt", value: 1 }, false],
    ["le at min", stats("i", 1, 9), { column: "i", op: "le", value: 1 }, true],
    ["ge at max", stats("i", 1, 9), { column: "i", op: "ge", value: 9 }, true],
    ["gt at max", stats("i", 1, 9), { column: "i", op: "gt", value: 9 }, false],
    ["ne when min = max = v", stats("i", 4, 4), { column: "i", op: "ne", value: 4 }, false],
    ["in with one value inside", stats("i", 1, 9), { column: "i", op: "in", value: [0, 5] }, true],
    ["isNull without nulls", stats("i", 1, 9, 0), { column: "i", op: "isNull" }, false],
    ["any comparison when all null", stats("i", null, null, 10), { column: "i", op: "ne", value: 1 }, false],
    ["isNotNull when all null", stats("i", null, null, 10), { column: "i", op: "isNotNull" }, false],
    [
      "long bound beyond 2^53 is ignored",
      stats("l", 2 ** 60, 2 ** 60),
      { column: "l", op: "lt", value: 5 },
      true,
    ],
    [
      "date bounds",
      stats("d", "2026-01-01", "2026-01-31"),
      { column: "d", op: "gt", value: "2026-01-31" },
      false,
    ],
    ["short string max is exact", stats("s", "a", "m"), { column: "s", op: "gt", value: "n" }, false],
    [
      "Spark-truncated max (32 chars)",
      stats("s", "a", spark32),
      { column: "s", op: "gt", value: `${spark32}z` },
      true,
    ],
    [
      "delta-rs-truncated max (64 bytes)",
      stats("s", "a", delta64),
      { column: "s", op: "gt", value: `${delta64}z` },
      true,
    ],
    [
      "a truncated min still bounds below",
      stats("s", spark32, "zz"),
      { column: "s", op: "lt", value: "a" },
      false,
    ],
    [
      "timestamps are never stats-pruned",
      stats("t", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"),
      { column: "t", op: "gt", value: "2027-01-01T00:00:00Z" },
      true,
    ],
    ["doubles are never stats-pruned", stats("f", 1, 2), { column: "f", op: "gt", value: 3 }, true],
    ["decimals are never stats-pruned", stats("x", 1, 2), { column: "x", op: "gt", value: "3" }, true],
    ["no stats", undefined, { column: "i", op: "eq", value: 5 }, true],
  ] as [string, FileStats | undefined, ScanFilterCondition, boolean][])(
    "%s → %s",
    (_label, fileStats, condition, keep) => {
      expect(statsMayMatch(fileStats, resolve(condition))).toBe(keep);
    },
  );
});
