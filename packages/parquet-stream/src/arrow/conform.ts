/**
 * Arrow column surgery for reading files written under another schema: an all-null column of any type
 * (columns a file lacks after schema evolution), and conforming a column decoded from a file to the table's
 * Arrow type (struct fields matched by name with missing ones null-filled, list/map element names, timestamp
 * units, integer/float widening, decimal rescale). Used by the table scan and the upsert's rewrite.
 */

import { DeltaLiteError } from "@deltalite/errors";
import { type Data, type DataType, type Field, makeData, TimeUnit, Type } from "apache-arrow";
import { constantData } from "../read/constant-columns.js";
import { decimal128At, setDecimal128 } from "./decimal-words.js";

const bitmapBytes = (length: number) => (length + 7) >> 3;

/** A column of `length` nulls of `type`. */
export function nullData(type: DataType, length: number): Data {
  const nullBitmap = new Uint8Array(bitmapBytes(length));
  switch (type.typeId) {
    case Type.Struct:
      return makeData({
        type,
        length,
        nullCount: length,
        nullBitmap,
        children: (type.children as Field[]).map((f) => nullData(f.type, length)),
      } as never) as Data;
    case Type.List:
    case Type.Map:
      return makeData({
        type,
        length,
        nullCount: length,
        nullBitmap,
        valueOffsets: new Int32Array(length + 1),
        child: nullData((type.children[0] as Field).type, 0),
      } as never) as Data;
    case Type.FixedSizeBinary: {
      const { byteWidth } = type as unknown as { byteWidth: number };
      return makeData({
        type,
        length,
        nullCount: length,
        nullBitmap,
        data: new Uint8Array(length * byteWidth),
      } as never) as Data;
    }
    default:
      return constantData({ name: "null", type, value: null }, length);
  }
}

function retype(data: Data, type: DataType, children?: Data[]): Data {
  return data.clone(
    type,
    data.offset,
    data.length,
    data.nullCount,
    undefined,
    children ?? data.children,
  ) as Data;
}

function fieldOf(type: DataType, index: number): Field {
  return type.children[index] as Field;
}

const UNIT_FACTOR: Record<number, bigint> = {
  [TimeUnit.SECOND]: 1n,
  [TimeUnit.MILLISECOND]: 1_000n,
  [TimeUnit.MICROSECOND]: 1_000_000n,
  [TimeUnit.NANOSECOND]: 1_000_000_000n,
};

function withValues(data: Data, type: DataType, values: ArrayLike<unknown>): Data {
  return makeData({
    type,
    length: data.length,
    nullCount: data.nullCount,
    nullBitmap: data.nullCount > 0 ? copyBitmap(data) : undefined,
    data: values,
  } as never) as Data;
}

/** The validity bits of `data` starting at bit 0 (its offset folded in). */
function copyBitmap(data: Data): Uint8Array {
  const out = new Uint8Array(bitmapBytes(data.length));
  const bits = data.nullBitmap;
  if (!bits || bits.length === 0) return out.fill(0xff);
  for (let i = 0; i < data.length; i++) {
    const pos = data.offset + i;
    if (bits[pos >> 3]! & (1 << (pos & 7))) out[i >> 3]! |= 1 << (i & 7);
  }
  return out;
}

/**
 * `data` (decoded from a file, of `data.type`) as a column of the table's `target` type. Throws
 * `unsupported` when the file's type cannot be read as the table's.
 */
