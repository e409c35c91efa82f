/**
 * Owns the hash function of primary keys: an injectable `KeyHasher` (so a test can force collisions) and
 * the default one, XXH64 under the fixed deltalite seed. The seed and the canonical key bytes are the whole
 * contract of `keyBuckets` and of the probe cache's hashes: change either and persisted bucket ids and
 * cached hashes change meaning.
 */
import { type Seed64, seed64 } from "./xxh64.js";
import { xxh64FixedWasm, xxh64RangesWasm, xxh64Words8Wasm } from "./xxh64-wasm.js";

/** The fixed seed of key hashes ("deltalit" as ASCII bytes, big-endian). */
export const KEY_HASH_SEED = 0x64656c74616c6974n;

/**
 * Hashes many canonical keys at once. Every method writes hash i as (lo, hi) into out[2i], out[2i+1].
 * The three methods must agree: equal canonical bytes give equal hashes whichever method saw them.
 */
export interface KeyHasher {
  /** A name that identifies the function and its seed (part of the probe cache's key space). */
  readonly id: string;
  /** `count` 8-byte keys as (lo, hi) word pairs. */
  words8(words: Uint32Array, count: number, out: Uint32Array): void;
  /** `count` keys of `width` bytes stored back to back from byte 0. */
  fixed(bytes: Uint8Array, width: number, count: number, out: Uint32Array): void;
  /** `count` keys: key i is bytes[offsets[i], offsets[i+1]). */
  ranges(bytes: Uint8Array, offsets: ArrayLike<number>, count: number, out: Uint32Array): void;
}

/**
 * The default hasher: XXH64 with `seed` (KEY_HASH_SEED unless given) over the canonical key bytes, computed
 * by the WebAssembly batch hash (xxh64-wasm.ts; equal to the JavaScript one in xxh64.ts bit for bit).
 */
export function xxh64KeyHasher(seed: bigint = KEY_HASH_SEED): KeyHasher {
  const s: Seed64 = seed64(seed);
  return {
    id: `xxh64:${BigInt.asUintN(64, seed).toString(16)}`,
    words8: (words, count, out) => xxh64Words8Wasm(words, count, s, out),
    fixed: (bytes, width, count, out) => xxh64FixedWasm(bytes, width, count, s, out),
    ranges: (bytes, offsets, count, out) => xxh64RangesWasm(bytes, offsets, count, s, out),
  };
}

/** The shared default hasher instance. */
export const defaultKeyHasher: KeyHasher = xxh64KeyHasher();
