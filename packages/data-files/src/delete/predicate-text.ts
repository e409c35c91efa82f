/**
 * The text a DELETE commit records as `operationParameters.predicate`: a scan filter written the way
 * delta-rs 1.6.6 records the SQL predicate it was given (DataFusion's display of the parsed expression,
 * measured through the oracle): `id > 2 AND name = 'o''brien'`, `id != 7`, `d = '2024-01-03'::date`,
 * `ts > arrow_cast('2024-01-02T00:00:00.000000', 'Timestamp(Microsecond, Some("UTC"))')`,
 * `dec = '120'::decimal(10, 2)` (the unscaled value), `bin = decode('6162', 'hex')`, `flag` / `NOT flag`
 * for boolean equality, `IN` lists as `(a = 1 OR a = 3)`, `x IS [NOT] NULL`; a name other than
 * lower-case letters, digits and `_` in double quotes.
 */
import { formatDate, formatDecimal, formatRustFloat, timestampParts } from "@deltalite/delta-log";
import type { Comparable, ResolvedCondition } from "../scan/filter.js";

const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;

/** The predicate text of `conditions` (ANDed); undefined for no conditions (delete everything). */
export function predicateText(conditions: readonly ResolvedCondition[]): string | undefined {
  if (conditions.length === 0) return undefined;
  const parts = conditions.map(conditionText);
  if (parts.length === 1) return parts[0]!.text;
  return parts.map((p) => (p.or ? `(${p.text})` : p.text)).join(" AND ");
}

function conditionText(c: ResolvedCondition): { text: string; or: boolean } {
  const column = identifier(c.column);
  switch (c.op) {
    case "isNull":
      return { text: `${column} IS NULL`, or: false };
    case "isNotNull":
      return { text: `${column} IS NOT NULL`, or: false };
    case "in": {
      if (c.operands.length === 0) return { text: "false", or: false };
      const each = c.operands.map((o) => comparison(c, column, "eq", o));
      return { text: each.join(" OR "), or: each.length > 1 };
    }
    default:
      return { text: comparison(c, column, c.op, c.operands[0]!), or: false };
  }
}

const SYMBOLS: Record<string, string> = { eq: "=", ne: "!=", lt: "<", le: "<=", gt: ">", ge: ">=" };

function comparison(c: ResolvedCondition, column: string, op: string, value: Comparable): string {
  if (c.deltaType === "boolean" && (op === "eq" || op === "ne")) {
    return (op === "eq") === value ? column : `NOT ${column}`;
  }
  return `${column} ${SYMBOLS[op]} ${literal(c, value)}`;
}

function literal(c: ResolvedCondition, value: Comparable): string {
  const decimal = DECIMAL.exec(c.deltaType);
  if (decimal) {
    const unscaled = value as bigint;
    if (c.extraScale === 0) return `'${unscaled}'::decimal(${decimal[1]}, ${decimal[2]})`;
    return formatDecimal(unscaled, c.scale + c.extraScale);
  }
  switch (c.deltaType) {
    case "string":
      return quote(value as string);
    case "float":
      return formatRustFloat(value as number, true);
    case "double":
      return formatRustFloat(value as number, false);
    case "date":
      return `'${formatDate(value as number)}'::date`;
    case "timestamp":
    case "timestamp_ntz": {
      const { date, time, subsecond } = timestampParts(value as bigint, 1_000_000n);
      const zone = c.deltaType === "timestamp" ? 'Some("UTC")' : "None";
      return `arrow_cast('${date}T${time}.${String(subsecond).padStart(6, "0")}', 'Timestamp(Microsecond, ${zone})')`;
    }
    case "binary":
      return `decode('${Buffer.from(value as Uint8Array).toString("hex")}', 'hex')`;
    default:
      return String(value);
  }
}

function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function identifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
