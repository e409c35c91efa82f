/**
 * Owns the probe cache: an LRU of per-file primary-key hash sets keyed by (table URL, file path), with byte
 * accounting against a cap. A Delta data file never changes, so the set of its key hashes stays true for as
 * long as the file exists; a probe consults it instead of reading the file's key columns.
 *
 * Rules (seed "Probe cache"): entries use at most `maxBytes`; one entry at most maxBytes/8 (a file with more
 * keys is probed every time); hashes collected for files still being read or written ("in flight") use at
 * most maxBytes/4 more, so the cache holds at most 1.25 × maxBytes; `maxBytes` 0 turns the cache off.
 * An entry also records its key space (key columns, their types, the hash function): a lookup in another key
 * space is a miss, so hashes of other keys can never make a probe skip a file.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { KeyHashSet } from "./key-hash-set.js";
import { ProbeKeys } from "./probe-keys.js";

/** Bytes charged per entry besides its hashes (map slot, entry object, typed-array header). */
export const ENTRY_OVERHEAD_BYTES = 160;

export interface ProbeCacheStats {
  /** Bytes held by entries (hashes + per-entry overhead), in-flight collections excluded. */
  size: number;
  entries: number;
  hits: number;
  misses: number;
  maxBytes: number;
  /** Bytes reserved by collections in flight. */
  inFlightBytes: number;
}

interface Entry {
  readonly table: string;
  readonly path: string;
  readonly keySpace: string;
  readonly hashes: KeyHashSet;
  readonly bytes: number;
}

function mapKey(table: string, path: string): string {
  return `${table}\u0000${path}`;
}

function entryBytes(table: string, path: string, keySpace: string, hashBytes: number): number {
  return hashBytes + ENTRY_OVERHEAD_BYTES + 2 * (table.length + path.length + keySpace.length);
}

function checkMaxBytes(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new DeltaLiteError(
      "generic",
      `probe cache size must be a non-negative integer number of bytes, got ${maxBytes}`,
    );
  }
}

export class ProbeCache {
  private maxBytesValue: number;
  private readonly entries = new Map<string, Entry>();
  private sizeBytes = 0;
  private inFlight = 0;
  private hitCount = 0;
  private missCount = 0;
  private readonly collections = new Map<string, Set<HashCollection>>();

  constructor(maxBytes: number) {
    checkMaxBytes(maxBytes);
    this.maxBytesValue = maxBytes;
  }

  get maxBytes(): number {
    return this.maxBytesValue;
  }

  /** The largest entry (bytes, overhead included) the cache accepts: maxBytes / 8. */
  get maxEntryBytes(): number {
    return Math.floor(this.maxBytesValue / 8);
  }

  /** The bytes in-flight collections may hold together: maxBytes / 4. */
  get maxInFlightBytes(): number {
    return Math.floor(this.maxBytesValue / 4);
  }

  /** Changes the cap; evicts least recently used entries (and entries now above maxBytes/8) to fit. */
  setMaxBytes(maxBytes: number): void {
    checkMaxBytes(maxBytes);
    this.maxBytesValue = maxBytes;
    for (const [key, entry] of this.entries) {
      if (entry.bytes > this.maxEntryBytes) this.remove(key);
    }
    this.evictTo(this.maxBytesValue);
  }

  /** Drops every entry (in-flight collections may still commit) and resets the hit/miss counters. */
  clear(): void {
    this.entries.clear();
    this.sizeBytes = 0;
    this.hitCount = 0;
    this.missCount = 0;
  }

  stats(): ProbeCacheStats {
    return {
      size: this.sizeBytes,
      entries: this.entries.size,
      hits: this.hitCount,
      misses: this.missCount,
      maxBytes: this.maxBytesValue,
      inFlightBytes: this.inFlight,
    };
  }

