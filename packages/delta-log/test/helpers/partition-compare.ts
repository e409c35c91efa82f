/**
 * Test helper: a partition value from the log (string or null) in the JSON form the oracle op
 * `delta_snapshot` gives delta-rs's typed values (numbers, booleans, `YYYY-MM-DD`, `{micros}`, `{decimal}`,
 * `{base64}`), so the two can be compared. An empty string is null, as the protocol says.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { type DeltaDataType, decimalParts } from "../../src/index.js";

/** A typed partition value: numbers, booleans, strings, dates as `YYYY-MM-DD`, exact forms for the rest. */
export type PartitionValue =
  | null
  | boolean
  | number
  | string
  | { micros: number }
  | { decimal: string }
  | { base64: string };

/** Parses the log's string form of a partition value for a column of `type`. */
export function comparablePartitionValue(
  raw: string | null | undefined,
  type: DeltaDataType,
  column: string,
): PartitionValue {
  if (raw === null || raw === undefined || raw === "") return null;
  const bad = () =>
    new DeltaLiteError(
      "corrupt_log",
      `partition column ${column}: ${JSON.stringify(raw)} is not a valid ${String(type)}`,
    );
  if (typeof type !== "string") throw bad();
  switch (type) {
    case "string":
      return raw;
    case "long":
    case "integer":
    case "short":
    case "byte": {
      if (!/^[+-]?\d+$/.test(raw)) throw bad();
      return Number(raw);
    }
    case "float":
    case "double": {
      const n = Number(raw);
      if (Number.isNaN(n) && raw !== "NaN") throw bad();
      return n;
    }
    case "boolean":
      if (raw.toLowerCase() === "true") return true;
      if (raw.toLowerCase() === "false") return false;
      throw bad();
    case "date": {
      const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(raw);
      if (!m) throw bad();
      return `${m[1]}-${m[2]}-${m[3]}`;
    }
    case "timestamp":
    case "timestamp_ntz": {
      const micros = parseTimestampMicros(raw);
      if (micros === undefined) throw bad();
      return { micros };
    }
    case "binary":
      // delta-rs reads the string's UTF-8 bytes (Spark writes binary partition values as text).
      return { base64: Buffer.from(raw, "utf8").toString("base64") };
  }
  if (decimalParts(type)) {
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) throw bad();
    return { decimal: canonicalDecimal(raw) };
  }
  throw bad();
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff]` or ISO 8601 (with `T`, optional `Z` / offset) → microseconds since epoch. */
export function parseTimestampMicros(raw: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/.exec(
    raw.trim(),
  );
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const fraction = Number(`${m[7] ?? ""}000000`.slice(0, 6));
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  }
  return (ms - offsetMinutes * 60_000) * 1000 + fraction;
}

function canonicalDecimal(raw: string): string {
  let text = raw.startsWith("+") ? raw.slice(1) : raw;
  if (/[eE]/.test(text)) {
    // Expand exponent notation exactly.
    const [mantissa = "", exp = "0"] = text.toLowerCase().split("e");
    const negative = mantissa.startsWith("-");
    const digitsPart = negative ? mantissa.slice(1) : mantissa;
    const [int = "", frac = ""] = digitsPart.split(".");
    let digits = int + frac;
    let point = int.length + Number(exp);
    if (point < 0) {
      digits = "0".repeat(-point) + digits;
      point = 0;
    }
    if (point > digits.length) digits += "0".repeat(point - digits.length);
    text = `${negative ? "-" : ""}${digits.slice(0, point) || "0"}.${digits.slice(point)}`;
  }
  const negative = text.startsWith("-");
  if (negative) text = text.slice(1);
  let [int = "", frac = ""] = text.split(".");
  int = int.replace(/^0+(?=\d)/, "") || "0";
  frac = frac.replace(/0+$/, "");
  const out = frac ? `${int}.${frac}` : int;
  return negative && out !== "0" ? `-${out}` : out;
}
