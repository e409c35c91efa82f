/**
 * Owns XXH64 (the xxHash 64-bit hash, with a 64-bit seed) in pure JavaScript over 32-bit limbs, batched:
 * one call hashes many keys held in one buffer, because per-call overhead dominates hashing short keys
 * (no JavaScript library hashes a batch per call, and a native call per key tops out at ~4–8 M keys/s).
 *
 * A 64-bit value is a pair of unsigned 32-bit numbers (hi, lo). Hash outputs are written as (lo, hi) word
 * pairs into a Uint32Array, so on little-endian hosts a BigUint64Array over the same memory reads them as
 * 64-bit numbers. Measured by tools/bench/merge-engine/hash-bench.mjs (2-core VM, Node 20): see the numbers next to
 * `xxh64Words8` and `xxh64Ranges`. The default key hasher runs the WebAssembly twin of these (xxh64-wasm.ts,
 * 4–6x faster); they remain its reference, its fallback, and the `xxh64` of single keys.
 */

/** A 64-bit seed as two unsigned 32-bit halves. */
export interface Seed64 {
  readonly hi: number;
  readonly lo: number;
}

/** Splits a bigint seed (taken modulo 2^64) into 32-bit halves. */
export function seed64(seed: bigint): Seed64 {
  const s = BigInt.asUintN(64, seed);
  return { hi: Number(s >> 32n), lo: Number(s & 0xffffffffn) };
}

// The XXH64 primes as (hi, lo) (P3 appears only inlined, in the tail and avalanche code).
const P1H = 0x9e3779b1;
const P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d;
const P2L = 0x27d4eb4f;
const P4H = 0x85ebca77;
const P4L = 0xc2b2ae63;
const P5H = 0x27d4eb2f;
const P5L = 0x165667c5;
// P1 + P2 mod 2^64 (the first accumulator starts at seed + P1 + P2).
const P1P2L = (P1L + P2L) >>> 0;
const P1P2H = (P1H + P2H + (P1L + P2L > 0xffffffff ? 1 : 0)) >>> 0;
// 2^64 - P1 (the initial value of the fourth accumulator is seed - P1).
const NEG_P1H = 0x61c8864e;
const NEG_P1L = 0x7a143579;

// Result registers of `add` and `hashRange` (module scope keeps them allocation-free). The per-key paths
// write their 64-bit arithmetic out instead of calling helpers: helper calls writing these registers were
// 3-10x slower there.
let rh = 0;
let rl = 0;

/** (rh, rl) = (ah, al) + (bh, bl) mod 2^64. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const l = al + bl;
  rl = l >>> 0;
  rh = (ah + bh + (l > 0xffffffff ? 1 : 0)) >>> 0;
}

/** The four accumulators of keys of 32 bytes or more, as (lo, hi) pairs: module scope, no allocation per key. */
const acc = new Uint32Array(8);
const MERGE_ROTATIONS = [1, 7, 12, 18] as const;

/**
 * Runs the 32-byte stripes of bytes[start, stripesEnd) through the four accumulators (seeded first). The
 * 64-bit arithmetic is written out in the loop body: with helper calls V8 gave up inlining in the big hash
 * function and 36-byte keys hashed at 0.7 M keys/s (tools/bench/merge-engine/hash-bench.mjs; written out: see xxh64Ranges).
 */
