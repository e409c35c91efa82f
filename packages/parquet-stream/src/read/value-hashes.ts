/**
 * Owns the native engine's value hashes of one row group of a byte-array column as a reader hands them out:
 * the decode admitted before the call (and again if it holds more than estimated), the values turned into
 * Arrow data of the column's type, and any failure of the engine taken as "cannot" (undefined), so the caller
 * decodes the column in JavaScript and says why. ParquetReader.valueHashes (chunks it fetched) and
 * openLocalColumnHashes (a local file read from its path) both hand them out through here.
 */
import { Binary, type Data, makeData, Utf8 } from "apache-arrow";
import { nativeBufferRelease, type ValueHashes } from "../engine.js";
import type { Release } from "./admission.js";

/** A row group's value hashes of one byte-array column (ParquetReader.valueHashes). */
export interface ColumnValueHashes {
  /** Row i's XXH64 as (lo, hi) at 2i, 2i + 1. */
  hashWords: Uint32Array;
  /** 1 for a NULL row; undefined when there is none. */
  nulls: Uint8Array | undefined;
  /** Asked for: the column's values (Utf8 or Binary, as the reader decodes the column). */
  values: Data<Utf8 | Binary> | undefined;
  /**
   * Asked with a source probe (the source's key hashes): whether a non-NULL row's hash is one of them. False
   * proves no row's key is a source key; true may be a hash collision. Undefined when not asked.
   */
  mayHit: boolean | undefined;
  /**
   * Asked with a source probe and for values: the rows whose non-NULL hash is one of the probe's, ascending —
   * every row that may hold a source key (a hash collision adds a row, never drops one), so an exact match
   * need look at these alone. Undefined when not asked (or not given in shape: then every row may).
   */
  hitRows: Uint32Array | undefined;
  /**
   * Frees the native buffers behind these arrays now, not at V8's next collection (at 8M rows a row group's
   * values and hashes are ~1.9 MB). Call it once nothing reads them any more: from then on they read as
   * empty. Idempotent.
   */
  release(): void;
}

/** What one native hash call of a row group will return, for its admission and its checks. */
export interface ValueHashCall {
  rows: number;
  /** The chunk's uncompressed bytes (the values' size estimate). */
  uncompressedBytes: number;
  withValues: boolean;
  /** Values as Binary, not Utf8. */
  binary: boolean;
}

/** Runs `hash` under a decode admission; undefined when the engine fails or answers out of shape. */
export async function admittedValueHashes(
  admitDecode: (bytes: number) => Promise<Release>,
  call: ValueHashCall,
  hash: () => Promise<ValueHashes>,
): Promise<ColumnValueHashes | undefined> {
  const { rows, withValues } = call;
  const estimate = 9 * rows + (withValues ? call.uncompressedBytes + 4 * (rows + 1) : 0);
  let admitted = await admitDecode(estimate);
  try {
    const given = checkedValueHashes(await hash(), call);
    if (given === undefined) return undefined;
    const actual = heldBytes(given);
    if (actual > estimate) {
      // Never wait while holding: give back the estimate, then wait for what the call really holds.
      admitted();
      admitted = await admitDecode(actual);
    }
    return given;
  } catch {
    return undefined; // the native engine could not decode it: the JavaScript reader will say why
  } finally {
    admitted();
  }
}

/** The bytes a row group's value hashes hold (what its decode admission covers). */
export function heldBytes(given: ColumnValueHashes): number {
  const values = given.values;
  const rows = given.hashWords.length / 2;
  return 9 * rows + (values ? values.valueOffsets.byteLength + values.values.byteLength : 0);
}

/** The native engine's answer for `call` as a reader hands it out; undefined when it is out of shape. */
export function checkedValueHashes(out: ValueHashes, call: ValueHashCall): ColumnValueHashes | undefined {
  const { rows, withValues } = call;
  if (out.rows !== rows || out.hashes.byteLength !== 8 * rows) return undefined;
  const values = withValues ? valuesOf(out, rows, call.binary) : undefined;
  if (withValues && values === undefined) return undefined;
  const h = out.hashes;
  return {
    hashWords: new Uint32Array(h.buffer, h.byteOffset, 2 * rows),
    nulls: out.nulls ?? undefined,
    values,
    mayHit: out.mayHit ?? undefined,
    hitRows: hitRowsOf(out.hitRows, rows),
    release: () => releaseAll([out.hashes, out.nulls, out.offsets, out.values, out.hitRows]),
  };
}

/** The engine's hit rows (uint32 LE) when ascending and within `rows`; else undefined (every row may hit). */
function hitRowsOf(bytes: Uint8Array | null | undefined, rows: number): Uint32Array | undefined {
  if (!bytes || bytes.byteLength % 4 !== 0) return undefined;
  const count = bytes.byteLength / 4;
  const hits =
    bytes.byteOffset % 4 === 0
      ? new Uint32Array(bytes.buffer, bytes.byteOffset, count)
      : new Uint32Array(bytes.slice().buffer, 0, count);
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const row = hits[i] as number;
    if (row <= previous || row >= rows) return undefined;
    previous = row;
  }
  return hits;
}

/**
 * Frees the native engine's result buffers: each one the engine made, which is its buffer's only view (a
 * Buffer from Node's pool shares its buffer, and is never detached here).
 */
function releaseAll(buffers: readonly (Uint8Array | null | undefined)[]): void {
  const release = nativeBufferRelease();
  if (release === undefined) return;
  for (const view of buffers) {
    if (!view || view.byteLength === 0 || view.byteOffset !== 0) continue;
    if (view.byteLength === view.buffer.byteLength) release(view.buffer as ArrayBuffer);
  }
}

/** XXH64 seed words (lo, hi) of a 64-bit seed. */
export function seedWords(seed: bigint): [lo: number, hi: number] {
  return [Number(BigInt.asUintN(32, seed)), Number(BigInt.asUintN(32, seed >> 32n))];
}

/**
 * The native call's values as Arrow data of the column's type (offsets copied when their bytes are not
 * 4-aligned, the NULL flags packed into a validity bitmap); undefined when absent or malformed.
 */
function valuesOf(out: ValueHashes, rows: number, binary: boolean): Data<Utf8 | Binary> | undefined {
  const raw = out.offsets;
  const data = out.values;
  if (!raw || !data || raw.byteLength !== 4 * (rows + 1)) return undefined;
  const valueOffsets =
    raw.byteOffset % 4 === 0
      ? new Int32Array(raw.buffer, raw.byteOffset, rows + 1)
      : new Int32Array(raw.slice().buffer, 0, rows + 1);
  if (valueOffsets[0] !== 0 || valueOffsets[rows] !== data.byteLength) return undefined;
  const nulls = out.nulls ?? undefined;
  let nullCount = 0;
  let nullBitmap: Uint8Array | undefined;
  if (nulls) {
    nullBitmap = new Uint8Array(Math.ceil(rows / 8)).fill(0xff);
    for (let i = 0; i < rows; i++) {
      if (nulls[i] === 1) {
        nullCount++;
        nullBitmap[i >> 3] = (nullBitmap[i >> 3] as number) & ~(1 << (i & 7));
      }
    }
  }
  const props = { length: rows, nullCount, nullBitmap, valueOffsets, data };
  return binary ? makeData({ type: new Binary(), ...props }) : makeData({ type: new Utf8(), ...props });
}
