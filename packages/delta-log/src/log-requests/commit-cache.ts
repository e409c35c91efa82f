/**
 * The commit-JSON cache of one operation (`DELTALITE_COMMIT_JSON_CACHE`): each commit file is fetched once per
 * operation, and the operation's own commit is seeded from the bytes it put instead of being read back.
 * Bounds: 256 files, 8 MiB in all, 1 MiB per file; the bytes are also reserved, without waiting, from the
 * process buffered budget when one is given (a budget that cannot take them now means no caching). An entry
 * serves only a read that names the same object: the listing's etag and size must equal the entry's, so a
 * commit file replaced under the operation (a table deleted and re-created) is fetched again.
 */
import type { ObjectMeta } from "@deltalite/object-store";
import { type CheckpointPrefetchBudget, reserveWithoutWaiting } from "../checkpoint-prefetch.js";

/** The cache's bounds (the upstream's). */
export const COMMIT_JSON_CACHE_LIMITS = {
  files: 256,
  totalBytes: 8 * 1024 * 1024,
  fileBytes: 1024 * 1024,
} as const;

interface Entry {
  bytes: Uint8Array;
  etag: string | undefined;
  release: () => void;
}

/** What the cache holds and how often it answered. */
export interface CommitCacheStats {
  hits: number;
  stored: number;
  bytes: number;
}

/** One operation's commit JSON, bounded as `COMMIT_JSON_CACHE_LIMITS` says; `clear` ends it. */
export class CommitJsonCache {
  readonly #entries = new Map<string, Entry>();
  readonly #budget: CheckpointPrefetchBudget | undefined;
  #bytes = 0;
  #hits = 0;

  /** `budget`: the process buffered budget (KiB permits), reserved from without waiting. */
  constructor(budget?: CheckpointPrefetchBudget | undefined) {
    this.#budget = budget;
  }

  /** The bytes of `key` when cached for the object `meta` describes (same etag and size); else undefined. */
  get(key: string, meta: ObjectMeta | undefined): Uint8Array | undefined {
    const entry = this.#entries.get(key);
    if (!entry || !meta || meta.etag === undefined || entry.etag !== meta.etag) return undefined;
    if (entry.bytes.length !== meta.size) return undefined;
    this.#hits += 1;
    return entry.bytes;
  }

  /** Keeps `bytes` of `key` (whose etag is `etag`) when the bounds and the budget allow; never waits. */
  put(key: string, bytes: Uint8Array, etag: string | undefined): void {
    if (etag === undefined || this.#entries.has(key)) return;
    const limits = COMMIT_JSON_CACHE_LIMITS;
    if (bytes.length > limits.fileBytes || this.#entries.size >= limits.files) return;
    if (this.#bytes + bytes.length > limits.totalBytes) return;
    const release = this.#reserve(bytes.length);
    if (!release) return;
    this.#entries.set(key, { bytes, etag, release });
    this.#bytes += bytes.length;
  }

  get stats(): CommitCacheStats {
    return { hits: this.#hits, stored: this.#entries.size, bytes: this.#bytes };
  }

  /** Drops every entry and gives their reservations back (the operation ended). */
  clear(): void {
    for (const entry of this.#entries.values()) entry.release();
    this.#entries.clear();
    this.#bytes = 0;
  }

  #reserve(bytes: number): (() => void) | undefined {
    return this.#budget ? reserveWithoutWaiting(this.#budget, bytes) : () => undefined;
  }
}
