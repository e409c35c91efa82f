// The shared text forms of value-text.ts at their edges — the cases the stats, partition-value and JSON
// formatters used to compute each on their own: days before the epoch and outside years 0..9999 (chrono's
// `%Y` signs), negative decimals, scale 0, precision 38, decimal text with exponents, timestamps before the
// epoch (rounded toward the past), and float32 digits. The string order they sit beside is object-store's
// `compareUtf8` (its UTF-8 property test is in object-store/test/keys.test.ts).
import { compareUtf8 } from "@deltalite/object-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  daysFromCivil,
  formatDate,
  formatDecimal,
  parseDecimalText,
  shortestFloat32,
  timestampParts,
} from "../src/index.js";
import { compareValues } from "../src/stats/stat-values.js";

describe("formatDate / daysFromCivil", () => {
  it.each([
    [0, "1970-01-01"],
    [-1, "1969-12-31"],
    [-719_162, "0001-01-01"],
    [-719_528, "0000-01-01"],
    [-719_529, "-0001-12-31"],
    [-354_285, "1000-01-01"],
    [-354_286, "0999-12-31"],
    [2_932_896, "9999-12-31"],
    [2_932_897, "+10000-01-01"],
    [-1_000_000, "-0768-02-04"],
  ])("%i days → %s", (days, text) => {
    expect(formatDate(days)).toBe(text);
    const m = /^([-+]?\d+)-(\d{2})-(\d{2})$/.exec(text)!;
    expect(daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]))).toBe(days);
  });

  it("daysFromCivil inverts formatDate over ±10,000 years (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -4_383_000, max: 4_383_000 }), (days) => {
        const m = /^([-+]?\d+)-(\d{2})-(\d{2})$/.exec(formatDate(days))!;
        expect(daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]))).toBe(days);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("timestampParts", () => {
  it.each([
    [0n, 1_000_000n, "1970-01-01", "00:00:00", 0n],
    [-1n, 1_000_000n, "1969-12-31", "23:59:59", 999_999n],
    [1_700_000_000_123_456n, 1_000_000n, "2023-11-14", "22:13:20", 123_456n],
    [-62_135_596_800_000_001n, 1_000_000n, "0000-12-31", "23:59:59", 999_999n],
    [253_402_300_800n, 1n, "+10000-01-01", "00:00:00", 0n],
    [-1n, 1_000_000_000n, "1969-12-31", "23:59:59", 999_999_999n],
  ])("%s units of 1/%s s", (count, perSecond, date, time, subsecond) => {
    expect(timestampParts(count, perSecond)).toEqual({ date, time, subsecond });
  });
});

describe("formatDecimal / parseDecimalText", () => {
  const max38 = 10n ** 38n - 1n;
  it.each([
    [0n, 0, "0"],
    [0n, 2, "0.00"],
    [7n, 0, "7"],
    [-7n, 0, "-7"],
    [-1n, 2, "-0.01"],
    [1230n, 2, "12.30"],
    [-12345n, 3, "-12.345"],
    [5n, -2, "500"],
    [max38, 0, max38.toString()],
    [-max38, 38, `-0.${max38.toString()}`],
    [max38, 10, "9999999999999999999999999999.9999999999"],
  ])("formatDecimal(%s, %i) = %s", (unscaled, scale, text) => {
    expect(formatDecimal(unscaled, scale)).toBe(text);
  });

  it.each([
    ["12.30", 1230n, 2],
    ["-0.01", -1n, 2],
    ["+7", 7n, 0],
    [".5", 5n, 1],
    ["-5.", -5n, 0],
    ["1e3", 1000n, 0],
    ["1.0E20", 100_000_000_000_000_000_000n, 0],
    ["12.5e-2", 125n, 3],
    [" 42 ", 42n, 0],
  ])("parseDecimalText(%j) = %s at scale %i", (text, unscaled, scale) => {
    expect(parseDecimalText(text)).toEqual({ unscaled, scale });
  });

  it.each(["", ".", "-", "1.2.3", "abc", "1e", "NaN"])("parseDecimalText(%j) is not a decimal", (text) => {
    expect(parseDecimalText(text)).toBeUndefined();
  });

  it("parses what it formats (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -max38, max: max38 }), fc.integer({ min: 0, max: 38 }), (u, scale) => {
        const parsed = parseDecimalText(formatDecimal(u, scale))!;
        expect(parsed.unscaled * 10n ** BigInt(scale - parsed.scale)).toBe(u);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("shortestFloat32", () => {
  it.each([
    [0.1, 0.1],
    [1 / 3, 0.33333334],
    [16_777_217, 16_777_216],
    [3.4e38, 3.4e38],
    [1e-45, 1e-45],
    [-0.5, -0.5],
  ])("float32(%s) prints as %s", (value, shortest) => {
    expect(shortestFloat32(Math.fround(value))).toBe(shortest);
  });
});

describe("the stats order is the one string order", () => {
  it("row-group string bounds merge by compareUtf8: non-BMP above U+FFFF, unlike UTF-16 order", () => {
    expect(compareValues("\uffff", "😀")).toBeLessThan(0);
    expect(compareValues("😀", "\uffff")).toBeGreaterThan(0);
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(Math.sign(compareValues(a, b))).toBe(Math.sign(compareUtf8(a, b)));
      }),
      { numRuns: 1000 },
    );
  });
});
