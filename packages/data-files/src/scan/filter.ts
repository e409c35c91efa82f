/**
 * Scan filters: a list of `{ column, op, value }` conditions, ANDed, on top-level
 * columns of primitive type. This module owns validating them against the table schema and turning their
 * values into comparable scalars, and the comparison semantics shared by partition pruning, stats skipping
 * and the row filter.
 *
 * Values, by the column's Delta type (what `value` — or each element of `in` — may be):
 * | Delta type                 | accepted JS values                                                      |
 * |----------------------------|-------------------------------------------------------------------------|
 * | byte, short, integer       | number (an integer in range), bigint                                     |
 * | long                       | bigint, a safe-integer number, or a string of decimal digits             |
 * | float, double              | number, or "NaN" / "Infinity" / "-Infinity"                              |
 * | decimal(p,s)               | string ("12.30", "1e3"), or a number (read as its shortest decimal text)  |
 * | string                     | string                                                                   |
 * | boolean                    | boolean                                                                  |
 * | binary                     | Uint8Array, or a base64 string                                            |
 * | date                       | "YYYY-MM-DD", or a Date (its UTC calendar day)                             |
 * | timestamp, timestamp_ntz   | ISO 8601 text ("2024-01-02T03:04:05.123456Z"; without a zone it is read as |
 * |                            | UTC wall-clock time), a Date, or a bigint count of microseconds           |
 * These are also the forms of the JSON encoding of values, so a `--filter` JSON document uses the same values.
 *
 * Semantics: SQL comparison with nulls — a null row value never satisfies eq/ne/lt/le/gt/ge/in, only isNull.
 * Floats compare as IEEE numbers (NaN equals nothing and is neither below nor above anything; like pyarrow's
 * and delta-rs's `to_pyarrow_table(filters=...)`). Strings compare by Unicode code point (= UTF-8 byte order,
 * the order Parquet statistics use); binary byte by byte; booleans false < true.
 */
