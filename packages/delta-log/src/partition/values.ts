/**
 * Partition values as the Delta log holds them: typed JS scalars ⇄ the strings in `add.partitionValues`.
 * Serialisation follows delta-rs 1.6 byte for byte (floats in Rust `Display` form, timestamps with six
 * fraction digits, decimals with `scale` digits, binary as `\u00XX` escapes); parsing also accepts the
 * forms Spark writes (`1.0E20`, ISO-8601 timestamps, seconds without fraction). Dates, timestamps, decimals
 * and float32 digits come from the shared text forms of value-text.ts.
 */
import { DeltaLiteError } from "@deltalite/errors";
import {
  daysFromCivil,
  formatDate,
  formatDecimal,
  parseDecimalText,
  shortestFloat32,
  timestampParts,
} from "../value-text.js";

/**
 * A typed partition value. string → string; byte/short/integer/float/double → number; long → bigint;
 * boolean → boolean; date → days since the epoch (number); timestamp / timestamp_ntz → microseconds
 * since the epoch (bigint); decimal(p,s) → unscaled bigint; binary → Uint8Array; null → null.
 */
export type PartitionScalar = string | number | bigint | boolean | Uint8Array | null;

/** A Delta primitive type name as it appears in schema JSON (`"long"`, `"decimal(10,2)"`, …). */
export type PrimitiveTypeName = string;

const DECIMAL = /^decimal\((\d+),\s*(-?\d+)\)$/;
const MICROS_PER_DAY = 86_400_000_000n;

/** The string delta-rs writes into `partitionValues` for `value` of `type` (null stays null). */
export function serializePartitionValue(value: PartitionScalar, type: PrimitiveTypeName): string | null {
  if (value === null || value === undefined) return null;
  const decimal = DECIMAL.exec(type);
  if (decimal) return formatDecimal(asBigInt(value, type), Number(decimal[2]));
  switch (type) {
    case "string":
      return asString(value, type);
    case "byte":
    case "short":
    case "integer":
      return String(asInteger(value, type));
    case "long":
      return asBigInt(value, type).toString();
    case "float":
      return formatRustFloat(asNumber(value, type), true);
    case "double":
      return formatRustFloat(asNumber(value, type), false);
    case "boolean":
      if (typeof value !== "boolean") throw typeError(value, type);
      return value ? "true" : "false";
    case "date":
      return formatDate(asInteger(value, type));
    case "timestamp":
    case "timestamp_ntz":
      return formatTimestampMicros(asBigInt(value, type));
    case "binary": {
      if (!(value instanceof Uint8Array)) throw typeError(value, type);
      let out = "";
      for (const byte of value) out += `\\u${byte.toString(16).toUpperCase().padStart(4, "0")}`;
      return out;
    }
    default:
      throw new DeltaLiteError("unsupported", `partition columns of type ${type} are not supported`);
  }
}

/** Parses a `partitionValues` string of `type` into a typed scalar; null and "" (for non-strings) give null. */
export function parsePartitionValue(
  text: string | null | undefined,
  type: PrimitiveTypeName,
): PartitionScalar {
  if (text === null || text === undefined) return null;
  if (type === "string") return text;
  if (text === "") return null;
  const decimal = DECIMAL.exec(type);
  if (decimal) return parseDecimal(text, Number(decimal[2]), type);
  switch (type) {
    case "byte":
    case "short":
    case "integer": {
      if (!/^[-+]?\d+$/.test(text)) throw parseError(text, type);
      return Number(text);
    }
    case "long":
      if (!/^[-+]?\d+$/.test(text)) throw parseError(text, type);
      return BigInt(text);
    case "float":
    case "double": {
      const lower = text.toLowerCase();
      if (lower === "nan") return Number.NaN;
      if (lower === "inf" || lower === "+inf" || lower === "infinity") return Number.POSITIVE_INFINITY;
      if (lower === "-inf" || lower === "-infinity") return Number.NEGATIVE_INFINITY;
      const n = Number(text);
      if (Number.isNaN(n)) throw parseError(text, type);
      return type === "float" ? Math.fround(n) : n;
    }
    case "boolean":
      if (text.toLowerCase() === "true") return true;
      if (text.toLowerCase() === "false") return false;
      throw parseError(text, type);
    case "date": {
      const m = /^(-?\d{4,})-(\d{2})-(\d{2})$/.exec(text);
      if (!m) throw parseError(text, type);
      return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    case "timestamp":
    case "timestamp_ntz":
      return parseTimestampMicros(text, type);
    case "binary":
      return parseBinary(text);
    default:
      throw new DeltaLiteError("unsupported", `partition columns of type ${type} are not supported`);
  }
}

/** Rust `Display` of an f64 / f32: shortest round-trip digits, never an exponent, `NaN`, `inf`, `-0`. */
export function formatRustFloat(x: number, single: boolean): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "inf";
  if (x === Number.NEGATIVE_INFINITY) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  return expandExponent(String(single ? shortestFloat32(x) : x));
}

