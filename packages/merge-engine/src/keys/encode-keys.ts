/**
 * Owns the per-row primary-key encoding of a RecordBatch: one canonical byte string per row over one or
 * more key columns, a flag for rows with a NULL in any key column (they never match), and a 64-bit hash
 * per row computed in batch.
 *
 * Canonical row bytes (the column cells are defined in column-encoding.ts):
 * - one key column: the cell itself (8 bytes for integer/date/timestamp/float/bool keys, 16/32 for
 *   decimals, the raw bytes for strings/binary). A NULL row has no bytes; its hash is that of the empty
 *   input (only `keyBuckets` uses it).
 * - several key columns: a validity bitmap (bit j set = column j is not null, ceil(k/8) bytes) followed by
 *   the cells of the non-null columns in order, variable-width cells prefixed by their length as a u32 LE.
 *   The encoding is injective for a fixed list of key types, and null-safe (two rows with NULL in the same
 *   column and equal other cells have equal bytes).
 */
import { DeltaLiteError, DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import type { Data, RecordBatch } from "apache-arrow";
import { type ColumnEncoding, encodeColumn, keyTypeSignature } from "./column-encoding.js";
import { defaultKeyHasher, type KeyHasher } from "./key-hasher.js";

export interface EncodeKeysOptions {
  /** The hash function (default: XXH64 with KEY_HASH_SEED). */
  hasher?: KeyHasher | undefined;
  /**
   * The rows' hashes, already computed by an earlier `encodeKeys` of the same keys with the same hasher
   * (the probe's, handed to the rewrite): used as they are (2 words a row), and nothing is hashed.
   */
  hashWords?: Uint32Array | undefined;
}

const EMPTY = new Uint8Array(0);
const ZERO_OFFSETS = new Int32Array(2);

/** The encoded primary keys of one batch. */
export class EncodedKeys {
  /** Row i's hash as (lo, hi) 32-bit words at hashWords[2i], hashWords[2i+1]. */
  readonly hashWords: Uint32Array;
  /** 1 where a key column of the row is NULL; undefined when no row has one. */
  readonly nullKeys: Uint8Array | undefined;
  readonly nullKeyCount: number;

  constructor(
    readonly columns: readonly string[],
    /** Equal signatures ⇔ the two encodings are comparable (same key types in the same order). */
    readonly signature: string,
    readonly hasherId: string,
    readonly length: number,
    /** @internal Canonical bytes of all rows (see `keyBytes`). */
    readonly bytes: Uint8Array,
    /** @internal Row i is bytes[offsets[i], offsets[i+1]); undefined: fixed cells of `width` bytes. */
    readonly offsets: Int32Array | undefined,
    /** @internal Cell width when `offsets` is undefined. */
    readonly width: number,
    /** @internal Single-column 8-byte keys: the same bytes as (lo, hi) word pairs. */
    readonly words: Uint32Array | undefined,
    hashWords: Uint32Array,
    nullKeys: Uint8Array | undefined,
    private readonly render: (row: number) => string,
    /** @internal False when `bytes` is a view of the Arrow batch's own buffers (zero-copy keys). */
    private readonly ownsBytes: boolean,
  ) {
    this.hashWords = hashWords;
    this.nullKeys = nullKeys;
    let count = 0;
    if (nullKeys !== undefined) for (let i = 0; i < length; i++) count += nullKeys[i] as number;
    this.nullKeyCount = count;
  }

  /**
   * The probe cache's key space of these keys: key column names, their encodings and the hash function.
   * Hashes cached under one key space must never answer for another.
   */
  get keySpace(): string {
    return keySpaceOf(this.columns, this.signature, this.hasherId);
  }

  /**
   * Bytes this encoding holds beyond the Arrow batch it was made from (hashes, flags, and canonical bytes
   * when they are a copy: composite keys, widened integers, normalized floats), for memory budgets.
   */
  get byteLength(): number {
    return (
      this.hashWords.byteLength +
      (this.nullKeys?.byteLength ?? 0) +
      (this.ownsBytes ? this.bytes.byteLength + (this.offsets?.byteLength ?? 0) : 0)
    );
  }

  /**
   * Bytes holding this encoding keeps alive: its hashes, flags and canonical bytes, copied or not (a view
   * keeps the Arrow column it views), for bounds on what is kept between passes.
   */
  get heldBytes(): number {
    return (
      this.hashWords.byteLength +
      (this.nullKeys?.byteLength ?? 0) +
      this.bytes.byteLength +
      (this.offsets?.byteLength ?? 0)
    );
  }

  /** The hashes as 64-bit numbers (a view over `hashWords`; little-endian hosts). */
  get hashes(): BigUint64Array {
    return new BigUint64Array(this.hashWords.buffer, this.hashWords.byteOffset, this.length);
  }

  /** True when a key column of `row` is NULL: the row never matches. */
  isNullKey(row: number): boolean {
    return this.nullKeys !== undefined && this.nullKeys[row] === 1;
  }

  private start(row: number): number {
    return this.offsets === undefined ? row * this.width : (this.offsets[row] as number);
  }

  private end(row: number): number {
    return this.offsets === undefined ? row * this.width + this.width : (this.offsets[row + 1] as number);
  }

  /** The canonical bytes of `row` (a view; empty for a NULL single-column key). */
  keyBytes(row: number): Uint8Array {
    if (this.columns.length === 1 && this.isNullKey(row)) return EMPTY;
    return this.bytes.subarray(this.start(row), this.end(row));
  }

  /** Null-safe equality of canonical keys (NULL equals NULL in the same column). */
  sameKeyNullSafe(row: number, other: EncodedKeys, otherRow: number): boolean {
    if (this.columns.length === 1) {
      const a = this.isNullKey(row);
      const b = other.isNullKey(otherRow);
      if (a || b) return a && b;
    }
    return bytesEqual(
      this.bytes,
      this.start(row),
      this.end(row),
      other.bytes,
      other.start(otherRow),
      other.end(otherRow),
    );
  }

  /** MERGE equality: both keys free of NULLs and canonically equal. Requires equal `signature`s. */
  sameKey(row: number, other: EncodedKeys, otherRow: number): boolean {
    if (this.isNullKey(row) || other.isNullKey(otherRow)) return false;
    return bytesEqual(
      this.bytes,
      this.start(row),
      this.end(row),
      other.bytes,
      other.start(otherRow),
      other.end(otherRow),
    );
  }

  /** The key of `row` for messages, e.g. `id=5, day="2026-01-01"`. */
  describe(row: number): string {
    return this.render(row);
  }
}

/** `columns` (JSON) | key type signature | hasher id. */
export function keySpaceOf(columns: readonly string[], signature: string, hasherId: string): string {
  return `${JSON.stringify(columns)}|${signature}|${hasherId}`;
}

function bytesEqual(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): boolean {
  const n = ae - as;
  if (n !== be - bs) return false;
  for (let i = 0; i < n; i++) if (a[as + i] !== b[bs + i]) return false;
  return true;
}

function renderValue(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString("hex")}`;
  if (value instanceof Uint32Array)
    return `0x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
  return String(value);
}

