/**
 * Owns XXH64 (the xxHash 64-bit hash, with a 64-bit seed) in pure JavaScript over 32-bit limbs, batched:
 * one call hashes many keys held in one buffer, because per-call overhead dominates hashing short keys
 * (reference/js-ecosystem.md §6: no library batches; a native call per key tops out at ~4–8 M keys/s).
 *
 * A 64-bit value is a pair of unsigned 32-bit numbers (hi, lo). Hash outputs are written as (lo, hi) word
 * pairs into a Uint32Array, so on little-endian hosts a BigUint64Array over the same memory reads them as
 * 64-bit numbers. Measured by bench/hash-bench.mjs (2-core VM, Node 20): see the numbers next to
 * `xxh64Words8` and `xxh64Ranges`.
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
// 2^64 - P1 (the initial value of the fourth accumulator is seed - P1).
const NEG_P1H = 0x61c8864e;
const NEG_P1L = 0x7a143579;

// Result registers of the 64-bit helpers below (module scope keeps the helpers allocation-free; V8 inlines
// them into the loops).
let rh = 0;
let rl = 0;

/** (rh, rl) = low 64 bits of (ah, al) * (bh, bl). */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const m1 = a1 * b0;
  const m2 = a0 * b1;
  const mid = ((a0 * b0) >>> 16) + (m1 & 0xffff) + (m2 & 0xffff);
  rl = Math.imul(al, bl) >>> 0;
  rh = (a1 * b1 + (m1 >>> 16) + (m2 >>> 16) + (mid >>> 16) + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** (rh, rl) = (ah, al) + (bh, bl) mod 2^64. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const l = al + bl;
  rl = l >>> 0;
  rh = (ah + bh + (l > 0xffffffff ? 1 : 0)) >>> 0;
}

/** (rh, rl) = rotl((h, l), r) for 0 < r < 32. */
function rotl(h: number, l: number, r: number): void {
  rh = ((h << r) | (l >>> (32 - r))) >>> 0;
  rl = ((l << r) | (h >>> (32 - r))) >>> 0;
}

/** (rh, rl) = round(acc, lane) = rotl(acc + lane * P2, 31) * P1. */
function round(acch: number, accl: number, laneh: number, lanel: number): void {
  mul(laneh, lanel, P2H, P2L);
  add(acch, accl, rh, rl);
  rotl(rh, rl, 31);
  mul(rh, rl, P1H, P1L);
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
    add(seedHi, seedLo, P1H, P1L);
    add(rh, rl, P2H, P2L);
    let v1h = rh;
    let v1l = rl;
    add(seedHi, seedLo, P2H, P2L);
    let v2h = rh;
    let v2l = rl;
    let v3h = seedHi;
    let v3l = seedLo;
    add(seedHi, seedLo, NEG_P1H, NEG_P1L);
    let v4h = rh;
    let v4l = rl;
    const limit = end - 32;
    while (i <= limit) {
      round(v1h, v1l, view.getUint32(i + 4, true), view.getUint32(i, true));
      v1h = rh;
      v1l = rl;
      round(v2h, v2l, view.getUint32(i + 12, true), view.getUint32(i + 8, true));
      v2h = rh;
      v2l = rl;
      round(v3h, v3l, view.getUint32(i + 20, true), view.getUint32(i + 16, true));
      v3h = rh;
      v3l = rl;
      round(v4h, v4l, view.getUint32(i + 28, true), view.getUint32(i + 24, true));
      v4h = rh;
      v4l = rl;
      i += 32;
    }
    rotl(v1h, v1l, 1);
    h = rh;
    l = rl;
    rotl(v2h, v2l, 7);
    add(h, l, rh, rl);
    h = rh;
    l = rl;
    rotl(v3h, v3l, 12);
    add(h, l, rh, rl);
    h = rh;
    l = rl;
    rotl(v4h, v4l, 18);
    add(h, l, rh, rl);
    h = rh;
    l = rl;
    const vs = [v1h, v1l, v2h, v2l, v3h, v3l, v4h, v4l];
    for (let k = 0; k < 8; k += 2) {
      round(0, 0, vs[k] as number, vs[k + 1] as number);
      h = (h ^ rh) >>> 0;
      l = (l ^ rl) >>> 0;
      mul(h, l, P1H, P1L);
      add(rh, rl, P4H, P4L);
      h = rh;
      l = rl;
    }
  } else {
    add(seedHi, seedLo, P5H, P5L);
    h = rh;
    l = rl;
  }
  add(h, l, 0, len);
  h = rh;
  l = rl;
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
 * timestamp and float key. Measured (bench/hash-bench.mjs, 1M int64 keys, 2-core VM, Node 20): 28–32 M
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
 * keys/s where DataView ran 3.6–3.9 (load ~9).
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
