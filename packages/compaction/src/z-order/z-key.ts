/**
 * The Z-order key of each row, as delta-rs's `zorder_key` computes it: every column's value is normalised to
 * arrow-row's order-preserving bytes (ascending, nulls first: `0` for null, `1` + big-endian value with the
 * sign bit flipped for integers, dates, timestamps and decimals, IEEE bits folded so that byte order is
 * numeric order for floats, `1` / `2` + the first bytes in 8-byte mini-blocks for empty / non-empty strings
 * and binaries), truncated or zero-padded to 16 bytes; then bit `i` of column `c` (bits counted from the least
 * significant bit of each byte, as arrow's bit utilities count them) goes to bit `i·n + c` of the key. Keys are
 * compared as bytes; here they are held as big-endian 32-bit words (4·n per row), so a word comparison is the
 * byte comparison.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { type Data, type DataType, DateUnit, type RecordBatch, Type } from "apache-arrow";

/** Bytes of one column's normalised value in a key (delta-rs takes 128 bits of each). */
export const VALUE_BYTES = 16;

/** The key words of every row of `batch` over the columns at `indices` (row r: words [r·w, (r+1)·w)). */
export function zOrderKeys(batch: RecordBatch, indices: readonly number[]): Uint32Array {
  const n = indices.length;
  const keyBytes = VALUE_BYTES * n;
  const rows = batch.numRows;
  const bytes = new Uint8Array(rows * keyBytes);
  const value = new Uint8Array(VALUE_BYTES);
  indices.forEach((index, column) => {
    const data = batch.data.children[index] as Data;
    const normalise = normaliser(data);
    const spread = spreadTable(n, column);
    for (let r = 0; r < rows; r++) {
      value.fill(0);
      normalise(r, value);
      const base = r * keyBytes;
      for (let k = 0; k < VALUE_BYTES; k++) {
        const v = value[k]!;
        if (v === 0) continue;
        const pattern = spread[v]!;
        for (let m = 0; m < n; m++) bytes[base + k * n + m]! |= pattern[m]!;
      }
    }
  });
  return toWords(bytes);
}

/** Byte `v` of column `column` of `n` spread over n output bytes: its bit t lands on bit t·n + column. */
const spreadCache = new Map<string, Uint8Array[]>();
function spreadTable(n: number, column: number): Uint8Array[] {
  const cacheKey = `${n}:${column}`;
  let table = spreadCache.get(cacheKey);
  if (!table) {
    table = Array.from({ length: 256 }, (_, v) => {
      const out = new Uint8Array(n);
      for (let t = 0; t < 8; t++) {
        if ((v >> t) & 1) {
          const position = t * n + column;
          out[position >> 3]! |= 1 << (position & 7);
        }
      }
      return out;
    });
    spreadCache.set(cacheKey, table);
  }
  return table;
}

function toWords(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(bytes.length >> 2);
  for (let w = 0, b = 0; w < words.length; w++, b += 4) {
    words[w] = ((bytes[b]! << 24) | (bytes[b + 1]! << 16) | (bytes[b + 2]! << 8) | bytes[b + 3]!) >>> 0;
  }
  return words;
}

type Normaliser = (row: number, out: Uint8Array) => void;

function isValid(data: Data, row: number): boolean {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) return true;
  const j = row + data.offset;
  return ((data.nullBitmap[j >> 3]! >> (j & 7)) & 1) === 1;
}

/** The types a Z-order column may have (what `normaliser` handles). */
export function zOrderable(typeId: Type): boolean {
  return [
    Type.Int,
    Type.Float,
    Type.Bool,
    Type.Date,
    Type.Timestamp,
    Type.Decimal,
    Type.Utf8,
    Type.Binary,
  ].includes(typeId);
}

