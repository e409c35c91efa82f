/**
 * Footer min/max values → Delta stats JSON values, the way delta-rs 1.6.6 renders them (checked against it):
 * integers as JSON integers (int64 beyond 2^53 kept exact as bigint), floats widened to f64 with ±Infinity as
 * null (serde_json's rendering), decimals as the f64 unscaled / 10^scale, dates `YYYY-MM-DD`, timestamps cut
 * to milliseconds (floor) as `YYYY-MM-DDTHH:MM:SS.mmmZ` (`…HH:MM:SS.mmm` without `Z` for timestamp_ntz), the
 * fraction left out when the value has no sub-second part; strings as stored (parquet-rs already cut them to
 * 64 bytes). Also the per-kind ordering used to merge row groups.
 */
import type { SchemaElement } from "./leaf-columns.js";

/** A leaf's stats rendering, or `skip` (no entry at all) / `nullCountOnly` (min/max dropped). */
export type StatKind =
  | "boolean"
  | "int"
  | "long"
  | "float"
  | "decimal"
  | "date"
  | "timestamp"
  | "timestampNtz"
  | "string"
  | "skip"
  | "nullCountOnly";

export function statKind(element: SchemaElement): StatKind {
  const logical = element.logical_type;
  const converted = element.converted_type;
  switch (element.type) {
    case "BOOLEAN":
      return "boolean";
    case "INT32":
      if (logical?.type === "DATE" || converted === "DATE") return "date";
      if (logical?.type === "DECIMAL" || converted === "DECIMAL") return "decimal";
      if (logical?.type === "TIME" || converted === "TIME_MILLIS") return "nullCountOnly";
      return "int";
    case "INT64":
      if (logical?.type === "TIMESTAMP") return logical.isAdjustedToUTC ? "timestamp" : "timestampNtz";
      if (converted === "TIMESTAMP_MICROS" || converted === "TIMESTAMP_MILLIS") return "timestamp";
      if (logical?.type === "DECIMAL" || converted === "DECIMAL") return "decimal";
      if (logical?.type === "TIME" || converted === "TIME_MICROS") return "nullCountOnly";
      return "long";
    case "FLOAT":
    case "DOUBLE":
      return "float";
    case "BYTE_ARRAY":
      return logical?.type === "STRING" || converted === "UTF8" ? "string" : "skip";
    case "FIXED_LEN_BYTE_ARRAY":
      return logical?.type === "DECIMAL" || converted === "DECIMAL" ? "decimal" : "nullCountOnly";
    default:
      return "nullCountOnly";
  }
}

/** A raw footer statistic as hyparquet decodes it. */
export type FooterValue = bigint | boolean | number | string | Date | Uint8Array;

const textDecoder = new TextDecoder();

/** Nanoseconds per unit of a TIMESTAMP column. */
function nanosPerUnit(element: SchemaElement): bigint {
  const logical = element.logical_type;
  if (logical?.type === "TIMESTAMP") {
    return logical.unit === "NANOS" ? 1n : logical.unit === "MICROS" ? 1000n : 1_000_000n;
  }
  return element.converted_type === "TIMESTAMP_MILLIS" ? 1_000_000n : 1000n;
}

/** The value in a comparable primitive: bigint for long/timestamp, number for int/float/decimal/date. */
export function normalize(
  kind: StatKind,
  element: SchemaElement,
  value: FooterValue,
): bigint | number | boolean | string {
  switch (kind) {
    case "timestamp":
    case "timestampNtz":
      if (value instanceof Date) return BigInt(value.getTime()) * 1_000_000n;
      return BigInt(value as bigint | number) * nanosPerUnit(element);
    case "long":
      return BigInt(value as bigint | number);
    case "date":
      if (value instanceof Date) return Math.floor(value.getTime() / 86_400_000);
      return Number(value);
    case "string":
      return value instanceof Uint8Array ? textDecoder.decode(value) : String(value);
    case "boolean":
      return Boolean(value);
    case "decimal":
      return element.type === "FIXED_LEN_BYTE_ARRAY"
        ? nudgeWideDecimal(Number(value), element)
        : Number(value);
    default:
      return Number(value);
  }
}

/**
 * delta-rs's rule for FIXED_LEN_BYTE_ARRAY decimals: when the f64 value's integer part printed (sign
 * included) is longer than precision − scale digits, it takes the next f64 toward zero.
 */
function nudgeWideDecimal(value: number, element: SchemaElement): number {
  const logical = element.logical_type;
  const precision = logical?.type === "DECIMAL" ? logical.precision : (element.precision ?? 38);
  const scale = logical?.type === "DECIMAL" ? logical.scale : (element.scale ?? 0);
  const normal = Number.isFinite(value) && Math.abs(value) >= 2.2250738585072014e-308;
  if (!normal || BigInt(Math.trunc(value)).toString().length <= precision - scale) return value;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

/** Compares strings in UTF-8 byte order (= code point order), as parquet-rs orders them. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function compareValues(a: bigint | number | boolean | string, b: typeof a): number {
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  if (a === b) return 0;
  return (a as number) < (b as number) ? -1 : 1;
}

function pad(value: number | bigint, width: number): string {
  return String(value).padStart(width, "0");
}

/** chrono's `%Y`: at least four digits, a sign outside 0..9999. */
function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4);
  return `${year < 0 ? "-" : "+"}${pad(Math.abs(year), 4)}`;
}

/** Days since the epoch → proleptic Gregorian civil date. */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

export function formatDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Nanoseconds since the epoch → delta-rs's stats timestamp text. */
export function formatTimestamp(nanos: bigint, utc: boolean): string {
  const seconds = floorDiv(nanos, 1_000_000_000n);
  const subNanos = nanos - seconds * 1_000_000_000n;
  const days = floorDiv(seconds, 86_400n);
  const secondOfDay = Number(seconds - days * 86_400n);
  const date = formatDate(Number(days));
  const time = `${pad(Math.floor(secondOfDay / 3600), 2)}:${pad(Math.floor((secondOfDay % 3600) / 60), 2)}:${pad(secondOfDay % 60, 2)}`;
  const fraction = subNanos === 0n ? "" : `.${pad(subNanos / 1_000_000n, 3)}`;
  return utc ? `${date}T${time}${fraction}Z` : `${date} ${time}${fraction}`;
}

/** A stats JSON value: int64 beyond ±2^53 stays a bigint so `statsJson` can print it exactly. */
export type StatsScalar = number | bigint | boolean | string | null;

export function renderValue(kind: StatKind, value: bigint | number | boolean | string): StatsScalar {
  switch (kind) {
    case "long": {
      const n = value as bigint;
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    case "float":
      return Number.isFinite(value) ? (value as number) : null;
    case "date":
      return formatDate(value as number);
    case "timestamp":
      return formatTimestamp(value as bigint, true);
    case "timestampNtz":
      return formatTimestamp(value as bigint, false);
    default:
      return value as number | boolean | string;
  }
}
