/**
 * Exact casts of one incoming Arrow column to the table's Arrow type: dictionaries
 * decoded to their value type, integral floats to signed integers, narrower to wider integers (unsigned to
 * signed when in range), Utf8 ↔ LargeUtf8 and Binary ↔ LargeBinary, timestamp units (to a coarser unit
 * only without loss) and time-zone spellings (the table's zone wins), Date64 of whole days to Date32. A
 * value that does not convert exactly is an `InexactValue` naming its row; a type pair outside these rules
 * has no cast (`planCast` answers undefined). Nested types are never cast: they pass only when their Arrow
 * types have the same storage. Casts work on typed arrays and `makeData`, never on per-value builders.
 */
import { arrowTypeToDelta } from "@deltalite/delta-log";
import { nullData, takeData } from "@deltalite/parquet-stream";
import {
  type Data,
  type DataType,
  type Dictionary,
  type Field,
  type Float,
  type Int,
  makeData,
  Precision,
  type Timestamp,
  TimeUnit,
  Type,
} from "apache-arrow";

/** One column converted to the target type; throws `InexactValue` for the first value that is not exact. */
export type ColumnCast = (data: Data) => Data;

/** The first value of a column that has no exact counterpart in the target type (no row: the whole column). */
export class InexactValue extends Error {
  constructor(
    readonly row: number | undefined,
    readonly value: string,
  ) {
    super(row === undefined ? value : `row ${row} holds ${value}`);
  }
}

const keep: ColumnCast = (data) => data;

/** The cast from `source` to `target`, or undefined when the pair is not castable exactly. */
export function planCast(source: DataType, target: DataType): ColumnCast | undefined {
  if (source.typeId === Type.Dictionary) {
    const inner = planCast((source as Dictionary).dictionary, target);
    return inner && ((data) => inner(decodeDictionary(data)));
  }
  if (sameStorage(source, target) && sameDeltaType(source, target)) {
    // Only names may differ (a time zone's spelling): the same values under the table's type.
    return String(source) === String(target) ? keep : (data) => data.clone(target) as Data;
  }
  switch (target.typeId) {
    case Type.Int:
      if (source.typeId === Type.Int) return intToInt(source as Int, target as Int);
      if (source.typeId === Type.Float) return floatToInt(source as Float, target as Int);
      return undefined;
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary:
      return offsetWidth(source, target);
    case Type.Timestamp:
      return source.typeId === Type.Timestamp ? rescaleTimestamp(source as Timestamp, target) : undefined;
    case Type.Date:
      return source.typeId === Type.Date ? date64ToDay(source, target) : undefined;
    default:
      return undefined;
  }
}

const STORAGE_KEYS = ["unit", "bitWidth", "isSigned", "precision", "scale", "byteWidth", "listSize"];

/** Same physical values under both types: nested types also need the same Arrow type text. */
function sameStorage(a: DataType, b: DataType): boolean {
  if (a.typeId !== b.typeId) return false;
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  if (STORAGE_KEYS.some((key) => x[key] !== y[key])) return false;
  const ac = (a.children ?? []) as Field[];
  const bc = (b.children ?? []) as Field[];
  if (ac.length === 0 && bc.length === 0) return true;
  return (
    String(a) === String(b) &&
    ac.length === bc.length &&
    ac.every((field, i) => sameStorage(field.type, bc[i]!.type))
  );
}

function deltaTypeOf(type: DataType): string | undefined {
  try {
    return JSON.stringify(arrowTypeToDelta(type));
  } catch {
    return undefined; // a type Delta cannot hold (unsigned integers, ...): only a cast can admit it
  }
}

function sameDeltaType(a: DataType, b: DataType): boolean {
  const x = deltaTypeOf(a);
  return x !== undefined && x === deltaTypeOf(b);
}

// ---------------------------------------------------------------------------------------------------
// Validity

function isValid(data: Data, row: number): boolean {
  const bits = data.nullBitmap;
  if (data.nullCount === 0 || !bits || bits.length === 0) return true;
  const pos = data.offset + row;
  return ((bits[pos >> 3]! >> (pos & 7)) & 1) === 1;
}