function hashStripes(
  view: DataView,
  start: number,
  stripesEnd: number,
  seedHi: number,
  seedLo: number,
): void {
  // v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1 (all mod 2^64).
  let sum = seedLo + P1P2L;
  acc[0] = sum >>> 0;
  acc[1] = (seedHi + P1P2H + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  sum = seedLo + P2L;
  acc[2] = sum >>> 0;
  acc[3] = (seedHi + P2H + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  acc[4] = seedLo;
  acc[5] = seedHi;
  sum = seedLo + NEG_P1L;
  acc[6] = sum >>> 0;
  acc[7] = (seedHi + NEG_P1H + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  for (let i = start; i < stripesEnd; i += 32) {
    for (let k = 0; k < 4; k++) {
      const ll = view.getUint32(i + 8 * k, true);
      const lh = view.getUint32(i + 8 * k + 4, true);
      // p = lane * P2
      let a0 = ll & 0xffff;
      let a1 = ll >>> 16;
      let m1 = a1 * 0xeb4f;
      let m2 = a0 * 0x27d4;
      let mid = ((a0 * 0xeb4f) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
      const pl = Math.imul(ll, 0x27d4eb4f) >>> 0;
      const ph =
        (a1 * 0x27d4 +
          (m1 >>> 16) +
          (m2 >>> 16) +
          (mid >>> 16) +
          Math.imul(lh, 0x27d4eb4f) +
          Math.imul(ll, 0xc2b2ae3d)) >>>
        0;
      // x = rotl(acc + p, 31)
      const sum = (acc[2 * k] as number) + pl;
      const sl = sum >>> 0;
      const sh = ((acc[2 * k + 1] as number) + ph + (sum > 0xffffffff ? 1 : 0)) >>> 0;
      const xh = ((sh << 31) | (sl >>> 1)) >>> 0;
      const xl = ((sl << 31) | (sh >>> 1)) >>> 0;
      // acc = x * P1
      a0 = xl & 0xffff;
      a1 = xl >>> 16;
      m1 = a1 * 0xca87;
      m2 = a0 * 0x85eb;
      mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
      acc[2 * k] = Math.imul(xl, 0x85ebca87) >>> 0;
      acc[2 * k + 1] =
        (a1 * 0x85eb +
          (m1 >>> 16) +
          (m2 >>> 16) +
          (mid >>> 16) +
          Math.imul(xh, 0x85ebca87) +
          Math.imul(xl, 0x9e3779b1)) >>>
        0;
    }
  }
}

/** The merged hash of the four accumulators, as (lo, hi): the result of `mergeAccumulators`. */
const merged = new Uint32Array(2);

/**
 * merged = the sum of the accumulators' rotations, then each accumulator folded in: h ^= round(0, v);
 * h = h * P1 + P4. Written out like hashStripes (helper calls here cost ~3x).
 */
function mergeAccumulators(): void {
  let h = 0;
  let l = 0;
  for (let k = 0; k < 4; k++) {
    const r = MERGE_ROTATIONS[k] as number;
    const vl = acc[2 * k] as number;
    const vh = acc[2 * k + 1] as number;
    const sum = l + (((vl << r) | (vh >>> (32 - r))) >>> 0);
    l = sum >>> 0;
    h = (h + (((vh << r) | (vl >>> (32 - r))) >>> 0) + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  }
  for (let k = 0; k < 4; k++) {
    const vl = acc[2 * k] as number;
    const vh = acc[2 * k + 1] as number;
    // p = v * P2
    let a0 = vl & 0xffff;
    let a1 = vl >>> 16;
    let m1 = a1 * 0xeb4f;
    let m2 = a0 * 0x27d4;
    let mid = ((a0 * 0xeb4f) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    const pl = Math.imul(vl, 0x27d4eb4f) >>> 0;
    const ph =
      (a1 * 0x27d4 +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(vh, 0x27d4eb4f) +
        Math.imul(vl, 0xc2b2ae3d)) >>>
      0;
    // x = rotl(p, 31)
    const xh = ((ph << 31) | (pl >>> 1)) >>> 0;
    const xl = ((pl << 31) | (ph >>> 1)) >>> 0;
    // h ^= x * P1
    a0 = xl & 0xffff;
    a1 = xl >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    l = (l ^ Math.imul(xl, 0x85ebca87)) >>> 0;
    h =
      (h ^
        (a1 * 0x85eb +
          (m1 >>> 16) +
          (m2 >>> 16) +
          (mid >>> 16) +
          Math.imul(xh, 0x85ebca87) +
          Math.imul(xl, 0x9e3779b1))) >>>
      0;
    // h = h * P1 + P4
    a0 = l & 0xffff;
    a1 = l >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    const ml = Math.imul(l, 0x85ebca87) >>> 0;
    const mh =
      (a1 * 0x85eb +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(h, 0x85ebca87) +
        Math.imul(l, 0x9e3779b1)) >>>
      0;
    const sum = ml + P4L;
    l = sum >>> 0;
    h = (mh + P4H + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  }
  merged[0] = l;
  merged[1] = h;
}

/** (rh, rl) = XXH64 of bytes[start, end) with the seed (seedHi, seedLo). */
function hashRange(
  bytes: Uint8Array,
  view: DataView,
  start: number,
  end: number,
  seedHi: number,
  seedLo: number,
): void {
  const len = end - start;
  let i = start;
  let h: number;
  let l: number;
  if (len >= 32) {
    const stripesEnd = start + (len - (len % 32));
    hashStripes(view, start, stripesEnd, seedHi, seedLo);
    mergeAccumulators();
    l = merged[0] as number;
    h = merged[1] as number;
    i = stripesEnd;
  } else {
    const sum = seedLo + P5L;
    l = sum >>> 0;
    h = (seedHi + P5H + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  }
  const withLength = l + len;
  l = withLength >>> 0;
  h = (h + (withLength > 0xffffffff ? 1 : 0)) >>> 0;
  let kh: number;
  let kl: number;
  let a0: number;
  let a1: number;
  let m1: number;
  let m2: number;
  let mid: number;
  let t: number;
  while (i + 8 <= end) {
    kl = view.getUint32(i, true);
    kh = view.getUint32(i + 4, true);
    a0 = kl & 0xffff;
    a1 = kl >>> 16;
    m1 = a1 * 0xeb4f;
    m2 = a0 * 0x27d4;
    mid = ((a0 * 0xeb4f) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(kl, 0x27d4eb4f) >>> 0;
    kh =
      (a1 * 0x27d4 +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(kh, 0x27d4eb4f) +
        Math.imul(kl, 0xc2b2ae3d)) >>>
      0;
    kl = t;
    t = ((kh << 31) | (kl >>> 1)) >>> 0;
    kl = ((kl << 31) | (kh >>> 1)) >>> 0;
    kh = t;
    a0 = kl & 0xffff;
    a1 = kl >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(kl, 0x85ebca87) >>> 0;
    kh =
      (a1 * 0x85eb +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(kh, 0x85ebca87) +
        Math.imul(kl, 0x9e3779b1)) >>>
      0;
    kl = t;
    h = (h ^ kh) >>> 0;
    l = (l ^ kl) >>> 0;
    t = ((h << 27) | (l >>> 5)) >>> 0;
    l = ((l << 27) | (h >>> 5)) >>> 0;
    h = t;
    a0 = l & 0xffff;
    a1 = l >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(l, 0x85ebca87) >>> 0;
    h =
      (a1 * 0x85eb +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(h, 0x85ebca87) +
        Math.imul(l, 0x9e3779b1)) >>>
      0;
    l = t;
    t = l + 0xc2b2ae63;
    l = t >>> 0;
    h = (h + 0x85ebca77 + (t > 0xffffffff ? 1 : 0)) >>> 0;
    i += 8;
  }
  if (i + 4 <= end) {
    kl = view.getUint32(i, true);
    a0 = kl & 0xffff;
    a1 = kl >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(kl, 0x85ebca87) >>> 0;
    kh =
      (a1 * 0x85eb +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(0, 0x85ebca87) +
        Math.imul(kl, 0x9e3779b1)) >>>
      0;
    kl = t;
    h = (h ^ kh) >>> 0;
    l = (l ^ kl) >>> 0;
    t = ((h << 23) | (l >>> 9)) >>> 0;
    l = ((l << 23) | (h >>> 9)) >>> 0;
    h = t;
    a0 = l & 0xffff;
    a1 = l >>> 16;
    m1 = a1 * 0xeb4f;
    m2 = a0 * 0x27d4;
    mid = ((a0 * 0xeb4f) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(l, 0x27d4eb4f) >>> 0;
    h =
      (a1 * 0x27d4 +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(h, 0x27d4eb4f) +
        Math.imul(l, 0xc2b2ae3d)) >>>
      0;
    l = t;
    t = l + 0x9e3779f9;
    l = t >>> 0;
    h = (h + 0x165667b1 + (t > 0xffffffff ? 1 : 0)) >>> 0;
    i += 4;
  }
  while (i < end) {
    kl = bytes[i] as number;
    a0 = kl & 0xffff;
    a1 = kl >>> 16;
    m1 = a1 * 0x67c5;
    m2 = a0 * 0x1656;
    mid = ((a0 * 0x67c5) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(kl, 0x165667c5) >>> 0;
    kh =
      (a1 * 0x1656 +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(0, 0x165667c5) +
        Math.imul(kl, 0x27d4eb2f)) >>>
      0;
    kl = t;
    h = (h ^ kh) >>> 0;
    l = (l ^ kl) >>> 0;
    t = ((h << 11) | (l >>> 21)) >>> 0;
    l = ((l << 11) | (h >>> 21)) >>> 0;
    h = t;
    a0 = l & 0xffff;
    a1 = l >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(l, 0x85ebca87) >>> 0;
    h =
      (a1 * 0x85eb +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(h, 0x85ebca87) +
        Math.imul(l, 0x9e3779b1)) >>>
      0;
    l = t;
    i++;
  }
  l = (l ^ (h >>> 1)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  m1 = a1 * 0xeb4f;
  m2 = a0 * 0x27d4;
  mid = ((a0 * 0xeb4f) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
  t = Math.imul(l, 0x27d4eb4f) >>> 0;
  h =
    (a1 * 0x27d4 +
      (m1 >>> 16) +
      (m2 >>> 16) +
      (mid >>> 16) +
      Math.imul(h, 0x27d4eb4f) +
      Math.imul(l, 0xc2b2ae3d)) >>>
    0;
  l = t;
  l = (l ^ ((l >>> 29) | (h << 3))) >>> 0;
  h = (h ^ (h >>> 29)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  m1 = a1 * 0x79f9;
  m2 = a0 * 0x9e37;
  mid = ((a0 * 0x79f9) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
  t = Math.imul(l, 0x9e3779f9) >>> 0;
  h =
    (a1 * 0x9e37 +
      (m1 >>> 16) +
      (m2 >>> 16) +
      (mid >>> 16) +
      Math.imul(h, 0x9e3779f9) +
      Math.imul(l, 0x165667b1)) >>>
    0;
  l = t;
  l = (l ^ h) >>> 0;
  rh = h;
  rl = l;
}

/**
 * XXH64 of `count` 8-byte little-endian keys held as (lo, hi) word pairs in `words` (key i at words[2i],
 * words[2i+1]); hash i goes to out[2i] (lo), out[2i+1] (hi). The hot path for every integer, date,
 * timestamp and float key. Measured (tools/bench/merge-engine/hash-bench.mjs, 1M int64 keys, 2-core VM, Node 20): 28–32 M
 * keys/s at load average ~4–5 and 12.7–16.5 at ~9–10, vs 1.9–3.4 / 1.0–1.5 M keys/s for native
 * @node-rs/xxhash called once per key in the same runs. The arithmetic is inlined on purpose: the first
 * version, with helper calls writing module-scope registers, ran 2.1 M keys/s at load ~9.
 */
export function xxh64Words8(words: Uint32Array, count: number, seed: Seed64, out: Uint32Array): void {
  // seed + P5 + 8
  add(seed.hi, seed.lo, P5H, P5L);
  add(rh, rl, 0, 8);
  const starth = rh;
  const startl = rl;
  // Fully inlined 32-bit-limb arithmetic: helper calls writing module-scope registers ran ~4x slower here.
  let kh: number;
  let kl: number;
  let h: number;
  let l: number;
  let a0: number;
  let a1: number;
  let m1: number;
  let m2: number;
  let mid: number;
  let t: number;
  for (let k = 0; k < count; k++) {
    kl = words[2 * k] as number;
    kh = words[2 * k + 1] as number;
    a0 = kl & 0xffff;
    a1 = kl >>> 16;
    m1 = a1 * 0xeb4f;
    m2 = a0 * 0x27d4;
    mid = ((a0 * 0xeb4f) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(kl, 0x27d4eb4f) >>> 0;
    kh =
      (a1 * 0x27d4 +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(kh, 0x27d4eb4f) +
        Math.imul(kl, 0xc2b2ae3d)) >>>
      0;
    kl = t;
    t = ((kh << 31) | (kl >>> 1)) >>> 0;
    kl = ((kl << 31) | (kh >>> 1)) >>> 0;
    kh = t;
    a0 = kl & 0xffff;
    a1 = kl >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(kl, 0x85ebca87) >>> 0;
    kh =
      (a1 * 0x85eb +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(kh, 0x85ebca87) +
        Math.imul(kl, 0x9e3779b1)) >>>
      0;
    kl = t;
    h = (starth ^ kh) >>> 0;
    l = (startl ^ kl) >>> 0;
    t = ((h << 27) | (l >>> 5)) >>> 0;
    l = ((l << 27) | (h >>> 5)) >>> 0;
    h = t;
    a0 = l & 0xffff;
    a1 = l >>> 16;
    m1 = a1 * 0xca87;
    m2 = a0 * 0x85eb;
    mid = ((a0 * 0xca87) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(l, 0x85ebca87) >>> 0;
    h =
      (a1 * 0x85eb +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(h, 0x85ebca87) +
        Math.imul(l, 0x9e3779b1)) >>>
      0;
    l = t;
    t = l + 0xc2b2ae63;
    l = t >>> 0;
    h = (h + 0x85ebca77 + (t > 0xffffffff ? 1 : 0)) >>> 0;
    l = (l ^ (h >>> 1)) >>> 0;
    a0 = l & 0xffff;
    a1 = l >>> 16;
    m1 = a1 * 0xeb4f;
    m2 = a0 * 0x27d4;
    mid = ((a0 * 0xeb4f) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(l, 0x27d4eb4f) >>> 0;
    h =
      (a1 * 0x27d4 +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(h, 0x27d4eb4f) +
        Math.imul(l, 0xc2b2ae3d)) >>>
      0;
    l = t;
    l = (l ^ ((l >>> 29) | (h << 3))) >>> 0;
    h = (h ^ (h >>> 29)) >>> 0;
    a0 = l & 0xffff;
    a1 = l >>> 16;
    m1 = a1 * 0x79f9;
    m2 = a0 * 0x9e37;
    mid = ((a0 * 0x79f9) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
    t = Math.imul(l, 0x9e3779f9) >>> 0;
    h =
      (a1 * 0x9e37 +
        (m1 >>> 16) +
        (m2 >>> 16) +
        (mid >>> 16) +
        Math.imul(h, 0x9e3779f9) +
        Math.imul(l, 0x165667b1)) >>>
      0;
    l = t;
    l = (l ^ h) >>> 0;
    out[2 * k] = l;
    out[2 * k + 1] = h;
  }
}

/**
 * XXH64 of `count` byte ranges of one buffer: key i is bytes[offsets[i], offsets[i+1]) (Arrow's
 * Utf8/Binary layout, so string keys hash straight from the column's buffers with no copy). Hash i goes
 * to out[2i] (lo), out[2i+1] (hi). Measured (same bench and machine): 16-byte strings at 7.7–9.1 M keys/s
 * (load ~4–5) and 3.6–5.1 (load ~9–10), vs 1.8–2.2 / 1.0–1.4 M keys/s for native @node-rs/xxhash called
 * once per key. Lanes are read with DataView.getUint32: assembling them from single bytes ran 2.3–2.8 M
 * keys/s where DataView ran 3.6–3.9 (load ~9). Keys of 32 bytes or more (UUID strings: 36 bytes) ran
 * 0.7–0.8 M keys/s while the stripe and merge steps called helpers; written out, 3.8 M keys/s (load ~1.2;
 * native per key: 2.6), so a 1M-row upsert with UUID keys spends ~0.4 s hashing instead of ~2.1 s.
 */
export function xxh64Ranges(
  bytes: Uint8Array,
  offsets: ArrayLike<number>,
  count: number,
  seed: Seed64,
  out: Uint32Array,
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < count; k++) {
    hashRange(bytes, view, offsets[k] as number, offsets[k + 1] as number, seed.hi, seed.lo);
    out[2 * k] = rl;
    out[2 * k + 1] = rh;
  }
}

/** XXH64 of `count` keys of `width` bytes each, stored back to back from byte 0 (decimals, fixed binary). */
export function xxh64Fixed(
  bytes: Uint8Array,
  width: number,
  count: number,
  seed: Seed64,
  out: Uint32Array,
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < count; k++) {
    hashRange(bytes, view, k * width, k * width + width, seed.hi, seed.lo);
    out[2 * k] = rl;
    out[2 * k + 1] = rh;
  }
}

/** XXH64 of one byte array as a bigint (convenience for tests and single keys). */
export function xxh64(bytes: Uint8Array, seed: bigint = 0n): bigint {
  const s = seed64(seed);
  hashRange(
    bytes,
    new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    0,
    bytes.length,
    s.hi,
    s.lo,
  );
  return (BigInt(rh) << 32n) | BigInt(rl);
}
