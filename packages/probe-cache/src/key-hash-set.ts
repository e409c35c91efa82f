/**
 * Owns the compact, immutable set of 64-bit key hashes of one data file: the hashes sorted by value with
 * duplicates removed, 8 bytes each, searched by binary search over (hi, lo) 32-bit words (no BigInt on the
 * lookup path). It answers "may this file hold one of these keys?": equal keys give equal hashes, so a "no"
 * is exact and a "yes" may be a hash collision.
 *
 * Measured (tools/bench/probe-cache/key-hash-set-bench.mjs, Node 20, 2-core VM at load ~3): fromWords of 1M
 * hashes 102–126 ms (the native BigUint64Array sort does the work); 50k probes against 1M hashes, no hit,
 * 18–19 ms. 2026-12-02, duplicates dropped over the words instead of BigInt reads: 73.5–75.1 → 67.3–67.9 ms
 * (two runs each, quiet machine). The probe's sets for the cache are sorted when first read
 * (`ofOwnedWords`): interleaved 1M recent-shape upserts, 5 pairs, call 2.05 → 1.57 s and process CPU
 * 3.71 → 3.09 s (medians; merge-engine BENCHMARKS.md, session 9).
 */

export class KeyHashSet {
  /** The word pairs; sorted and unique once `#sorted` (a set taken over by `ofOwnedWords` sorts on first use). */
  #words: Uint32Array;
  #sorted: boolean;

  private constructor(words: Uint32Array, sorted: boolean) {
    this.#words = words;
    this.#sorted = sorted;
  }

  /** (lo, hi) word pairs in ascending 64-bit order, unique. Read by ProbeKeys; never modified. */
  get words(): Uint32Array {
    if (!this.#sorted) {
      this.#words = sortedUnique(this.#words);
      this.#sorted = true;
    }
    return this.#words;
  }

  /**
   * Builds the set from (lo, hi) word pairs (hash i at words[2i], words[2i+1]); rows with skip[i] = 1 are
   * left out (for example NULL keys, which never match).
   */
  static fromWords(words: Uint32Array, skip?: Uint8Array): KeyHashSet {
    const count = words.length >> 1;
    let kept = count;
    if (skip !== undefined) for (let i = 0; i < count; i++) kept -= skip[i] === 1 ? 1 : 0;
    const view = new Uint32Array(2 * kept);
    if (skip === undefined) view.set(words.subarray(0, 2 * count));
    else {
      let at = 0;
      for (let i = 0; i < count; i++) {
        if (skip[i] === 1) continue;
        view[at++] = words[2 * i] as number;
        view[at++] = words[2 * i + 1] as number;
      }
    }
    return new KeyHashSet(sortedUnique(view), true);
  }

  /**
   * The set of the word pairs in `words`, which it takes over (the caller keeps no reference; its byte offset
   * is a multiple of 8), sorted only when first read. The probe caches a set for every file it reads without
   * a hit, for a later call to look up: that call pays the sort (about 70 ms per 1M hashes) if it reads the
   * set at all, the probing call does not.
   */
  static ofOwnedWords(words: Uint32Array): KeyHashSet {
    return new KeyHashSet(words, false);
  }

  /** Builds the set from 64-bit hashes. */
  static fromHashes(hashes: BigUint64Array): KeyHashSet {
    return KeyHashSet.fromWords(new Uint32Array(hashes.buffer, hashes.byteOffset, hashes.length * 2));
  }

  /** Number of distinct hashes. */
  get size(): number {
    return this.words.length >> 1;
  }

  /** Bytes held by the hashes (before a deferred sort: the pairs as given, duplicates included). */
  get byteLength(): number {
    return this.#words.byteLength;
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

/**
 * `words` (word pairs, 8-byte aligned) sorted in place by 64-bit value with duplicates dropped (over the
 * 32-bit words: reading a BigUint64Array element allocates a BigInt); a shorter copy when there were any.
 */
function sortedUnique(words: Uint32Array): Uint32Array {
  const count = words.length >> 1;
  new BigUint64Array(words.buffer, words.byteOffset, count).sort();
  let unique = 0;
  for (let i = 0; i < count; i++) {
    const lo = words[2 * i] as number;
    const hi = words[2 * i + 1] as number;
    if (unique > 0 && words[2 * unique - 2] === lo && words[2 * unique - 1] === hi) continue;
    words[2 * unique] = lo;
    words[2 * unique + 1] = hi;
    unique++;
  }
  return unique === count ? words : words.slice(0, 2 * unique);
}
