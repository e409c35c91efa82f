/**
 * The JSON encoding of Arrow values, used by `scan --format ndjson` and by any CLI
 * output that prints table values. Per value:
 * - null → null; boolean → boolean; 8/16/32-bit integers → number;
 * - 64-bit integers → number when a safe integer (|v| ≤ 2^53 − 1), else a decimal string (`batchToJsonRows`,
 *   whose values are JS values); `batchToNdjson` and `exactJsonValueReader` keep every digit instead: always a
 *   JSON number (a bigint before writing), one rule for the whole column;
 * - half/float/double → number; NaN, Infinity, -Infinity → the strings "NaN", "Infinity", "-Infinity"
 *   (float32 values print as the shortest decimal that round-trips to the same float32, e.g. 0.1; -0 prints
 *   as 0 because JSON has no negative zero);
 * - decimal(p,s) → exact string with `s` fraction digits ("12.30", "-0.01", "7");
 * - string → string; binary and fixed-size binary → base64;
 * - date → "YYYY-MM-DD" (years outside 0000–9999 as "+10000" / "-0001");
 * - timestamp → ISO 8601 with microseconds: "2024-01-02T03:04:05.123456Z" when the type has a time zone (the
 *   instant in UTC), no "Z" for timestamp_ntz; nanosecond timestamps print 9 fraction digits;
 * - time of day → "HH:MM:SS.ffffff";
 * - struct → object (field order kept); list → array;
 * - map → object when the key type is a string type, else an array of {"key", "value"} objects.
 * Dates, the date / time-of-day split of timestamps, decimals and float32 digits are @deltalite/delta-log's
 * shared text forms (value-text.ts), the same that Add stats and partition values use.
 */
import { formatDate, formatDecimal, shortestFloat32, timestampParts } from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { decimal128At } from "@deltalite/parquet-stream";
import { type Data, type DataType, type Field, type RecordBatch, TimeUnit, Type } from "apache-arrow";
import { type ExactJsonValue, stringifyExact } from "./exact.js";

/** The names of the shared text forms (one implementation each, in @deltalite/delta-log). */
export { formatDate as dateText, formatDecimal as decimalText, shortestFloat32 } from "@deltalite/delta-log";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Reads row `index` of `data` as a JSON value. */
export type JsonValueReader = (data: Data, index: number) => JsonValue;

const utf8 = new TextDecoder("utf-8");

function isValid(data: Data, index: number): boolean {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) return true;
  const pos = data.offset + index;
  return (data.nullBitmap[pos >> 3]! & (1 << (pos & 7))) !== 0;
}

/** A JSON number for a finite float, else its string form (NaN, Infinity, -Infinity). */
export function jsonFloat(value: number): JsonValue {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  return value;
}

/** The value of an IEEE half-precision float given by its 16 bits. */
export function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** A 64-bit integer as a JSON number when safe, else a string. */
export function jsonInt64(value: bigint): JsonValue {
  return value <= 9007199254740991n && value >= -9007199254740991n ? Number(value) : value.toString();
}

/** The signed 128-bit value of decimal slot `index` (parquet-stream's one reader of decimal words). */
export { decimal128At };

const UNITS_PER_SECOND: Record<number, bigint> = {
  [TimeUnit.SECOND]: 1n,
  [TimeUnit.MILLISECOND]: 1_000n,
  [TimeUnit.MICROSECOND]: 1_000_000n,
  [TimeUnit.NANOSECOND]: 1_000_000_000n,
};

/** ISO 8601 text of a count of `unit` since the epoch: 6 fraction digits (9 for nanoseconds), `Z` when `utc`. */
export function timestampText(count: bigint, unit: TimeUnit, utc: boolean): string {
  const { date, time, fraction } = timeParts(count, unit);
  return `${date}T${time}.${fraction}${utc ? "Z" : ""}`;
}

function timeOfDayText(count: bigint, unit: TimeUnit): string {
  const { time, fraction } = timeParts(count, unit);
  return `${time}.${fraction}`;
}