  /**
   * The cached key hashes of a file in `keySpace`, marking it most recently used; counts a hit or a miss.
   * undefined: not cached (or cached for another key space) — the caller must read the file.
   */
  lookup(table: string, path: string, keySpace: string): KeyHashSet | undefined {
    const key = mapKey(table, path);
    const entry = this.entries.get(key);
    if (entry === undefined || entry.keySpace !== keySpace) {
      this.missCount++;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hitCount++;
    return entry.hashes;
  }

  /**
   * May the file hold one of the keys whose hashes are `probe` — (lo, hi) word pairs, or ProbeKeys (the fast
   * form when one probe asks many files)? true: maybe (read or rewrite it); false: certainly not; undefined:
   * not cached. Never false for a file holding one of the keys.
   */
  mayContainAny(
    table: string,
    path: string,
    keySpace: string,
    probe: Uint32Array | ProbeKeys,
  ): boolean | undefined {
    const hashes = this.lookup(table, path, keySpace);
    if (hashes === undefined) return undefined;
    return probe instanceof ProbeKeys ? probe.sharedWith(hashes) : hashes.intersects(probe);
  }

  /** True when the file is cached in `keySpace` (no LRU touch, no counters). */
  has(table: string, path: string, keySpace: string): boolean {
    return this.entries.get(mapKey(table, path))?.keySpace === keySpace;
  }

  /** Least recently used first: [table, path] of every entry (for tests and diagnostics). */
  keys(): Array<[string, string]> {
    return [...this.entries.values()].map((e) => [e.table, e.path]);
  }

  /**
   * Caches the key hashes of a file (replacing an earlier entry). Returns false (and caches nothing) when
   * the cache is off or the entry would exceed maxBytes / 8.
   */
  put(table: string, path: string, keySpace: string, hashes: KeyHashSet): boolean {
    const bytes = entryBytes(table, path, keySpace, hashes.byteLength);
    const key = mapKey(table, path);
    this.remove(key);
    if (this.maxBytesValue === 0 || bytes > this.maxEntryBytes) return false;
    this.evictTo(this.maxBytesValue - bytes);
    this.entries.set(key, { table, path, keySpace, hashes, bytes });
    this.sizeBytes += bytes;
    return true;
  }

  /** Drops the entries of files that left the table, and abandons collections in flight for them. */
  invalidate(table: string, paths: Iterable<string>): void {
    for (const path of paths) {
      const key = mapKey(table, path);
      this.remove(key);
      const pending = this.collections.get(key);
      if (pending !== undefined) for (const c of [...pending]) c.abort();
    }
  }

  /** Drops every entry of a table. */
  invalidateTable(table: string): void {
    for (const [key, entry] of this.entries) if (entry.table === table) this.remove(key);
  }

  /**
   * Starts collecting the key hashes of a file being probed or written. Returns undefined when the cache is
   * off. The collection reserves in-flight bytes as hashes arrive and gives up (holding nothing) when the
   * file would exceed maxBytes / 8 or the in-flight budget (maxBytes / 4) is used up.
   */
  beginCollection(table: string, path: string, keySpace: string): HashCollection | undefined {
    if (this.maxBytesValue === 0) return undefined;
    const key = mapKey(table, path);
    const collection = new HashCollection(this, table, path, keySpace, key);
    let set = this.collections.get(key);
    if (set === undefined) {
      set = new Set();
      this.collections.set(key, set);
    }
    set.add(collection);
    return collection;
  }

  /** @internal */
  reserve(bytes: number): boolean {
    if (this.inFlight + bytes > this.maxInFlightBytes) return false;
    this.inFlight += bytes;
    return true;
  }

  /** @internal */
  release(bytes: number): void {
    this.inFlight -= bytes;
  }

  /** @internal */
  forget(collection: HashCollection, key: string): void {
    const set = this.collections.get(key);
    set?.delete(collection);
    if (set?.size === 0) this.collections.delete(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.sizeBytes -= entry.bytes;
  }

  private evictTo(limit: number): void {
    for (const key of this.entries.keys()) {
      if (this.sizeBytes <= limit) return;
      this.remove(key);
    }
  }
}

/** The key hashes of one file while it is being probed or written; commit puts them in the cache. */
export class HashCollection {
  private chunks: Uint32Array[] = [];
  private reserved = 0;
  private state: "open" | "abandoned" | "committed" = "open";

  constructor(
    private readonly cache: ProbeCache,
    readonly table: string,
    readonly path: string,
    readonly keySpace: string,
    private readonly key: string,
  ) {}

  /** False once the collection gave up (too large, budget used up, aborted or invalidated). */
  get active(): boolean {
    return this.state === "open";
  }

  /** In-flight bytes this collection holds. */
  get reservedBytes(): number {
    return this.reserved;
  }

  /**
   * Adds hashes as (lo, hi) word pairs; rows with skip[i] = 1 are left out (NULL keys). Returns false when
   * the collection gave up; further calls are no-ops.
   */
  add(hashWords: Uint32Array, skip?: Uint8Array): boolean {
    if (this.state !== "open") return false;
    const count = hashWords.length >> 1;
    let kept = count;
    if (skip !== undefined) for (let i = 0; i < count; i++) kept -= skip[i] === 1 ? 1 : 0;
    const bytes = 8 * kept;
    const projected = entryBytes(this.table, this.path, this.keySpace, this.reserved + bytes);
    if (projected > this.cache.maxEntryBytes || !this.cache.reserve(bytes)) {
      this.abort();
      return false;
    }
    this.reserved += bytes;
    if (skip === undefined) this.chunks.push(hashWords.slice(0, 2 * count));
    else {
      const chunk = new Uint32Array(2 * kept);
      let at = 0;
      for (let i = 0; i < count; i++) {
        if (skip[i] === 1) continue;
        chunk[at++] = hashWords[2 * i] as number;
        chunk[at++] = hashWords[2 * i + 1] as number;
      }
      this.chunks.push(chunk);
    }
    return true;
  }

  /**
   * Caches the collected hashes (call once the file is known to be live: probed, or its commit landed) and
   * releases the in-flight bytes. Returns true when the entry was cached.
   */
  commit(): boolean {
    if (this.state !== "open") return false;
    const all = this.joined();
    this.finish("committed");
    return this.cache.put(this.table, this.path, this.keySpace, KeyHashSet.ofOwnedWords(all));
  }

  /**
   * Caches the collected hashes under each of `paths` instead of the collection's own path: the key set of
   * everything written for one partition, answering for every file that write produced (a superset of each
   * file's keys, so a "no" stays exact). Returns how many entries were cached.
   */
  commitTo(paths: readonly string[]): number {
    if (this.state !== "open") return 0;
    const hashes = KeyHashSet.ofOwnedWords(this.joined());
    this.finish("committed");
    let cached = 0;
    for (const path of paths) if (this.cache.put(this.table, path, this.keySpace, hashes)) cached++;
    return cached;
  }

  /** The collected words as one array (the one chunk itself when there is one: every chunk is owned). */
  private joined(): Uint32Array {
    if (this.chunks.length === 1) return this.chunks[0] as Uint32Array;
    let total = 0;
    for (const c of this.chunks) total += c.length;
    const all = new Uint32Array(total);
    let at = 0;
    for (const c of this.chunks) {
      all.set(c, at);
      at += c.length;
    }
    return all;
  }

  /** Drops the collected hashes and releases the in-flight bytes. */
  abort(): void {
    if (this.state === "open") this.finish("abandoned");
  }

  private finish(state: "abandoned" | "committed"): void {
    this.state = state;
    this.chunks = [];
    this.cache.release(this.reserved);
    this.reserved = 0;
    this.cache.forget(this, this.key);
  }
}