function normaliser(data: Data): Normaliser {
  const valid = (row: number) => isValid(data, row);
  switch (data.type.typeId) {
    case Type.Int: {
      const signed = (data.type as unknown as { isSigned: boolean }).isSigned;
      return fixedWidth(data, valid, (le, out) => bigEndian(le, out, signed));
    }
    case Type.Date:
    case Type.Timestamp:
    case Type.Decimal:
      return fixedWidth(data, valid, (le, out) => bigEndian(le, out, true));
    case Type.Float:
      return fixedWidth(data, valid, floatBytes);
    case Type.Bool: {
      const values = data.values as Uint8Array;
      return (row, out) => {
        if (!valid(row)) return;
        const j = row + data.offset;
        out[0] = 1;
        out[1] = (values[j >> 3]! >> (j & 7)) & 1;
      };
    }
    case Type.Utf8:
    case Type.Binary: {
      const offsets = data.valueOffsets as Int32Array;
      const values = data.values as Uint8Array;
      return (row, out) => {
        if (!valid(row)) return;
        variableBytes(values.subarray(offsets[row]!, offsets[row + 1]!), out);
      };
    }
    default:
      throw new DeltaLiteError("unsupported", `Z-order keys of Arrow type ${data.type} are not supported`);
  }
}

/** Fixed-width values: `1`, then `encode(little-endian bytes of the value)`; null stays all zero. */
function fixedWidth(
  data: Data,
  valid: (row: number) => boolean,
  encode: (le: Uint8Array, out: Uint8Array) => void,
): Normaliser {
  const values = data.values as ArrayBufferView;
  const all = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const width = byteWidth(data.type);
  return (row, out) => {
    if (!valid(row)) return;
    out[0] = 1;
    encode(all.subarray(row * width, (row + 1) * width), out);
  };
}

/** Bytes per value of a fixed-width type. */
function byteWidth(type: DataType): number {
  const t = type as unknown as { bitWidth?: number; precision?: number; unit?: number };
  switch (type.typeId) {
    case Type.Float:
      return [2, 4, 8][t.precision ?? 2]!;
    case Type.Date:
      return t.unit === DateUnit.DAY ? 4 : 8;
    case Type.Timestamp:
      return 8;
    default:
      return (t.bitWidth ?? 64) / 8;
  }
}

/** Big-endian bytes after the leading `1` (sign bit flipped when signed), truncated to the key's 16 bytes. */
function bigEndian(le: Uint8Array, out: Uint8Array, signed: boolean): void {
  const width = le.length;
  for (let i = 0; i < width && i + 1 < VALUE_BYTES; i++) out[i + 1] = le[width - 1 - i]!;
  if (signed) out[1]! ^= 0x80;
}

/** IEEE floats: negative → every bit flipped, otherwise the sign bit flipped (byte order = numeric order). */
function floatBytes(le: Uint8Array, out: Uint8Array): void {
  const negative = (le[le.length - 1]! & 0x80) !== 0;
  for (let i = 0; i < le.length; i++) {
    const b = le[le.length - 1 - i]!;
    out[i + 1] = negative ? ~b & 0xff : b;
  }
  if (!negative) out[1]! ^= 0x80;
}

const MINI_BLOCK = 8;

/** arrow-row's variable-length encoding, first 16 bytes: sentinel, 8-byte block, its marker, next bytes. */
function variableBytes(value: Uint8Array, out: Uint8Array): void {
  if (value.length === 0) {
    out[0] = 1;
    return;
  }
  out[0] = 2;
  out.set(value.subarray(0, MINI_BLOCK), 1);
  // The first mini-block ends with its length when it is the last one, else the continuation 0xFF.
  out[1 + MINI_BLOCK] = value.length <= MINI_BLOCK ? value.length : 0xff;
  if (value.length > MINI_BLOCK) out.set(value.subarray(MINI_BLOCK, VALUE_BYTES - 2), 2 + MINI_BLOCK);
}

/** Compares the keys of row `a` of `ka` and row `b` of `kb` (both `width` words per row). */
export function compareKeys(ka: Uint32Array, a: number, kb: Uint32Array, b: number, width: number): number {
  const ia = a * width;
  const ib = b * width;
  for (let k = 0; k < width; k++) {
    const d = ka[ia + k]! - kb[ib + k]!;
    if (d !== 0) return d;
  }
  return 0;
}
