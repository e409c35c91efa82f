// utf8Reader against apache-arrow's own reading of each row: ASCII-only columns (decoded once and sliced) and
// columns with other code points (decoded row by row), whole or sliced, empty ones included.
import { Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Reader } from "../src/index.js";

describe("utf8Reader", () => {
  it("reads every valid row as apache-arrow does, sliced or not (property)", () => {
    const value = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("", "é", "a\u0000b"));
    fc.assert(
      fc.property(
        fc.array(fc.option(value, { nil: null }), { maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        (values, a, b) => {
          const whole = vectorFromArray(values, new Utf8());
          const start = values.length === 0 ? 0 : a % values.length;
          const vector = whole.slice(
            start,
            start + (values.length === 0 ? 0 : b % (values.length - start + 1)),
          );
          const data = vector.data[0]!;
          const read = utf8Reader(data);
          for (let row = 0; row < vector.length; row++) {
            if (vector.isValid(row)) expect(read(row)).toBe(vector.get(row));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
