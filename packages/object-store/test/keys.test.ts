import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareUtf8, validateKey } from "../src/index.js";

describe("compareUtf8", () => {
  it("orders strings exactly as their UTF-8 bytes compare (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        const expected = Math.sign(Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
        // Lone surrogates encode as U+FFFD in UTF-8, so compare only well-formed strings.
        if (!a.isWellFormed() || !b.isWellFormed()) return true;
        return Math.sign(compareUtf8(a, b)) === expected;
      }),
      { numRuns: 2000 },
    );
  });

  it("sorts astral characters above U+FFFD, unlike UTF-16 order", () => {
    expect(["\u{1F600}", "\uFFFD", "z"].sort(compareUtf8)).toEqual(["z", "\uFFFD", "\u{1F600}"]);
  });
});

describe("validateKey", () => {
  it.each([["a"], ["a/b.parquet"], ["part=a%2Fb/x"], ["part=..%2F..%2Fetc/f"], ["..x/y"], ["x../y"]])(
    "accepts %j",
    (key) => {
      expect(validateKey(key)).toBe(key);
    },
  );
});
