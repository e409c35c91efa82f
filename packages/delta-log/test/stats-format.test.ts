import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDate, formatTimestamp, parseStatsColumns } from "../src/index.js";

// Years 0001..9999 (JS Date's ISO form covers them with four-digit years).
const MIN_MS = -62_135_596_800_000;
const MAX_MS = 253_402_300_799_999;

describe("stats value formats (delta-rs's rendering, whose oracle parity is in stats-parity.test.ts)", () => {
  it("formatTimestamp: floor to milliseconds, ISO text, fraction left out when there is no sub-second part", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: BigInt(MIN_MS) * 1000n, max: BigInt(MAX_MS) * 1000n }), (micros) => {
        const ms = micros >= 0n ? micros / 1000n : -((-micros + 999n) / 1000n);
        const iso = new Date(Number(ms)).toISOString();
        const expected = micros % 1_000_000n === 0n ? iso.replace(".000Z", "Z") : iso;
        expect(formatTimestamp(micros * 1000n, true)).toBe(expected);
        expect(formatTimestamp(micros * 1000n, false)).toBe(expected.replace("T", " ").replace("Z", ""));
      }),
      { numRuns: 2000 },
    );
  });

  it("formatDate: proleptic Gregorian YYYY-MM-DD", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Math.ceil(MIN_MS / 86_400_000), max: Math.floor(MAX_MS / 86_400_000) }),
        (days) => {
          expect(formatDate(days)).toBe(new Date(days * 86_400_000).toISOString().slice(0, 10));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["a,b", ["a", "b"]],
    [" a , `b c`.d ,", ["a", "b c.d"]],
    ["`x``y`", ["x`y"]],
  ])("parseStatsColumns(%j) → %j", (text, expected) => {
    expect([...parseStatsColumns(text)]).toEqual(expected);
  });
});