import type { DeltaDataType, DeltaSchema } from "@deltalite/delta-log";
import { parseDecimalText, parsePartitionValue } from "@deltalite/delta-log";
import { DeltaLiteError, DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import { compareUtf8 } from "@deltalite/object-store";

export type ScanFilterOp = "eq" | "ne" | "lt" | "le" | "gt" | "ge" | "in" | "isNull" | "isNotNull";

export const SCAN_FILTER_OPS: readonly ScanFilterOp[] = [
  "eq",
  "ne",
  "lt",
  "le",
  "gt",
  "ge",
  "in",
  "isNull",
  "isNotNull",
];

/** A filter value as the caller gives it (see the table in the module comment). */
export type ScanFilterValue = string | number | bigint | boolean | Uint8Array | Date | null;

export interface ScanFilterCondition {
  column: string;
  op: ScanFilterOp;
  /** The operand; an array for `in`; absent for `isNull` / `isNotNull`. */
  value?: ScanFilterValue | readonly ScanFilterValue[] | undefined;
}

/** The comparable form of a value: number, bigint, string, boolean or bytes. */
export type Comparable = number | bigint | string | boolean | Uint8Array;

/** How values of a column compare. `scaleUp` multiplies decimal row values before comparing. */
export type ValueKind = "number" | "bigint" | "decimal" | "string" | "boolean" | "binary";

/** A validated condition with comparable operands. */
export interface ResolvedCondition {
  column: string;
  op: ScanFilterOp;
  /** The column's Delta type name. */
  deltaType: string;
  kind: ValueKind;
  /** Decimal columns: the column's scale. */
  scale: number;
  /** Decimal operands may carry more fraction digits than the column: row values are scaled by 10^extraScale. */
  extraScale: number;
  /** eq/ne/lt/le/gt/ge: one operand; in: the non-null operands. */
  operands: Comparable[];
}

const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;
const INT_RANGES: Record<string, [number, number]> = {
  byte: [-128, 127],
  short: [-32768, 32767],
  integer: [-2147483648, 2147483647],
};

function filterError(condition: { column: string; op: string }, why: string): DeltaLiteError {
  return new DeltaLiteInvalidArgumentError(
    `scan filter on column "${condition.column}" (${condition.op}): ${why}`,
  );
}

/**
 * Validates `filter` against the table schema: `invalid_argument` for a malformed condition, an unknown
 * column or op (with a "did you mean"), or a value that does not fit the column; `unsupported` for a
 * column whose type cannot be filtered.
 */
export function resolveFilter(
  filter: readonly ScanFilterCondition[] | undefined,
  schema: DeltaSchema,
  table: string,
): ResolvedCondition[] {
  if (filter === undefined) return [];
  if (!Array.isArray(filter)) {
    throw new DeltaLiteInvalidArgumentError(
      "a scan filter must be a list of { column, op, value } conditions",
    );
  }
  return filter.map((condition) => resolveCondition(condition, schema, table));
}

function resolveCondition(
  condition: ScanFilterCondition,
  schema: DeltaSchema,
  table: string,
): ResolvedCondition {
  if (typeof condition !== "object" || condition === null || typeof condition.column !== "string") {
    throw new DeltaLiteInvalidArgumentError("each scan filter condition needs a string `column`");
  }
  if (!SCAN_FILTER_OPS.includes(condition.op)) {
    const op = String(condition.op);
    throw filterError(
      condition,
      `unknown op${didYouMean(op, SCAN_FILTER_OPS)} (expected one of ${SCAN_FILTER_OPS.join(", ")})`,
    );
  }
  const field = schema.fields.find((f) => f.name === condition.column);
  if (!field) {
    const names = schema.fields.map((f) => f.name);
    throw new DeltaLiteInvalidArgumentError(
      `scan filter names column "${condition.column}", which table ${table} does not have${didYouMean(condition.column, names)} (columns: ${names.join(", ")})`,
    );
  }
  const deltaType = primitiveName(field.type);
  if (deltaType === undefined) {
    throw new DeltaLiteError(
      "unsupported",
      `scan filter on column "${condition.column}": only columns of primitive type can be filtered`,
    );
  }
  const decimal = DECIMAL.exec(deltaType);
  const kind = valueKind(deltaType);
  const resolved: ResolvedCondition = {
    column: condition.column,
    op: condition.op,
    deltaType,
    kind,
    scale: decimal ? Number(decimal[2]) : 0,
    extraScale: 0,
    operands: [],
  };
  if (condition.op === "isNull" || condition.op === "isNotNull") {
    if (condition.value !== undefined && condition.value !== null) {
      throw filterError(condition, "takes no value");
    }
    return resolved;
  }
  let raw: readonly ScanFilterValue[];
  if (condition.op === "in") {
    if (!Array.isArray(condition.value)) throw filterError(condition, "needs a list of values");
    raw = (condition.value as readonly ScanFilterValue[]).filter((v) => v !== null && v !== undefined);
  } else {
    if (condition.value === null || condition.value === undefined) {
      throw filterError(condition, "needs a value (use isNull / isNotNull to test for null)");
    }
    if (Array.isArray(condition.value)) throw filterError(condition, "takes one value, not a list");
    raw = [condition.value as ScanFilterValue];
  }
  if (kind === "decimal") {
    const parsed = raw.map((v) => decimalOperand(v, condition));
    const maxScale = Math.max(resolved.scale, ...parsed.map((p) => p.scale));
    resolved.extraScale = maxScale - resolved.scale;
    resolved.operands = parsed.map((p) => p.unscaled * 10n ** BigInt(maxScale - p.scale));
  } else {
    resolved.operands = raw.map((v) => operand(v, deltaType, condition));
  }
  return resolved;
}

function primitiveName(type: DeltaDataType): string | undefined {
  return typeof type === "string" ? type : undefined;
}

/** How values of a Delta primitive type compare. */
export function valueKind(deltaType: string): ValueKind {
  if (DECIMAL.test(deltaType)) return "decimal";
  switch (deltaType) {
    case "byte":
    case "short":
    case "integer":
    case "float":
    case "double":
    case "date":
      return "number";
    case "long":
    case "timestamp":
    case "timestamp_ntz":
      return "bigint";
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "binary":
      return "binary";
    default:
      throw new DeltaLiteError(
        "unsupported",
        `scan filters on columns of type ${deltaType} are not supported`,
      );
  }
}

function operand(
  value: ScanFilterValue,
  type: string,
  condition: { column: string; op: string },
): Comparable {
  const wrong = () =>
    filterError(condition, `value ${describe(value)} does not fit a column of type ${type}`);
  switch (type) {
    case "byte":
    case "short":
    case "integer": {
      const n = typeof value === "bigint" ? Number(value) : value;
      const [min, max] = INT_RANGES[type]!;
      if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) throw wrong();
      return n;
    }
    case "long": {
      if (typeof value === "bigint") return value;
      if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
      if (typeof value === "string" && /^[-+]?\d+$/.test(value)) return BigInt(value);
      throw wrong();
    }
    case "float":
    case "double": {
      let n: number;
      if (typeof value === "number") n = value;
      else if (value === "NaN") n = Number.NaN;
      else if (value === "Infinity") n = Number.POSITIVE_INFINITY;
      else if (value === "-Infinity") n = Number.NEGATIVE_INFINITY;
      else throw wrong();
      return type === "float" ? Math.fround(n) : n;
    }
    case "string":
      if (typeof value !== "string") throw wrong();
      return value;
    case "boolean":
      if (typeof value !== "boolean") throw wrong();
      return value;
    case "binary":
      if (value instanceof Uint8Array) return value;
      if (typeof value === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
        return new Uint8Array(Buffer.from(value, "base64"));
      }
      throw wrong();
    case "date": {
      if (value instanceof Date) {
        const ms = value.getTime();
        if (!Number.isFinite(ms)) throw wrong();
        return Math.floor(ms / 86_400_000);
      }
      if (typeof value !== "string" || !/^[-+]?\d{4,}-\d{2}-\d{2}$/.test(value)) throw wrong();
      return parseOr(value.replace(/^\+/, ""), "date", wrong) as number;
    }
    case "timestamp":
    case "timestamp_ntz": {
      if (typeof value === "bigint") return value;
      if (value instanceof Date) {
        const ms = value.getTime();
        if (!Number.isFinite(ms)) throw wrong();
        return BigInt(ms) * 1000n;
      }
      if (typeof value !== "string") throw wrong();
      return parseOr(value.replace(/^\+/, ""), "timestamp", wrong) as bigint;
    }
    default:
      throw wrong();
  }
}