/** The validity bitmap of `data` starting at bit 0 (its offset folded in), or undefined without nulls. */
function validityOf(data: Data): Uint8Array | undefined {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) return undefined;
  const out = new Uint8Array((data.length + 7) >> 3);
  for (let i = 0; i < data.length; i++) if (isValid(data, i)) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

function withValues(data: Data, type: DataType, values: ArrayLike<unknown>): Data {
  return makeData({
    type,
    length: data.length,
    nullCount: data.nullCount,
    nullBitmap: validityOf(data),
    data: values,
  } as never) as Data;
}

/** Whether the column holds a NULL (for a dictionary, also a valid index to a NULL value). */
export function hasNulls(data: Data): boolean {
  if (data.nullCount > 0) return true;
  const dictionary = data.dictionary;
  if (data.type.typeId !== Type.Dictionary || !dictionary || dictionary.nullCount === 0) return false;
  const indices = data.values as ArrayLike<number | bigint>;
  for (let i = 0; i < data.length; i++) if (!dictionary.isValid(Number(indices[i]))) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Dictionaries

/** The dictionary's values, row by row (index validity and value validity both kept). */
function decodeDictionary(data: Data): Data {
  const valueType = (data.type as Dictionary).dictionary;
  if (data.nullCount === data.length) return nullData(valueType, data.length);
  const chunks = data.dictionary?.data ?? [];
  if (chunks.length !== 1) {
    const why = `a dictionary in ${chunks.length} chunks (dictionary deltas are not decoded)`;
    throw new InexactValue(undefined, why);
  }
  const size = chunks[0]!.length;
  const raw = data.values as ArrayLike<number | bigint>;
  const indices = new Int32Array(data.length);
  for (let i = 0; i < data.length; i++) {
    if (!isValid(data, i)) continue; // index 0 stands in; the row stays NULL below
    const index = Number(raw[i]);
    if (!(index >= 0 && index < size)) throw new InexactValue(i, `dictionary index ${index} of ${size}`);
    indices[i] = index;
  }
  const taken = takeData(chunks[0]!, indices);
  if (data.nullCount === 0) return taken;
  const bitmap = validityOf(data)!;
  let nulls = 0;
  for (let i = 0; i < data.length; i++) {
    if (isValid(data, i) && !isValid(taken, i)) bitmap[i >> 3]! &= ~(1 << (i & 7));
    if (!((bitmap[i >> 3]! >> (i & 7)) & 1)) nulls++;
  }
  return taken.clone(valueType, 0, data.length, nulls, [
    taken.valueOffsets,
    taken.values,
    bitmap,
    taken.typeIds,
  ] as never) as Data;
}

// ---------------------------------------------------------------------------------------------------
// Numbers

type NumberArray = { [i: number]: number | bigint; readonly length: number };

function outputArray(type: DataType, length: number): NumberArray {
  const Ctor = (type as unknown as { ArrayType: new (n: number) => NumberArray }).ArrayType;
  return new Ctor(length);
}

/** Signed narrower → wider; unsigned → signed of at least its width (checked when not wider). */
function intToInt(source: Int, target: Int): ColumnCast | undefined {
  if (!target.isSigned || source.bitWidth > target.bitWidth) return undefined;
  if (source.isSigned && source.bitWidth === target.bitWidth) return undefined;
  const max = (1n << BigInt(target.bitWidth - 1)) - 1n;
  const check = !source.isSigned && source.bitWidth === target.bitWidth;
  const wide = target.bitWidth === 64;
  return (data) => {
    const from = data.values as NumberArray;
    const out = outputArray(target, data.length);
    for (let i = 0; i < data.length; i++) {
      if (!isValid(data, i)) continue;
      const v = from[i]!;
      if (check && BigInt(v) > max) throw new InexactValue(i, String(v));
      out[i] = wide ? BigInt(v) : Number(v);
    }
    return withValues(data, target, out);
  };
}

/** Float32/Float64 → a signed integer: every value integral and in range (NaN and ±Infinity are not). */
function floatToInt(source: Float, target: Int): ColumnCast | undefined {
  if (!target.isSigned || source.precision === Precision.HALF) return undefined;
  const limit = 2 ** (target.bitWidth - 1);
  const wide = target.bitWidth === 64;
  return (data) => {
    const from = data.values as Float64Array | Float32Array;
    const out = outputArray(target, data.length);
    for (let i = 0; i < data.length; i++) {
      if (!isValid(data, i)) continue;
      const v = from[i]!;
      if (!Number.isInteger(v) || v < -limit || v >= limit) throw new InexactValue(i, String(v));
      out[i] = wide ? BigInt(v) : v;
    }
    return withValues(data, target, out);
  };
}

// ---------------------------------------------------------------------------------------------------
// Strings and binary: 32-bit ↔ 64-bit offsets

const OFFSET_KIND: Partial<Record<Type, string>> = {
  [Type.Utf8]: "string",
  [Type.LargeUtf8]: "string",
  [Type.Binary]: "binary",
  [Type.LargeBinary]: "binary",
};

function offsetWidth(source: DataType, target: DataType): ColumnCast | undefined {
  const kind = OFFSET_KIND[source.typeId];
  if (kind === undefined || kind !== OFFSET_KIND[target.typeId]) return undefined;
  const large = target.typeId === Type.LargeUtf8 || target.typeId === Type.LargeBinary;
  return (data) => {
    const from = data.valueOffsets as unknown as NumberArray;
    const start = Number(from[0]);
    const offsets = large ? new BigInt64Array(data.length + 1) : new Int32Array(data.length + 1);
    for (let i = 0; i <= data.length; i++) {
      const at = Number(from[i]) - start;
      if (!large && at > 0x7fffffff) throw new InexactValue(i - 1, "a value past 2 GiB of column bytes");
      offsets[i] = large ? BigInt(at) : at;
    }
    const end = start + Number(offsets[data.length]);
    return makeData({
      type: target,
      length: data.length,
      nullCount: data.nullCount,
      nullBitmap: validityOf(data),
      valueOffsets: offsets,
      data: (data.values as Uint8Array).subarray(start, end),
    } as never) as Data;
  };
}

// ---------------------------------------------------------------------------------------------------
// Timestamps and dates

const PER_SECOND: Record<number, bigint> = {
  [TimeUnit.SECOND]: 1n,
  [TimeUnit.MILLISECOND]: 1_000n,
  [TimeUnit.MICROSECOND]: 1_000_000n,
  [TimeUnit.NANOSECOND]: 1_000_000_000n,
};
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Another unit (and maybe zone spelling): finer → coarser only when nothing is lost; int64 range kept. */
function rescaleTimestamp(source: Timestamp, target: DataType): ColumnCast | undefined {
  const to = target as Timestamp;
  if (Boolean(source.timezone) !== Boolean(to.timezone)) return undefined; // timestamp vs timestamp_ntz
  const sf = PER_SECOND[source.unit]!;
  const tf = PER_SECOND[to.unit]!;
  return (data) => {
    const from = data.values as BigInt64Array;
    const out = new BigInt64Array(data.length);
    for (let i = 0; i < data.length; i++) {
      if (!isValid(data, i)) continue;
      const v = from[i]!;
      const scaled = tf >= sf ? v * (tf / sf) : v / (sf / tf);
      if (scaled * sf !== v * tf || scaled < INT64_MIN || scaled > INT64_MAX) {
        throw new InexactValue(i, `${v} (${TimeUnit[source.unit]})`);
      }
      out[i] = scaled;
    }
    return withValues(data, target, out);
  };
}

const MS_PER_DAY = 86_400_000n;

/** Date64 (milliseconds) → Date32 (days): every value a whole day within Date32's range. */
function date64ToDay(source: DataType, target: DataType): ColumnCast | undefined {
  const unit = (type: DataType) => (type as unknown as { unit: number }).unit;
  if (unit(source) !== 1 || unit(target) !== 0) return undefined;
  return (data) => {
    const from = data.values as BigInt64Array;
    const out = new Int32Array(data.length);
    for (let i = 0; i < data.length; i++) {
      if (!isValid(data, i)) continue;
      const v = BigInt(from[i]!);
      const days = v / MS_PER_DAY;
      if (v % MS_PER_DAY !== 0n || days < -2147483648n || days > 2147483647n) {
        throw new InexactValue(i, `${v} ms`);
      }
      out[i] = Number(days);
    }
    return withValues(data, target, out);
  };
}
