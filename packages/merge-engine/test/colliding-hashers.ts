/**
 * Key hashers that collide on purpose, for the tests that prove a collision can only add work (a candidate
 * to verify, a file to rewrite) and never change a result: every key hashing to 0, and XXH64 cut to a few
 * low bits.
 */
import { defaultKeyHasher, type KeyHasher } from "../src/index.js";

export const zeroHasher: KeyHasher = {
  id: "zero",
  words8: (_w, count, out) => out.fill(0, 0, 2 * count),
  fixed: (_b, _w, count, out) => out.fill(0, 0, 2 * count),
  ranges: (_b, _o, count, out) => out.fill(0, 0, 2 * count),
};

/** XXH64 cut to its low `bits` bits: many distinct keys share a hash. */
export function truncated(bits: number): KeyHasher {
  const cut = (count: number, out: Uint32Array) => {
    for (let i = 0; i < count; i++) {
      out[2 * i] = (out[2 * i] as number) & ((1 << bits) - 1);
      out[2 * i + 1] = 0;
    }
  };
  return {
    id: `xxh64-low-${bits}`,
    words8: (w, count, out) => {
      defaultKeyHasher.words8(w, count, out);
      cut(count, out);
    },
    fixed: (b, width, count, out) => {
      defaultKeyHasher.fixed(b, width, count, out);
      cut(count, out);
    },
    ranges: (b, o, count, out) => {
      defaultKeyHasher.ranges(b, o, count, out);
      cut(count, out);
    },
  };
}
