import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { takeRows } from "../src/arrow/index.js";
import { nativeGather } from "../src/engine.js";
import { plain, sampleBatch } from "./arrow-samples.js";

// On the native engine takeRows copies values with its gathers (parquet-native take.rs); on parquet-wasm (the
// test command's second run of this package) in JavaScript. The property below holds on both.
const gather = nativeGather();

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

  it.runIf(gather !== undefined)(
    "native gathers refuse an index outside their input and copy nothing",
    () => {
      const g = gather!;
      const out = new Uint8Array(16).fill(7);
      const values = Uint8Array.from({ length: 24 }, (_, i) => i);
      expect(() => g.gatherFixed(values, 8, Int32Array.from([1, 3]), out)).toThrow(/outside/);
      expect([...out]).toEqual(Array(16).fill(7));
      g.gatherFixed(values, 8, Int32Array.from([2, 0]), out);
      expect([...out]).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7]);
      const offsets = Int32Array.from([0, 2, 2, 5]);
      const bytes = new Uint8Array(3).fill(9);
      const ends = new Int32Array(3).fill(-1);
      expect(() => g.gatherVariable(values, offsets, Int32Array.from([0, 3]), bytes, ends)).toThrow(
        /outside/,
      );
      expect([...bytes, ...ends]).toEqual([9, 9, 9, -1, -1, -1]);
      g.gatherVariable(values, offsets, Int32Array.from([2, 1]), bytes, ends);
      expect([...bytes, ...ends]).toEqual([2, 3, 4, 0, 3, 3]);
      // Bits 3.. of 0b1010_0110, 0b0000_0001: from bit 3 on, 0, 0, 1, 0, 1, 1 (bits 3..8).
      const bits = Uint8Array.from([0b1010_0110, 0b0000_0001]);
      const packed = new Uint8Array(1);
      expect(() => g.gatherBits(bits, 3, Int32Array.from([0, 13]), packed)).toThrow(/outside/);
      expect([...packed]).toEqual([0]);
      expect(g.gatherBits(bits, 3, Int32Array.from([5, 0, 2, 4, 2]), packed)).toBe(4);
      expect([...packed]).toEqual([0b1_1101]);
    },
  );
});
