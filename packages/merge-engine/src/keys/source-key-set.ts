/**
 * Owns the primary-key set of one partition of the source batch: exact membership (an open-addressing hash
 * table over 64-bit key hashes whose candidates are verified by canonical bytes, so a hash collision never
 * causes a wrong match), counting of NULL-key rows (they never enter the set and never match) and of
 * duplicate non-null keys (rejected by `assertNoDuplicates`, naming the count and the partition).
 *
 * The null-safe mode (`{ nullSafe: true }`, the SCD2 history upsert's key index) differs in one point: a
 * key with NULL parts is a key like any other — it enters the set and matches a key with NULL in the same
 * parts and equal other parts (SQL's `<=>`). Entries are numbered 0..size-1 in first-occurrence order.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { type EncodedKeys, keySpaceOf } from "./encode-keys.js";

/** Rows of one encoded batch that belong to the partition (all rows when `rows` is absent). */
export interface SourceRows {
  readonly keys: EncodedKeys;
  readonly rows?: ArrayLike<number>;
}

export interface SourceKeySetOptions {
  /** Keys with NULL parts are keys too: NULL matches NULL in the same part (default false: MERGE equality). */
  nullSafe?: boolean | undefined;
}

function capacityFor(n: number): number {
  let c = 16;
  while (c < n * 2) c *= 2;
  return c;
}

export class SourceKeySet {
  /** Source rows considered (NULL-key rows included). */
  readonly rowCount: number;
  /** Rows with a NULL in any key column (never in the set, never matching, never duplicates — unless null-safe). */
  readonly nullKeyRows: number;
  /** Non-null rows (null-safe: any rows) whose key equals the key of an earlier row. */
  readonly duplicateRows: number;
  /** Distinct non-null keys (null-safe: distinct keys). */
  readonly size: number;
  readonly signature: string;
  readonly hasherId: string;
  readonly columns: readonly string[];
  readonly nullSafe: boolean;

  private readonly parts: readonly EncodedKeys[];
  /** Every part holds single-column 8-byte keys: entries carry the key words themselves. */
  private readonly wordKeys: boolean;
  private readonly mask: number;
  private readonly slots: Int32Array;
  private readonly entryPart: Int32Array;
  private readonly entryRow: Int32Array;
  /** Per entry: hash lo, hash hi, and for 8-byte keys the key's lo, hi words (one cache line per probe). */
  private readonly entryData: Uint32Array;
  private firstDuplicate: { part: number; row: number } | undefined;
  /** Per part, per row it was built with (in that order): the row's entry, -1 for a NULL key outside the set. */
  private readonly rowEntries: Int32Array[];
  /** One bit per hash-hi bucket of the entries (see `hashFilter`). */
  private readonly filterBits: Uint32Array;

  private constructor(sources: readonly SourceRows[], nullSafe: boolean) {
    const first = sources[0];
    if (first === undefined) throw new DeltaLiteError("generic", "a source key set needs at least one batch");
    this.nullSafe = nullSafe;
    this.signature = first.keys.signature;
    this.hasherId = first.keys.hasherId;
    this.columns = first.keys.columns;
    for (const s of sources) checkComparable(this, s.keys);
    this.parts = sources.map((s) => s.keys);
    this.wordKeys = this.parts.every((p) => p.words !== undefined);
    let rowCount = 0;
    for (const s of sources) rowCount += s.rows === undefined ? s.keys.length : s.rows.length;
    this.rowCount = rowCount;
    const capacity = capacityFor(rowCount);
    this.mask = capacity - 1;
    this.slots = new Int32Array(capacity);
    this.entryPart = new Int32Array(rowCount);
    this.entryRow = new Int32Array(rowCount);
    this.entryData = new Uint32Array(4 * rowCount);
    let size = 0;
    let nulls = 0;
    let duplicates = 0;
    this.rowEntries = sources.map((source, part) => {
      const keys = source.keys;
      const n = source.rows === undefined ? keys.length : source.rows.length;
      const rowEntries = new Int32Array(n).fill(-1);
      for (let k = 0; k < n; k++) {
        const row = source.rows === undefined ? k : (source.rows[k] as number);
        if (keys.isNullKey(row)) {
          nulls++;
          if (!nullSafe) continue;
        }
        // One probe sequence: stop at an equal key (a duplicate) or at the first empty slot (insert).
        const lo = keys.hashWords[2 * row] as number;
        const hi = keys.hashWords[2 * row + 1] as number;
        let slot = lo & this.mask;
        let equal = -1;
        for (;;) {
          const entry = (this.slots[slot] as number) - 1;
          if (entry < 0) break;
          if (
            this.entryData[4 * entry] === lo &&
            this.entryData[4 * entry + 1] === hi &&
            this.entryEquals(entry, keys, row)
          ) {
            equal = entry;
            break;
          }
          slot = (slot + 1) & this.mask;
        }
        if (equal >= 0) {
          duplicates++;
          this.firstDuplicate ??= { part, row };
          rowEntries[k] = equal;
          continue;
        }
        rowEntries[k] = size;
        this.slots[slot] = size + 1;
        this.entryPart[size] = part;
        this.entryRow[size] = row;
        this.entryData[4 * size] = lo;
        this.entryData[4 * size + 1] = hi;
        if (keys.words !== undefined) {
          this.entryData[4 * size + 2] = keys.words[2 * row] as number;
          this.entryData[4 * size + 3] = keys.words[2 * row + 1] as number;
        }
        size++;
      }
      return rowEntries;
    });
    this.size = size;
    this.filterBits = hashFilter(this.entryData, size);
    this.nullKeyRows = nulls;
    this.duplicateRows = duplicates;
  }

