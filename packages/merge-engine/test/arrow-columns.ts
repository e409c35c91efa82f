/**
 * Test helper: builds Arrow arrays with exact bits (NaN payloads, -0.0, 64-bit integers, decimals) from
 * plain JS values, without `vectorFromArray` (which cannot express float bit patterns).
 */
import {
  Binary,
  Bool,
  type Data,
  type DataType,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  TimestampMicrosecond,
  Utf8,
} from "apache-arrow";

export type KeyTypeName =
  | "byte"
  | "short"
  | "integer"
  | "long"
  | "float"
  | "double"
  | "decimal(10,2)"
  | "decimal(38,6)"
  | "string"
  | "binary"
  | "boolean"
  | "date"
  | "timestamp"
  | "timestamp_ntz";

/**
 * Values per type: integers as number/bigint; float/double as their IEEE bits (number for float, bigint
 * for double); decimals as the unscaled bigint; string as string; binary as Uint8Array; boolean; date as
 * days; timestamps as microseconds (bigint). null = NULL.
 */
export type KeyValue = number | bigint | string | boolean | Uint8Array | null;

export function arrowType(name: KeyTypeName): DataType {
  switch (name) {
    case "byte":
      return new Int8();
    case "short":
      return new Int16();
    case "integer":
      return new Int32();
    case "long":
      return new Int64();
    case "float":
      return new Float32();
    case "double":
      return new Float64();
    case "decimal(10,2)":
      return new Decimal(2, 10, 128);
    case "decimal(38,6)":
      return new Decimal(6, 38, 128);
    case "string":
      return new Utf8();
    case "binary":
      return new Binary();
    case "boolean":
      return new Bool();
    case "date":
      return new DateDay();
    case "timestamp":
      return new TimestampMicrosecond("UTC");
    case "timestamp_ntz":
      return new TimestampMicrosecond();
  }
}

function bitmap(values: readonly KeyValue[]): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array(((values.length + 63) >> 6) << 3);
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null) nullCount++;
    else nullBitmap[i >> 3] = (nullBitmap[i >> 3] as number) | (1 << (i & 7));
  });
  return { nullBitmap, nullCount };
}

export function column(name: KeyTypeName, values: readonly KeyValue[]): Data {
  const type = arrowType(name);
  const length = values.length;
  const { nullBitmap, nullCount } = bitmap(values);
  const common = { length, nullCount, nullBitmap };
  switch (name) {
    case "byte":
      return makeData({ type: type as Int8, ...common, data: Int8Array.from(values, (v) => Number(v ?? 0)) });
    case "short":
      return makeData({
        type: type as Int16,
        ...common,
        data: Int16Array.from(values, (v) => Number(v ?? 0)),
      });
    case "integer":
    case "date":
      return makeData({
        type: type as Int32,
        ...common,
        data: Int32Array.from(values, (v) => Number(v ?? 0)),
      });
    case "long":
    case "timestamp":
    case "timestamp_ntz":
      return makeData({
        type: type as Int64,
        ...common,
        data: BigInt64Array.from(values, (v) => BigInt((v as bigint | number | null) ?? 0)),
      });
    case "float": {
      const bits = Uint32Array.from(values, (v) => Number(v ?? 0));
      return makeData({ type: type as Float32, ...common, data: new Float32Array(bits.buffer) });
    }
    case "double": {
      const bits = BigUint64Array.from(values, (v) => BigInt((v as bigint | null) ?? 0n));
      return makeData({ type: type as Float64, ...common, data: new Float64Array(bits.buffer) });
    }
    case "decimal(10,2)":
    case "decimal(38,6)": {
      const words = new BigInt64Array(2 * length);
      values.forEach((v, i) => {
        const x = BigInt.asUintN(128, BigInt((v as bigint | null) ?? 0n));
        words[2 * i] = BigInt.asIntN(64, x & 0xffffffffffffffffn);
        words[2 * i + 1] = BigInt.asIntN(64, x >> 64n);
      });
      return makeData({ type: type as Decimal, ...common, data: new Uint32Array(words.buffer) });
    }
    case "string":
    case "binary": {
      const enc = new TextEncoder();
      const parts = values.map((v) =>
        v === null ? new Uint8Array(0) : typeof v === "string" ? enc.encode(v) : (v as Uint8Array),
      );
      const valueOffsets = new Int32Array(length + 1);
      parts.forEach((p, i) => {
        valueOffsets[i + 1] = (valueOffsets[i] as number) + p.length;
      });
      const data = new Uint8Array(valueOffsets[length] as number);
      parts.forEach((p, i) => {
        data.set(p, valueOffsets[i] as number);
      });
      return makeData({ type: type as Utf8, ...common, valueOffsets, data });
    }
    case "boolean": {
      const data = new Uint8Array(((length + 63) >> 6) << 3);
      values.forEach((v, i) => {
        if (v === true) data[i >> 3] = (data[i >> 3] as number) | (1 << (i & 7));
      });
      return makeData({ type: type as Bool, ...common, data });
    }
  }
}

/** A RecordBatch of named columns. */
export function batchOf(columns: Array<[string, Data]>): RecordBatch {
  const fields = columns.map(([name, data]) => new Field(name, data.type, true));
  const schema = new Schema(fields);
  const length = columns[0]?.[1].length ?? 0;
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(fields), length, nullCount: 0, children: columns.map(([, d]) => d) }),
  );
}
