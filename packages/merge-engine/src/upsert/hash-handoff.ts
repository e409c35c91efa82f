/**
 * The key-hash handoff from the probe to the rewrite: a file the probe found a key in hands over the key
 * hashes it computed (its live rows from the first up to the end of the batch that hit, in read order), and
 * the rewrite encodes those rows' keys with them instead of hashing again. Both read the file's live rows
 * in the same order (readLiveFile), so row r of the probe is row r of the rewrite. Capped per attempt
 * (HASH_HANDOFF_MAX_BYTES, the hashes held for the rewrite and those probes in flight keep, together; not
 * counted against the call's buffered budget): a file whose hashes do not fit is not handed over, and the
 * rewrite hashes it itself, as it does every row past the handed ones. While the bound allows, the probe's
 * encoded keys go along too (the canonical key bytes, counted in the same bound): a rewrite that passes a
 * file through (rewrite-passthrough.ts) then matches them without reading the file's key columns again.
 * Hashes and keys read from the native engine's buffers carry those buffers' release with them (`own`):
 * freed when a keeper drops them, or by the rewrite once it is done with the file, not at V8's next
 * collection.
 */
import type { LiveFileReadContext } from "@deltalite/data-files";
import type { FileView } from "@deltalite/delta-log";
import type { EncodedKeys } from "../keys/encode-keys.js";

/** Hash bytes the handoff may hold at once per attempt (8 bytes a row: 2M rows). */
export const HASH_HANDOFF_MAX_BYTES = 16 * 1024 * 1024;

/** The hashes of a file's first `rows` live rows as (lo, hi) word pairs. */
export interface HandedHashes {
  readonly rows: number;
  readonly words: Uint32Array;
  /** The encoded keys of those rows, batch by batch in read order; undefined when they did not fit. */
  readonly keys?: readonly EncodedKeys[] | undefined;
  /**
   * Per batch of `keys`: the native engine's hit rows (every row whose hash is a source key's, ascending), so
   * the rewrite matches these alone; undefined for a batch without them (all its rows are matched).
   */
  readonly hits?: readonly (Uint32Array | undefined)[] | undefined;
  /** Bytes reserved for all this (given back by `take`). */
  readonly bytes: number;
  /**
   * Frees the native engine's buffers these hashes and keys are read from (ColumnValueHashes.release): the
   * rewrite calls it once it is done with the file; undefined when nothing needs freeing.
   */
  readonly release?: (() => void) | undefined;
}

/**
 * The hit files' key hashes passed from the probe to the rewrite of one attempt. Bounded: the hashes held
 * for the rewrite and those the probes in flight keep (`keeper`) together stay within `maxBytes`.
 */
export class HashHandoff {
  readonly #held = new Map<string, HandedHashes>();
  #bytes = 0;
  /** Files whose hashes did not fit (the rewrite hashes them). */
  refused = 0;

  constructor(readonly maxBytes = HASH_HANDOFF_MAX_BYTES) {}

  /** Hash bytes held and kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps one probe's hashes, batch by batch, while they fit; `handTo` passes them on, `drop` frees them. */
  keeper(): HashKeeper {
    return new HashKeeper(this);
  }