function parseOr(text: string, type: string, wrong: () => DeltaLiteError) {
  try {
    const parsed = parsePartitionValue(text, type);
    if (parsed === null) throw wrong();
    return parsed;
  } catch {
    throw wrong();
  }
}

function decimalOperand(
  value: ScanFilterValue,
  condition: { column: string; op: string },
): { unscaled: bigint; scale: number } {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  const parsed = typeof text === "string" ? parseDecimalText(text) : undefined;
  if (!parsed) {
    throw filterError(
      condition,
      `value ${describe(value)} is not a decimal (give it as a string, e.g. "12.30")`,
    );
  }
  return parsed;
}

function describe(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value) ?? String(value);
}

/** Code-point (UTF-8 byte) order of two JS strings: the store listings' `compareUtf8`, under the scan's name. */
export { compareUtf8 as compareStrings } from "@deltalite/object-store";

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * Compares two non-null values of one kind: negative, 0 or positive, or NaN when they are unordered (a float
 * NaN is involved).
 */
export function compareValues(a: Comparable, b: Comparable, kind: ValueKind): number {
  switch (kind) {
    case "number": {
      const x = a as number;
      const y = b as number;
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case "bigint":
    case "decimal": {
      const x = a as bigint;
      const y = b as bigint;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case "string":
      return compareUtf8(a as string, b as string);
    case "boolean":
      return Number(a) - Number(b);
    case "binary":
      return compareBytes(a as Uint8Array, b as Uint8Array);
  }
}

/** Whether a (possibly null) value satisfies a condition. Decimal values must already be scaled up. */
export function satisfies(value: Comparable | null, condition: ResolvedCondition): boolean {
  if (condition.op === "isNull") return value === null;
  if (condition.op === "isNotNull") return value !== null;
  if (value === null) return false;
  const { kind, operands } = condition;
  if (condition.op === "in") {
    for (const operand of operands) if (compareValues(value, operand, kind) === 0) return true;
    return false;
  }
  const c = compareValues(value, operands[0]!, kind);
  switch (condition.op) {
    case "eq":
      return c === 0;
    case "ne":
      return c !== 0; // NaN (unordered) counts as not equal, as in IEEE / pyarrow
    case "lt":
      return c < 0;
    case "le":
      return c <= 0;
    case "gt":
      return c > 0;
    case "ge":
      return c >= 0;
  }
}

/** A decimal's unscaled value at the condition's comparison scale. */
export function scaleDecimal(unscaled: bigint, condition: ResolvedCondition): bigint {
  return condition.extraScale === 0 ? unscaled : unscaled * 10n ** BigInt(condition.extraScale);
}