  /** Builds the set over one or more batches (or row selections of them) of one partition. */
  static build(sources: SourceRows | readonly SourceRows[], options: SourceKeySetOptions = {}): SourceKeySet {
    return new SourceKeySet(
      Array.isArray(sources) ? sources : [sources as SourceRows],
      options.nullSafe === true,
    );
  }

  /**
   * Throws `DeltaLiteError` (kind `generic`) when two non-null source rows share a key: MERGE would apply
   * both to one target row; the caller must dedupe (keep-last) first. Names the count and the partition.
   */
  assertNoDuplicates(partition: string): void {
    if (this.duplicateRows === 0 || this.firstDuplicate === undefined) return;
    const { part, row } = this.firstDuplicate;
    const example = (this.parts[part] as EncodedKeys).describe(row);
    throw new DeltaLiteError(
      "generic",
      `${this.duplicateRows} duplicate primary-key row${this.duplicateRows === 1 ? "" : "s"} in partition ${partition} ` +
        `(primary keys ${this.columns.join(", ")}; first duplicate: ${example}); dedupe the batch (keep-last) before upserting`,
    );
  }

  /** The entry index of the set key equal to `keys[row]`, or -1 (always -1 for a NULL key unless null-safe). */
  find(keys: EncodedKeys, row: number): number {
    const nullKeys = keys.nullKeys;
    if (nullKeys !== undefined && nullKeys[row] === 1 && !this.nullSafe) return -1;
    const hw = keys.hashWords;
    const hi = hw[2 * row + 1] as number;
    const filter = this.filterBits;
    const bit = hi & (filter.length * 32 - 1);
    if (((filter[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return -1; // no entry's hash has this hi
    const lo = hw[2 * row] as number;
    const slots = this.slots;
    const mask = this.mask;
    const data = this.entryData;
    let slot = lo & mask;
    for (;;) {
      const entry = (slots[slot] as number) - 1;
      if (entry < 0) return -1;
      if (data[4 * entry] === lo && data[4 * entry + 1] === hi && this.entryEquals(entry, keys, row)) {
        return entry;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** Exact comparison of an entry's canonical key with keys[row] (never trusts the hash). */
  private entryEquals(entry: number, keys: EncodedKeys, row: number): boolean {
    if (this.nullSafe) return this.entryEqualsNullSafe(entry, keys, row);
    const b = keys.words;
    if (b !== undefined && this.wordKeys) {
      return this.entryData[4 * entry + 2] === b[2 * row] && this.entryData[4 * entry + 3] === b[2 * row + 1];
    }
    const part = this.parts[this.entryPart[entry] as number] as EncodedKeys;
    const at = this.entryRow[entry] as number;
    const ab = part.bytes;
    const bb = keys.bytes;
    const as = part.offsets === undefined ? at * part.width : (part.offsets[at] as number);
    const ae = part.offsets === undefined ? as + part.width : (part.offsets[at + 1] as number);
    const bs = keys.offsets === undefined ? row * keys.width : (keys.offsets[row] as number);
    const be = keys.offsets === undefined ? bs + keys.width : (keys.offsets[row + 1] as number);
    if (ae - as !== be - bs) return false;
    for (let i = 0; i < ae - as; i++) if (ab[as + i] !== bb[bs + i]) return false;
    return true;
  }

  /** Null-safe comparison (a NULL single-column key has no canonical bytes: its flag decides). */
  private entryEqualsNullSafe(entry: number, keys: EncodedKeys, row: number): boolean {
    const part = this.parts[this.entryPart[entry] as number] as EncodedKeys;
    return part.sameKeyNullSafe(this.entryRow[entry] as number, keys, row);
  }

  /**
   * The entry of each row part `part` was built with, in that order (what `find` gives for the row's key): -1
   * for a NULL key outside the set. The upsert's rewrite reads its source rows' entries here instead of
   * encoding and looking up their keys again.
   */
  entriesOf(part: number): Int32Array {
    const entries = this.rowEntries[part];
    if (entries === undefined) throw new DeltaLiteError("generic", `the source key set has no part ${part}`);
    return entries;
  }

  /** The key of an entry returned by `find`, for messages. */
  describeEntry(entry: number): string {
    const { part, row } = this.entrySource(entry);
    return (this.parts[part] as EncodedKeys).describe(row);
  }

  /** Throws unless `keys` (e.g. a table file's, read in the table's types) can be looked up here. */
  assertComparable(keys: EncodedKeys): void {
    checkComparable(this, keys);
  }

  /** True when `keys[row]` is in the set (MERGE equality: a NULL key is never in it). */
  has(keys: EncodedKeys, row: number): boolean {
    return this.find(keys, row) >= 0;
  }

  /** The source (batch index, row) of an entry returned by `find`. */
  entrySource(entry: number): { part: number; row: number } {
    return { part: this.entryPart[entry] as number, row: this.entryRow[entry] as number };
  }

  /** Marks hit[i] = 1 for every row of `keys` whose key is in the set; returns the number of hits. */
  matchRows(keys: EncodedKeys, hit: Uint8Array): number {
    checkComparable(this, keys);
    let hits = 0;
    for (let i = 0; i < keys.length; i++) {
      if (this.find(keys, i) >= 0) {
        hit[i] = 1;
        hits++;
      } else {
        hit[i] = 0;
      }
    }
    return hits;
  }

  /**
   * True as soon as one row of `keys` is in the set (the probe's question); given `rows`, only those rows are
   * asked (the native engine's hit rows: every row whose hash is a source key's).
   */
  containsAny(keys: EncodedKeys, rows?: ArrayLike<number>): boolean {
    checkComparable(this, keys);
    if (this.size === 0) return false;
    if (rows !== undefined) {
      for (let k = 0; k < rows.length; k++) if (this.find(keys, rows[k] as number) >= 0) return true;
      return false;
    }
    for (let i = 0; i < keys.length; i++) if (this.find(keys, i) >= 0) return true;
    return false;
  }

  /** Bytes held by the set's table and the encoded keys it references (beyond the Arrow batches). */
  get byteLength(): number {
    let bytes =
      this.slots.byteLength +
      this.entryPart.byteLength +
      this.entryRow.byteLength +
      this.entryData.byteLength;
    for (const entries of this.rowEntries) bytes += entries.byteLength;
    for (const part of new Set(this.parts)) bytes += part.byteLength;
    return bytes;
  }

  /** The probe cache's key space (see EncodedKeys.keySpace). */
  get keySpace(): string {
    return keySpaceOf(this.columns, this.signature, this.hasherId);
  }

  /** The hashes of the distinct keys as (lo, hi) word pairs (what the probe cache is asked about). */
  hashWords(): Uint32Array {
    const size = this.size;
    const data = this.entryData;
    const out = new Uint32Array(2 * size);
    for (let e = 0; e < size; e++) {
      out[2 * e] = data[4 * e] as number;
      out[2 * e + 1] = data[4 * e + 1] as number;
    }
    return out;
  }
}

/**
 * A bit per bucket of hash-hi values, set for each of the first `size` entries' (≥ 16 bits an entry, so ~6%
 * of other hashes pass): a clear bit proves a hash is in no entry without touching the table; `find` tests it
 * first. The rewrite asks `find` of every row of every hit file (and the probe did, of every row of every
 * candidate file, until the native engine answered it: session 33); at recent 4M (`pnpm bench upsert`) the
 * table walk alone had taken ~50 ms of the main thread, 11% of its CPU (merge-engine BENCHMARKS.md, session
 * 21). Built with the set.
 */
function hashFilter(entryData: Uint32Array, size: number): Uint32Array {
  let bits = 1024;
  while (bits < 16 * size) bits *= 2;
  const filter = new Uint32Array(bits / 32);
  for (let e = 0; e < size; e++) {
    const bit = (entryData[4 * e + 1] as number) & (bits - 1);
    filter[bit >>> 5] = (filter[bit >>> 5] as number) | (1 << (bit & 31));
  }
  return filter;
}

function checkComparable(
  set: { signature: string; hasherId: string; columns: readonly string[] },
  keys: EncodedKeys,
): void {
  if (keys.signature !== set.signature || keys.hasherId !== set.hasherId) {
    throw new DeltaLiteError(
      "generic",
      `primary keys (${keys.columns.join(", ")}) of types [${keys.signature}] cannot be compared with source keys of types [${set.signature}]; cast both to the table schema first`,
    );
  }
}
