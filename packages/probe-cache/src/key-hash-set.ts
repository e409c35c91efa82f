/**
 * Owns the compact, immutable set of 64-bit key hashes of one data file: the hashes sorted by value with
 * duplicates removed, 8 bytes each, searched by binary search over (hi, lo) 32-bit words (no BigInt on the
 * lookup path). It answers "may this file hold one of these keys?": equal keys give equal hashes, so a "no"
 * is exact and a "yes" may be a hash collision.
 *
 * Measured (tools/bench/probe-cache/key-hash-set-bench.mjs, Node 20, 2-core VM at load ~3): fromWords of 1M
 * hashes 102–126 ms (the native BigUint64Array sort does the work); 50k probes against 1M hashes, no hit,
 * 18–19 ms. 2026-12-02, duplicates dropped over the words instead of BigInt reads: 73.5–75.1 → 67.3–67.9 ms
 * (two runs each, quiet machine).
 */

export class KeyHashSet {
  /** (lo, hi) word pairs in ascending 64-bit order, unique. Read by ProbeKeys; never modified. */
  readonly words: Uint32Array;

  private constructor(words: Uint32Array) {
    this.words = words;
  }

  /**
   * Builds the set from (lo, hi) word pairs (hash i at words[2i], words[2i+1]); rows with skip[i] = 1 are
   * left out (for example NULL keys, which never match).
   */
  static fromWords(words: Uint32Array, skip?: Uint8Array): KeyHashSet {
    const count = words.length >> 1;
    let kept = count;
    if (skip !== undefined) for (let i = 0; i < count; i++) kept -= skip[i] === 1 ? 1 : 0;
    const sorted = new BigUint64Array(kept);
    const view = new Uint32Array(sorted.buffer);
    if (skip === undefined) view.set(words.subarray(0, 2 * count));
    else {
      let at = 0;
      for (let i = 0; i < count; i++) {
        if (skip[i] === 1) continue;
        view[at++] = words[2 * i] as number;
        view[at++] = words[2 * i + 1] as number;
      }
    }
    sorted.sort();
    // Duplicates dropped over the 32-bit words: reading a BigUint64Array element allocates a BigInt.
    let unique = 0;
    for (let i = 0; i < kept; i++) {
      const lo = view[2 * i] as number;
      const hi = view[2 * i + 1] as number;
      if (unique > 0 && view[2 * unique - 2] === lo && view[2 * unique - 1] === hi) continue;
      view[2 * unique] = lo;
      view[2 * unique + 1] = hi;
      unique++;
    }
    return new KeyHashSet(unique === kept ? view : view.slice(0, 2 * unique));
  }

  /** Builds the set from 64-bit hashes. */
  static fromHashes(hashes: BigUint64Array): KeyHashSet {
    return KeyHashSet.fromWords(new Uint32Array(hashes.buffer, hashes.byteOffset, hashes.length * 2));
  }

  /** Number of distinct hashes. */
  get size(): number {
    return this.words.length >> 1;
  }

  /** Bytes held by the hashes. */
  get byteLength(): number {
    return this.words.byteLength;
  }

  /** True when the 64-bit hash (hi, lo) is in the set. */
  has(lo: number, hi: number): boolean {
    const w = this.words;
    let a = 0;
    let b = (w.length >> 1) - 1;
    while (a <= b) {
      const m = (a + b) >> 1;
      const mh = w[2 * m + 1] as number;
      const ml = w[2 * m] as number;
      if (mh === hi && ml === lo) return true;
      if (mh < hi || (mh === hi && ml < lo)) a = m + 1;
      else b = m - 1;
    }
    return false;
  }

  /** True when any of the (lo, hi) pairs in `probe` is in the set (one binary search per pair). */
  intersects(probe: Uint32Array): boolean {
    if (this.words.length === 0) return false;
    for (let i = 0; i + 1 < probe.length; i += 2) {
      if (this.has(probe[i] as number, probe[i + 1] as number)) return true;
    }
    return false;
  }

  /** The hashes as 64-bit numbers, ascending. */
  toHashes(): BigUint64Array {
    return new BigUint64Array(this.words.buffer, this.words.byteOffset, this.words.length >> 1);
  }
}
