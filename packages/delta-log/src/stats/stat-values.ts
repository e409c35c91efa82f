/**
 * Footer min/max values → Delta stats JSON values, the way delta-rs 1.6.6 renders them (checked against it):
 * integers as JSON integers (int64 beyond 2^53 kept exact as bigint), floats widened to f64 with ±Infinity as
 * null (serde_json's rendering), decimals as the f64 unscaled / 10^scale, dates `YYYY-MM-DD`, timestamps cut
 * to milliseconds (floor) as `YYYY-MM-DDTHH:MM:SS.mmmZ` (`…HH:MM:SS.mmm` without `Z` for timestamp_ntz), the
 * fraction left out when the value has no sub-second part; strings as stored (parquet-rs already cut them to
 * 64 bytes). Also the per-kind ordering used to merge row groups. Dates and timestamps are cut from the
 * shared calendar of value-text.ts; strings order by @deltalite/object-store's `compareUtf8`.
 */
import { compareUtf8 } from "@deltalite/object-store";
import { formatDate, timestampParts } from "../value-text.js";
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

/** The order row-group bounds merge in: strings in UTF-8 byte order (as parquet-rs orders them), else `<`. */
export function compareValues(a: bigint | number | boolean | string, b: typeof a): number {
  if (typeof a === "string" && typeof b === "string") return compareUtf8(a, b);
  if (a === b) return 0;
  return (a as number) < (b as number) ? -1 : 1;
}

/** Nanoseconds since the epoch → delta-rs's stats timestamp text (milliseconds, floored). */
export function formatTimestamp(nanos: bigint, utc: boolean): string {
  const { date, time, subsecond } = timestampParts(nanos, 1_000_000_000n);
  const fraction = subsecond === 0n ? "" : `.${String(subsecond / 1_000_000n).padStart(3, "0")}`;
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