/** The shared date / time-of-day split, with the fraction: 6 digits, 9 for nanoseconds. */
function timeParts(count: bigint, unit: TimeUnit): { date: string; time: string; fraction: string } {
  const perSecond = UNITS_PER_SECOND[unit] ?? 1_000_000n;
  const { date, time, subsecond } = timestampParts(count, perSecond);
  const digits = unit === TimeUnit.NANOSECOND ? 9 : 6;
  const fraction = (subsecond * (10n ** BigInt(digits) / perSecond)).toString().padStart(digits, "0");
  return { date, time, fraction };
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function isStringType(type: DataType): boolean {
  return type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8;
}

/** A reader of JSON values for columns of `type` (int64 as a number when safe, else a string). */
export function jsonValueReader(type: DataType): JsonValueReader {
  return readerFor(type, false) as JsonValueReader;
}

/** Reads row `index` of `data` as an exact JSON value: int64 (and uint64) as a bigint, every digit kept. */
export type ExactJsonValueReader = (data: Data, index: number) => ExactJsonValue;

/** Like `jsonValueReader`, but 64-bit integers come back as bigints (written by `stringifyExact`). */
export function exactJsonValueReader(type: DataType): ExactJsonValueReader {
  return readerFor(type, true);
}

function readerFor(type: DataType, exact: boolean): ExactJsonValueReader {
  const read = nonNullReader(type, exact);
  return (data, index) => (isValid(data, index) ? read(data, index) : null);
}

function nonNullReader(type: DataType, exact: boolean): ExactJsonValueReader {
  switch (type.typeId) {
    case Type.Null:
      return () => null;
    case Type.Bool:
      return (data, i) => {
        const pos = data.offset + i;
        return ((data.values as Uint8Array)[pos >> 3]! & (1 << (pos & 7))) !== 0;
      };
    case Type.Int: {
      const { bitWidth } = type as unknown as { bitWidth: number };
      if (bitWidth === 64 && exact) return (data, i) => BigInt((data.values as BigInt64Array)[i]!);
      if (bitWidth === 64) return (data, i) => jsonInt64(BigInt((data.values as BigInt64Array)[i]!));
      return (data, i) => Number((data.values as Int32Array)[i]);
    }
    case Type.Float: {
      const { precision } = type as unknown as { precision: number };
      if (precision === 1) return (data, i) => jsonFloat(shortestFloat32((data.values as Float32Array)[i]!));
      if (precision === 0) return (data, i) => jsonFloat(halfToNumber((data.values as Uint16Array)[i]!));
      return (data, i) => jsonFloat((data.values as Float64Array)[i]!);
    }
    case Type.Decimal: {
      const { scale, bitWidth } = type as unknown as { scale: number; bitWidth: number };
      if (bitWidth !== 128) throw new DeltaLiteError("unsupported", `decimal of ${bitWidth} bits`);
      return (data, i) => formatDecimal(decimal128At(data.values as Uint32Array, i), scale);
    }
    case Type.Date: {
      const { unit } = type as unknown as { unit: number };
      if (unit === 0) return (data, i) => formatDate((data.values as Int32Array)[i]!);
      return (data, i) => formatDate(Math.floor(Number((data.values as BigInt64Array)[i]!) / 86_400_000));
    }
    case Type.Timestamp: {
      const { unit, timezone } = type as unknown as { unit: TimeUnit; timezone: string | null };
      const utc = timezone !== null && timezone !== undefined && timezone !== "";
      return (data, i) => timestampText(BigInt((data.values as BigInt64Array)[i]!), unit, utc);
    }
    case Type.Time: {
      const { unit, bitWidth } = type as unknown as { unit: TimeUnit; bitWidth: number };
      if (bitWidth === 32) return (data, i) => timeOfDayText(BigInt((data.values as Int32Array)[i]!), unit);
      return (data, i) => timeOfDayText(BigInt((data.values as BigInt64Array)[i]!), unit);
    }
    case Type.Utf8:
    case Type.LargeUtf8:
      return (data, i) => {
        const offsets = data.valueOffsets as Int32Array | BigInt64Array;
        return utf8.decode((data.values as Uint8Array).subarray(Number(offsets[i]), Number(offsets[i + 1])));
      };
    case Type.Binary:
    case Type.LargeBinary:
      return (data, i) => {
        const offsets = data.valueOffsets as Int32Array | BigInt64Array;
        return base64((data.values as Uint8Array).subarray(Number(offsets[i]), Number(offsets[i + 1])));
      };
    case Type.FixedSizeBinary: {
      const { byteWidth } = type as unknown as { byteWidth: number };
      return (data, i) => base64((data.values as Uint8Array).subarray(i * byteWidth, (i + 1) * byteWidth));
    }
    case Type.Struct: {
      const fields = type.children as Field[];
      const readers = fields.map((f) => readerFor(f.type, exact));
      return (data, i) => {
        const out: { [key: string]: ExactJsonValue } = {};
        for (let c = 0; c < fields.length; c++) out[fields[c]!.name] = readers[c]!(data.children[c]!, i);
        return out;
      };
    }
    case Type.List:
    case Type.LargeList: {
      const element = readerFor((type.children[0] as Field).type, exact);
      return (data, i) => {
        const offsets = data.valueOffsets as Int32Array | BigInt64Array;
        const child = data.children[0]!;
        const out: ExactJsonValue[] = [];
        for (let j = Number(offsets[i]); j < Number(offsets[i + 1]); j++) out.push(element(child, j));
        return out;
      };
    }
    case Type.FixedSizeList: {
      const { listSize } = type as unknown as { listSize: number };
      const element = readerFor((type.children[0] as Field).type, exact);
      return (data, i) => {
        const child = data.children[0]!;
        const out: ExactJsonValue[] = [];
        for (let j = i * listSize; j < (i + 1) * listSize; j++) out.push(element(child, j));
        return out;
      };
    }
    case Type.Map: {
      const entries = type.children[0] as Field;
      const [keyField, valueField] = entries.type.children as Field[];
      if (!keyField || !valueField)
        throw new DeltaLiteError("unsupported", "a map type without key and value");
      const key = readerFor(keyField.type, exact);
      const value = readerFor(valueField.type, exact);
      const stringKeys = isStringType(keyField.type);
      return (data, i) => {
        const offsets = data.valueOffsets as Int32Array;
        const struct = data.children[0]!;
        const [keys, values] = struct.children as [Data, Data];
        if (stringKeys) {
          const out: { [key: string]: ExactJsonValue } = {};
          for (let j = offsets[i]!; j < offsets[i + 1]!; j++) out[String(key(keys, j))] = value(values, j);
          return out;
        }
        const out: ExactJsonValue[] = [];
        for (let j = offsets[i]!; j < offsets[i + 1]!; j++)
          out.push({ key: key(keys, j), value: value(values, j) });
        return out;
      };
    }
    case Type.Dictionary: {
      const dictionaryType = (type as unknown as { dictionary: DataType }).dictionary;
      const indexType = (type as unknown as { indices: DataType }).indices;
      const index = nonNullReader(indexType, false);
      const value = readerFor(dictionaryType, exact);
      return (data, i) => {
        const dictionary = data.dictionary?.data[0];
        if (!dictionary) return null;
        return value(dictionary, Number(index(data, i)));
      };
    }
    default:
      throw new DeltaLiteError("unsupported", `Arrow type ${String(type)} has no JSON encoding here`);
  }
}

/** One JSON object per row of `batch`, keyed by column name in schema order. */
export function batchToJsonRows(batch: RecordBatch): { [column: string]: JsonValue }[] {
  const fields = batch.schema.fields;
  const readers = fields.map((f) => jsonValueReader(f.type));
  const columns = batch.data.children;
  const rows: { [column: string]: JsonValue }[] = new Array(batch.numRows);
  for (let i = 0; i < batch.numRows; i++) {
    const row: { [column: string]: JsonValue } = {};
    for (let c = 0; c < fields.length; c++) row[fields[c]!.name] = readers[c]!(columns[c]!, i);
    rows[i] = row;
  }
  return rows;
}

/**
 * The rows of `batch` as newline-delimited JSON (one line per row, each ending in "\n"). One rule per column
 * for 64-bit integers: always a JSON number with every digit (9007199254740993 stays 9007199254740993), so a
 * column never mixes numbers and strings; everything else as `batchToJsonRows`.
 */
export function batchToNdjson(batch: RecordBatch): string {
  const fields = batch.schema.fields;
  const keys = fields.map((f, c) => `${c === 0 ? "{" : ","}${JSON.stringify(f.name)}:`);
  const readers = fields.map((f) => exactJsonValueReader(f.type));
  const columns = batch.data.children;
  let out = "";
  for (let i = 0; i < batch.numRows; i++) {
    let line = fields.length === 0 ? "{" : "";
    for (let c = 0; c < fields.length; c++) line += keys[c]! + stringifyExact(readers[c]!(columns[c]!, i));
    out += `${line}}\n`;
  }
  return out;
}