export function conformData(data: Data, target: DataType, label: string): Data {
  const source = data.type;
  const cannot = () =>
    new DeltaLiteError(
      "unsupported",
      `${label}: the file holds ${String(source)}, which cannot be read as the table's ${String(target)}`,
    );
  switch (target.typeId) {
    case Type.Struct: {
      if (source.typeId !== Type.Struct) throw cannot();
      const sourceFields = source.children as Field[];
      const children = (target.children as Field[]).map((field) => {
        const at = sourceFields.findIndex((f) => f.name === field.name);
        return at < 0
          ? nullData(field.type, data.length)
          : conformData(data.children[at]!, field.type, `${label}.${field.name}`);
      });
      return retype(data, target, children);
    }
    case Type.List: {
      if (source.typeId !== Type.List) throw cannot();
      const child = conformData(data.children[0]!, fieldOf(target, 0).type, `${label}[]`);
      return retype(data, target, [child]);
    }
    case Type.Map: {
      if (source.typeId !== Type.Map) throw cannot();
      const entries = data.children[0]!;
      const targetEntries = fieldOf(target, 0).type;
      const [key, value] = entries.children as [Data, Data];
      const conformed = retype(entries, targetEntries, [
        conformData(key, fieldOf(targetEntries, 0).type, `${label}.key`),
        conformData(value, fieldOf(targetEntries, 1).type, `${label}.value`),
      ]);
      return retype(data, target, [conformed]);
    }
    case Type.Int: {
      const t = target as unknown as { bitWidth: number; isSigned: boolean };
      if (source.typeId !== Type.Int) throw cannot();
      const s = source as unknown as { bitWidth: number; isSigned: boolean };
      if (s.bitWidth === t.bitWidth && s.isSigned === t.isSigned) return retype(data, target);
      if (!t.isSigned || s.bitWidth > t.bitWidth || (!s.isSigned && s.bitWidth >= t.bitWidth)) throw cannot();
      const from = data.values as ArrayLike<number | bigint>;
      const out = makeData({ type: target, length: 0 } as never) as Data;
      const Ctor = (out.values as { constructor: new (n: number) => { [i: number]: unknown } }).constructor;
      const values = new Ctor(data.length);
      const wide = t.bitWidth === 64;
      for (let i = 0; i < data.length; i++) values[i] = wide ? BigInt(from[i]!) : Number(from[i]!);
      return withValues(data, target, values as ArrayLike<unknown>);
    }
    case Type.Float: {
      if (source.typeId === Type.Float) {
        const s = (source as unknown as { precision: number }).precision;
        const t = (target as unknown as { precision: number }).precision;
        if (s === t) return retype(data, target);
        if (t === 2 && s === 1)
          return withValues(data, target, Float64Array.from(data.values as Float32Array));
        throw cannot();
      }
      if (source.typeId === Type.Int && (target as unknown as { precision: number }).precision === 2) {
        const from = data.values as ArrayLike<number | bigint>;
        const values = new Float64Array(data.length);
        for (let i = 0; i < data.length; i++) values[i] = Number(from[i]!);
        return withValues(data, target, values);
      }
      throw cannot();
    }
    case Type.Decimal: {
      if (source.typeId !== Type.Decimal) throw cannot();
      const s = source as unknown as { scale: number; bitWidth: number };
      const t = target as unknown as { scale: number; bitWidth: number };
      if (s.bitWidth !== 128 || t.bitWidth !== 128 || t.scale < s.scale) throw cannot();
      if (s.scale === t.scale) return retype(data, target);
      const factor = 10n ** BigInt(t.scale - s.scale);
      const from = data.values as Uint32Array;
      const words = new Uint32Array(data.length * 4);
      for (let i = 0; i < data.length; i++) setDecimal128(words, i, decimal128At(from, i) * factor);
      return withValues(data, target, words);
    }
    case Type.Timestamp: {
      const tu = (target as unknown as { unit: TimeUnit }).unit;
      if (source.typeId === Type.Timestamp) {
        const su = (source as unknown as { unit: TimeUnit }).unit;
        if (su === tu) return retype(data, target);
        const sf = UNIT_FACTOR[su]!;
        const tf = UNIT_FACTOR[tu]!;
        const from = data.values as BigInt64Array;
        const values = new BigInt64Array(data.length);
        // Coarser → finer multiplies; finer → coarser truncates toward zero (arrow's cast).
        for (let i = 0; i < data.length; i++)
          values[i] = sf < tf ? from[i]! * (tf / sf) : from[i]! / (sf / tf);
        return withValues(data, target, values);
      }
      if (source.typeId === Type.Date && (source as unknown as { unit: number }).unit === 0) {
        const from = data.values as Int32Array;
        const perDay = UNIT_FACTOR[tu]! * 86_400n;
        const values = new BigInt64Array(data.length);
        for (let i = 0; i < data.length; i++) values[i] = BigInt(from[i]!) * perDay;
        return withValues(data, target, values);
      }
      throw cannot();
    }
    case Type.Date: {
      if (source.typeId !== Type.Date) throw cannot();
      const su = (source as unknown as { unit: number }).unit;
      const tu = (target as unknown as { unit: number }).unit;
      if (su === tu) return retype(data, target);
      throw cannot();
    }
    case Type.Utf8:
    case Type.Binary: {
      if (source.typeId === Type.Utf8 || source.typeId === Type.Binary) return retype(data, target);
      if (source.typeId === Type.FixedSizeBinary && target.typeId === Type.Binary) {
        const width = (source as unknown as { byteWidth: number }).byteWidth;
        const offsets = new Int32Array(data.length + 1);
        for (let i = 0; i <= data.length; i++) offsets[i] = i * width;
        return makeData({
          type: target,
          length: data.length,
          nullCount: data.nullCount,
          nullBitmap: data.nullCount > 0 ? copyBitmap(data) : undefined,
          valueOffsets: offsets,
          data: (data.values as Uint8Array).subarray(0, data.length * width),
        } as never) as Data;
      }
      throw cannot();
    }
    default:
      if (source.typeId === target.typeId) return retype(data, target);
      throw cannot();
  }
}
