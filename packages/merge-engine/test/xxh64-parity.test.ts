/**
 * Hash parity: our pure-JS batch XXH64 (8-byte words, fixed-width cells, byte ranges) equals two
 * independent implementations — the native @node-rs/xxhash (xxHash's C/Rust code) and a Python
 * implementation written from the xxHash specification in the oracle worker — on random keys of every
 * width (0–100 bytes, across the 4/8/32-byte stripe boundaries) and random 64-bit seeds.
 */

import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { xxh64 as nativeXxh64 } from "@node-rs/xxhash";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seed64, xxh64, xxh64Fixed, xxh64Ranges, xxh64Words8 } from "../src/index.js";

const seedArb = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });

function hashAt(out: Uint32Array, i: number): bigint {
  return (BigInt(out[2 * i + 1] as number) << 32n) | BigInt(out[2 * i] as number);
}

describe("xxh64 parity with @node-rs/xxhash", () => {
  it("matches the published vector XXH64('', 0) = ef46db3751d8e999", () => {
    expect(xxh64(new Uint8Array(0), 0n).toString(16)).toBe("ef46db3751d8e999");
    expect(nativeXxh64(new Uint8Array(0), 0n).toString(16)).toBe("ef46db3751d8e999");
  });

  it("xxh64Words8 equals native XXH64 of each 8-byte little-endian key, random keys and seeds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { minLength: 1, maxLength: 200 }),
        seedArb,
        (keys, seed) => {
          const values = BigUint64Array.from(keys);
          const words = new Uint32Array(values.buffer);
          const out = new Uint32Array(2 * keys.length);
          xxh64Words8(words, keys.length, seed64(seed), out);
          const bytes = new Uint8Array(values.buffer);
          for (let i = 0; i < keys.length; i++) {
            expect(hashAt(out, i)).toBe(nativeXxh64(bytes.subarray(8 * i, 8 * i + 8), seed));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("xxh64Ranges equals native XXH64 for byte strings of every length 0..100, random seeds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 100 }), { minLength: 1, maxLength: 40 }),
        seedArb,
        (keys, seed) => {
          const offsets = new Int32Array(keys.length + 1);
          keys.forEach((k, i) => {
            offsets[i + 1] = (offsets[i] as number) + k.length;
          });
          const bytes = new Uint8Array(offsets[keys.length] as number);
          keys.forEach((k, i) => {
            bytes.set(k, offsets[i] as number);
          });
          const out = new Uint32Array(2 * keys.length);
          xxh64Ranges(bytes, offsets, keys.length, seed64(seed), out);
          keys.forEach((k, i) => {
            expect(hashAt(out, i)).toBe(nativeXxh64(k, seed));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([1, 2, 4, 8, 16, 32, 33])("xxh64Fixed equals native XXH64 for %i-byte cells", (width) => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: width, maxLength: width * 50 }), seedArb, (raw, seed) => {
        const count = Math.floor(raw.length / width);
        const out = new Uint32Array(2 * count);
        xxh64Fixed(raw, width, count, seed64(seed), out);
        for (let i = 0; i < count; i++) {
          expect(hashAt(out, i)).toBe(nativeXxh64(raw.subarray(i * width, i * width + width), seed));
        }
      }),
      { numRuns: 100 },
    );
  });

  it("covers every length 0..300 exhaustively with a fixed random buffer and seed", () => {
    const buffer = new Uint8Array(300).map((_, i) => (i * 131 + 17) & 0xff);
    const seed = 0xfedcba9876543210n;
    for (let n = 0; n <= 300; n++) {
      expect(xxh64(buffer.subarray(0, n), seed)).toBe(nativeXxh64(buffer.subarray(0, n), seed));
    }
  });
});

describe("xxh64 parity with the spec-derived Python implementation (oracle)", () => {
  let oracle: Oracle;
  beforeAll(async () => {
    oracle = await connectOracle();
  });
  afterAll(() => oracle?.close());

  it("equals Python's XXH64 on random inputs of 0–80 bytes with random seeds", async () => {
    const samples = fc.sample(
      fc.record({
        keys: fc.array(fc.uint8Array({ maxLength: 80 }), { minLength: 1, maxLength: 30 }),
        seed: seedArb,
      }),
      { numRuns: 20, seed: 42 },
    );
    for (const { keys, seed } of samples) {
      const expected = await oracle.call<string[]>("xxh64_reference", {
        hex: keys.map((k) => Buffer.from(k).toString("hex")),
        seed: seed.toString(),
      });
      expect(keys.map((k) => xxh64(k, seed).toString())).toEqual(expected);
    }
  });
});
