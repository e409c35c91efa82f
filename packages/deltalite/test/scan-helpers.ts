// Helpers of the scan tests: our scan's output in the same shape as the oracle's `scan_*` ops (JSON rows in the
// §7 encoding plus canonical type names), and an order-free comparison of row sets.

import { type ScanOptions, scanTable } from "@deltalite/data-files";
import type { Snapshot } from "@deltalite/delta-log";
import { type DataType, type Field, type Schema, TimeUnit, Type } from "apache-arrow";
import { batchToJsonRows, type JsonValue } from "../src/json/index.js";

export interface ScanRows {
  fields: { name: string; type: string }[];
  rows: { [column: string]: JsonValue }[];
}

const UNIT: Record<number, string> = {
  [TimeUnit.SECOND]: "s",
  [TimeUnit.MILLISECOND]: "ms",
  [TimeUnit.MICROSECOND]: "us",
  [TimeUnit.NANOSECOND]: "ns",
};

/** The canonical name of an Arrow type, as tools/oracle/ops_scan.py `_type_name` spells pyarrow's. */
export function typeName(type: DataType): string {
  const t = type as unknown as Record<string, unknown>;
  switch (type.typeId) {
    case Type.Bool:
      return "bool";
    case Type.Int:
      return `${t.isSigned ? "int" : "uint"}${t.bitWidth}`;
    case Type.Float:
      return t.precision === 1 ? "float32" : t.precision === 2 ? "float64" : "float16";
    case Type.Decimal:
      return `decimal(${t.precision},${t.scale})`;
    case Type.Date:
      return t.unit === 0 ? "date32" : "date64[ms]";
    case Type.Timestamp:
      return `timestamp(${UNIT[t.unit as number]},${(t.timezone as string | null) ?? ""})`;
    case Type.Time:
      return `time(${UNIT[t.unit as number]})`;
    case Type.Utf8:
    case Type.LargeUtf8:
      return "utf8";
    case Type.Binary:
    case Type.LargeBinary:
      return "binary";
    case Type.FixedSizeBinary:
      return `fixed_binary(${t.byteWidth})`;
    case Type.Struct:
      return `struct<${(type.children as Field[]).map((f) => `${f.name}:${typeName(f.type)}`).join(",")}>`;
    case Type.List:
      return `list<${typeName((type.children[0] as Field).type)}>`;
    case Type.Map: {
      const [key, value] = (type.children[0] as Field).type.children as Field[];
      return `map<${typeName(key!.type)},${typeName(value!.type)}>`;
    }
    default:
      return String(type);
  }
}

export function fieldsOf(schema: Schema): ScanRows["fields"] {
  return schema.fields.map((f) => ({ name: f.name, type: typeName(f.type) }));
}

/** Our scan of `snapshot` as JSON rows. */
export async function scanRows(snapshot: Snapshot, options: ScanOptions = {}): Promise<ScanRows> {
  const scan = scanTable(snapshot, options);
  const plan = await scan.plan();
  const rows: ScanRows["rows"] = [];
  for await (const batch of scan) for (const row of batchToJsonRows(batch)) rows.push(row);
  return { fields: fieldsOf(plan.schema), rows };
}

/** Rows as sorted JSON texts (key order as given), for order-free comparison. */
export function sortedRows(rows: readonly object[]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

/** Rows with their keys sorted, as sorted JSON texts (for sources whose column order differs). */
export function sortedRowsByName(rows: readonly { [k: string]: unknown }[]): string[] {
  return rows
    .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)))))
    .sort();
}

/** A 53-bit hash of a string (cyrb53: two 32-bit multiply-xorshift lanes). */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Order-free digest of rows: the count and the sum (mod 2^64) of a 53-bit hash of each row's JSON text. */
export function rowsDigest(rows: readonly object[]): string {
  let total = 0n;
  for (const row of rows) total += BigInt(hash53(JSON.stringify(row)));
  total &= 0xffffffffffffffffn;
  return `${rows.length}:${total}`;
}