  /** @internal Reserves `bytes` if they fit. */
  reserve(bytes: number): boolean {
    if (this.#bytes + bytes > this.maxBytes) return false;
    this.#bytes += bytes;
    return true;
  }

  /** @internal Frees reserved bytes. */
  release(bytes: number): void {
    this.#bytes -= bytes;
  }

  /** @internal Holds reserved hashes for the rewrite of `path` (replacing nothing: a path is offered once). */
  hold(path: string, handed: HandedHashes): void {
    if (!this.#held.has(path)) this.#held.set(path, handed);
    else {
      this.release(handed.bytes);
      handed.release?.();
    }
  }

  /** The hashes offered for `file`, handed out once (and no longer held). */
  take(file: FileView): HandedHashes | undefined {
    const held = this.#held.get(file.path);
    if (held === undefined) return undefined;
    this.#held.delete(file.path);
    this.release(held.bytes);
    return held;
  }
}

/** One probe's hashes of one file, in read order, kept while the handoff's bound allows. */
export class HashKeeper {
  #batches: Uint32Array[] = [];
  #words = 0;
  #keys: EncodedKeys[] | undefined = [];
  /** Parallel to `#keys`: each batch's hit rows, when the engine named them. */
  #hits: (Uint32Array | undefined)[] = [];
  #keyBytes = 0;
  #full = false;
  /** Releases of the native buffers what is kept is read from (`own`). */
  #owned: (() => void)[] = [];

  constructor(private readonly handoff: HashHandoff) {}

  /**
   * Keeps the next batch's hashes (2 words a row) and, while they fit too, its encoded `keys` (with its hit
   * rows, `hits`, when the engine named them); once the hashes do not fit, nothing is kept, and once keys do
   * not fit, no keys are.
   */
  add(words: Uint32Array, keys?: EncodedKeys, hits?: Uint32Array): void {
    if (this.#full) return;
    if (!this.handoff.reserve(words.byteLength)) {
      this.#full = true;
      this.handoff.refused++;
      this.drop();
      return;
    }
    this.#batches.push(words);
    this.#words += words.byteLength;
    if (!this.#keys) return;
    const held = keys ? keys.heldBytes - keys.hashWords.byteLength : 0;
    if (keys && this.handoff.reserve(held)) {
      this.#keys.push(keys);
      this.#hits.push(hits);
      this.#keyBytes += held;
    } else this.#dropKeys();
  }

  /**
   * Takes over `release`, which frees native buffers that batches `add` was given may be read from: it runs
   * when what is kept is dropped or, once handed, when the rewrite is done with it; at once when the keeper
   * keeps nothing. Call it once the caller itself no longer reads them.
   */
  own(release: () => void): void {
    if (this.#full) release();
    else this.#owned.push(release);
  }

  /** Hands what was kept to the rewrite of `file` (nothing when a batch did not fit). */
  handTo(file: FileView): void {
    if (this.#full || this.#words === 0) return;
    const batches = this.#batches;
    const words = batches.length === 1 ? (batches[0] as Uint32Array) : concat(batches, this.#words / 4);
    const bytes = this.#words + this.#keyBytes;
    const release = releaseEach(this.#owned);
    const keys = this.#keys;
    const hits = keys && this.#hits;
    this.handoff.hold(file.path, { rows: words.length / 2, words, keys, hits, bytes, release });
    this.#batches = [];
    this.#words = 0;
    this.#keys = [];
    this.#hits = [];
    this.#keyBytes = 0;
    this.#owned = [];
  }

  /** Frees what is kept (a file without a hit, or a failed read). */
  drop(): void {
    this.handoff.release(this.#words + this.#keyBytes);
    this.#batches = [];
    this.#words = 0;
    this.#keys = [];
    this.#hits = [];
    this.#keyBytes = 0;
    const owned = this.#owned;
    this.#owned = [];
    for (const release of owned) release();
  }

  #dropKeys(): void {
    this.handoff.release(this.#keyBytes);
    this.#keys = undefined;
    this.#hits = [];
    this.#keyBytes = 0;
  }
}

/** One call of every release in `releases`; undefined when there is none. */
function releaseEach(releases: readonly (() => void)[]): (() => void) | undefined {
  if (releases.length === 0) return undefined;
  return () => {
    for (const release of releases) release();
  };
}

function concat(parts: readonly Uint32Array[], length: number): Uint32Array {
  const out = new Uint32Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The hashes of rows [row, row + count) when all of them were handed over, else undefined. */
export function handedRows(
  handed: HandedHashes | undefined,
  row: number,
  count: number,
): Uint32Array | undefined {
  if (handed === undefined || row + count > handed.rows) return undefined;
  return handed.words.subarray(2 * row, 2 * (row + count));
}

/** One handoff per attempt, living (and collected) with the attempt's read context, like the footer handoff. */
const handoffs = new WeakMap<LiveFileReadContext, HashHandoff>();

/** The key-hash handoff of the attempt whose read context is `context`. */
export function hashHandoff(context: LiveFileReadContext): HashHandoff {
  let handoff = handoffs.get(context);
  if (!handoff) {
    handoff = new HashHandoff();
    handoffs.set(context, handoff);
  }
  return handoff;
}
