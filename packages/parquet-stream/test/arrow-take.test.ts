import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { takeRows } from "../src/arrow/index.js";
import { plain, sampleBatch } from "./arrow-samples.js";

describe("takeRows", () => {
  it("selects rows of every column type exactly, in order, with repeats (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer(),
        fc.array(fc.nat(), { maxLength: 80 }),
        (n, seed, picks) => {
          const batch = sampleBatch(n, seed);
          const indices = Int32Array.from(picks.map((p) => p % n));
          const taken = takeRows(batch, indices);
          expect(taken.numRows).toBe(indices.length);
          expect(taken.schema.fields.map(String)).toEqual(batch.schema.fields.map(String));
          for (let c = 0; c < batch.numCols; c++) {
            const from = batch.getChildAt(c)!;
            const to = taken.getChildAt(c)!;
            for (let i = 0; i < indices.length; i++) {
              expect(plain(to.get(i)?.toJSON?.() ?? to.get(i))).toEqual(
                plain(from.get(indices[i]!)?.toJSON?.() ?? from.get(indices[i]!)),
              );
            }
          }
          // 64-bit and 128-bit physical values are copied exactly (no float round trip).
          const ts = taken.getChild("ts")!.data[0]!.values as BigInt64Array;
          const srcTs = batch.getChild("ts")!.data[0]!.values as BigInt64Array;
          for (const [i, j] of indices.entries()) expect(ts[i]).toBe(srcTs[j]);
          const dec = taken.getChild("dec")!.data[0]!.values as Uint32Array;
          const srcDec = batch.getChild("dec")!.data[0]!.values as Uint32Array;
          for (const [i, j] of indices.entries()) {
            expect([...dec.subarray(i * 4, i * 4 + 4)]).toEqual([...srcDec.subarray(j * 4, j * 4 + 4)]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("works on a sliced batch (non-zero offsets)", () => {
    const batch = sampleBatch(50, 3).slice(10, 40);
    const taken = takeRows(batch, Int32Array.from([0, 29, 5]));
    for (const name of ["i64", "f", "b", "s", "st", "l", "m", "dec"]) {
      expect(plain(taken.getChild(name)!.get(1)?.toJSON?.() ?? taken.getChild(name)!.get(1))).toEqual(
        plain(batch.getChild(name)!.get(29)?.toJSON?.() ?? batch.getChild(name)!.get(29)),
      );
    }
  });
});