/** Turns JS number text such as `1e+21` or `1.5e-7` into plain decimal digits. */
function expandExponent(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const [, sign, int, frac = "", exp] = m;
  const digits = `${int}${frac}`;
  const point = int!.length + Number(exp);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`.replace(/0+$/, "");
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** The unscaled value of decimal text at `scale`; the text must be exact at that scale. */
function parseDecimal(text: string, scale: number, type: string): bigint {
  const parsed = parseDecimalText(text);
  if (!parsed) throw parseError(text, type);
  const shift = scale - parsed.scale;
  if (shift >= 0) return parsed.unscaled * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  if (parsed.unscaled % div !== 0n) throw parseError(text, type);
  return parsed.unscaled / div;
}

/** `%Y-%m-%d %H:%M:%S%.6f` of a microsecond count (UTC wall clock). */
export function formatTimestampMicros(micros: bigint): string {
  const { date, time, subsecond } = timestampParts(micros, 1_000_000n);
  return `${date} ${time}.${String(subsecond).padStart(6, "0")}`;
}

function parseTimestampMicros(text: string, type: string): bigint {
  const m =
    /^(-?\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(
      text.trim(),
    );
  if (!m) {
    const dateOnly = /^(-?\d{4,})-(\d{2})-(\d{2})$/.exec(text.trim());
    if (dateOnly)
      return (
        BigInt(daysFromCivil(Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3]))) * MICROS_PER_DAY
      );
    throw parseError(text, type);
  }
  const days = BigInt(daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3])));
  const seconds = BigInt(Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6] ?? 0));
  const fraction = BigInt((m[7] ?? "").padEnd(6, "0").slice(0, 6) || "0");
  let micros = days * MICROS_PER_DAY + seconds * 1_000_000n + fraction;
  const zone = m[8];
  if (zone && zone !== "Z") {
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    const offset = BigInt((Number(z[2]) * 60 + Number(z[3])) * 60) * 1_000_000n;
    micros = z[1] === "+" ? micros - offset : micros + offset;
  }
  return micros;
}

function parseBinary(text: string): Uint8Array {
  if (/^(\\u[0-9a-fA-F]{4})*$/.test(text)) {
    const out = new Uint8Array(text.length / 6);
    for (let i = 0; i < out.length; i++)
      out[i] = Number.parseInt(text.slice(i * 6 + 2, i * 6 + 6), 16) & 0xff;
    return out;
  }
  return new TextEncoder().encode(text);
}

function asString(value: PartitionScalar, type: string): string {
  if (typeof value !== "string") throw typeError(value, type);
  return value;
}
function asNumber(value: PartitionScalar, type: string): number {
  if (typeof value !== "number") throw typeError(value, type);
  return value;
}
function asInteger(value: PartitionScalar, type: string): number {
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) throw typeError(value, type);
  return n;
}
function asBigInt(value: PartitionScalar, type: string): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  throw typeError(value, type);
}
function typeError(value: unknown, type: string): DeltaLiteError {
  return new DeltaLiteError(
    "schema_mismatch",
    `partition value of JS type ${typeof value} does not fit ${type}`,
  );
}
function parseError(text: string, type: string): DeltaLiteError {
  return new DeltaLiteError("corrupt_log", `partition value ${JSON.stringify(text)} is not a valid ${type}`);
}