/** Encodes and hashes the primary keys of every row of `batch`. */
export function encodeKeys(
  batch: RecordBatch,
  keyColumns: readonly string[],
  options: EncodeKeysOptions = {},
): EncodedKeys {
  if (keyColumns.length === 0) throw new DeltaLiteError("generic", "primary keys must not be empty");
  const hasher = options.hasher ?? defaultKeyHasher;
  const fields = batch.schema.fields;
  const datas: Data[] = keyColumns.map((name) => {
    const index = fields.findIndex((f) => f.name === name);
    const data = index < 0 ? undefined : batch.data.children[index];
    if (data === undefined) {
      throw new DeltaLiteSchemaMismatchError(`primary-key column '${name}' is not in the data`);
    }
    return data as Data;
  });
  const signature = datas.map((d) => keyTypeSignature(d.type)).join(",");
  const length = batch.numRows;
  const encodings = datas.map((d, j) => encodeColumn(d, keyColumns[j]));
  const vectors = keyColumns.map((name) => batch.getChild(name));
  const render = (row: number): string =>
    keyColumns.map((name, j) => `${name}=${renderValue(vectors[j]?.get(row))}`).join(", ");
  const given = options.hashWords;
  if (given !== undefined && given.length !== 2 * length) {
    throw new DeltaLiteError("generic", `encodeKeys: ${given.length} hash words given for ${length} rows`);
  }
  const hashWords = given ?? new Uint32Array(2 * length);

  if (encodings.length === 1) {
    const column = encodings[0] as ColumnEncoding;
    const nullKeys = column.validity === undefined ? undefined : column.validity.map((v) => 1 - v);
    let bytes: Uint8Array;
    let offsets: Int32Array | undefined;
    let width = 0;
    if (column.kind === "fixed") {
      bytes = column.bytes;
      width = column.width;
      if (given === undefined) {
        if (column.words !== undefined) hasher.words8(column.words, length, hashWords);
        else hasher.fixed(column.bytes, column.width, length, hashWords);
      }
    } else {
      bytes = column.bytes;
      offsets = column.offsets;
      if (given === undefined) hasher.ranges(column.bytes, column.offsets, length, hashWords);
    }
    if (nullKeys !== undefined && given === undefined) {
      const nullHash = new Uint32Array(2);
      hasher.ranges(EMPTY, ZERO_OFFSETS, 1, nullHash);
      for (let i = 0; i < length; i++) {
        if (nullKeys[i] === 1) {
          hashWords[2 * i] = nullHash[0] as number;
          hashWords[2 * i + 1] = nullHash[1] as number;
        }
      }
    }
    return new EncodedKeys(
      keyColumns,
      signature,
      hasher.id,
      length,
      bytes,
      offsets,
      width,
      column.kind === "fixed" ? column.words : undefined,
      hashWords,
      nullKeys,
      render,
      column.copied,
    );
  }

  // Several key columns: bitmap + cells, into one buffer. Column-major loops (each monomorphic in its
  // column's layout) — row-major loops over mixed fixed/variable columns ran ~2x slower.
  const k = encodings.length;
  const bitmapBytes = (k + 7) >> 3;
  const nullKeys = new Uint8Array(length);
  let anyNull = false;
  const rowSize = new Int32Array(length).fill(bitmapBytes);
  for (const c of encodings) {
    const valid = c.validity;
    if (valid !== undefined) {
      for (let i = 0; i < length; i++) {
        if (valid[i] === 0) {
          nullKeys[i] = 1;
          anyNull = true;
        }
      }
    }
    if (c.kind === "fixed") {
      const w = c.width;
      for (let i = 0; i < length; i++)
        if (valid === undefined || valid[i] === 1) rowSize[i] = (rowSize[i] as number) + w;
    } else {
      const o = c.offsets;
      for (let i = 0; i < length; i++) {
        if (valid === undefined || valid[i] === 1) {
          rowSize[i] = (rowSize[i] as number) + 4 + (o[i + 1] as number) - (o[i] as number);
        }
      }
    }
  }
  const offsets = new Int32Array(length + 1);
  for (let i = 0; i < length; i++) offsets[i + 1] = (offsets[i] as number) + (rowSize[i] as number);
  const bytes = new Uint8Array(offsets[length] as number);
  const cursor = rowSize; // reused: the next write position of each row
  for (let i = 0; i < length; i++) cursor[i] = (offsets[i] as number) + bitmapBytes;
  encodings.forEach((c, j) => {
    const valid = c.validity;
    const bitByte = j >> 3;
    const bit = 1 << (j & 7);
    const src = c.bytes;
    if (c.kind === "fixed") {
      const w = c.width;
      for (let i = 0; i < length; i++) {
        if (valid !== undefined && valid[i] === 0) continue;
        const rowStart = offsets[i] as number;
        bytes[rowStart + bitByte] = (bytes[rowStart + bitByte] as number) | bit;
        const at = cursor[i] as number;
        const s = i * w;
        for (let b = 0; b < w; b++) bytes[at + b] = src[s + b] as number;
        cursor[i] = at + w;
      }
    } else {
      const o = c.offsets;
      for (let i = 0; i < length; i++) {
        if (valid !== undefined && valid[i] === 0) continue;
        const rowStart = offsets[i] as number;
        bytes[rowStart + bitByte] = (bytes[rowStart + bitByte] as number) | bit;
        let at = cursor[i] as number;
        const s = o[i] as number;
        const n = (o[i + 1] as number) - s;
        bytes[at] = n & 0xff;
        bytes[at + 1] = (n >>> 8) & 0xff;
        bytes[at + 2] = (n >>> 16) & 0xff;
        bytes[at + 3] = (n >>> 24) & 0xff;
        at += 4;
        if (n > 64) bytes.set(src.subarray(s, s + n), at);
        else for (let b = 0; b < n; b++) bytes[at + b] = src[s + b] as number;
        cursor[i] = at + n;
      }
    }
  });
  if (given === undefined) hasher.ranges(bytes, offsets, length, hashWords);
  return new EncodedKeys(
    keyColumns,
    signature,
    hasher.id,
    length,
    bytes,
    offsets,
    0,
    undefined,
    hashWords,
    anyNull ? nullKeys : undefined,
    render,
    true,
  );
}
