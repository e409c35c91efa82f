/**
 * What the history-upsert suites share: the test history table (keys k1 long / k2 string, order `ord`,
 * optional tie-break `tb`, valid-from `vf` / valid-to `vt` timestamps, partition `part`, payload `pay`),
 * source rows as Arrow batches (valid-from in any zone) and as the reference model's JSON
 * (tools/oracle/ops_scd2.py contract), one canonical row form that both the model's rows and delta-rs's
 * read (op `tw_read_table`) are brought to, and the SCD2 invariants checked on every result.
 */
import { createTable, type DeltaSchema, Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import type { Oracle } from "@deltalite/tools/oracle";
import {
  Field,
  Int32,
  Int64,
  makeData,
  makeVector,
  Schema,
  Table,
  TimestampMicrosecond,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { expect } from "vitest";

export const CURRENT = "current";

/** A source row; `vf` in microseconds since the epoch (UTC instant). */
export interface SourceRow {
  k1: number | null;
  k2: string | null;
  ord: number;
  tb?: number | null;
  vf: bigint;
  pay: string;
}

/** How a sequence's table and batches look. */
export interface TableLayout {
  keyColumns: ("k1" | "k2")[];
  /** "none": no tie-break; "table": `tb` is a table column; "source": only the source carries it. */
  tieBreak: "none" | "table" | "source";
  /** The order column's table type (default long, from an int32 source column); see `orderValue`. */
  orderType?: "long" | "string" | "timestamp" | undefined;
}

/** Strings in code-point order (U+FFFD below U+1F600, unlike UTF-16 order). */
const ORDER_STRINGS = ["", "A", "a", "ab", "\u00e9", "\ufffd", "\u{1f600}", "\u{1f600}a"];
/** Instants in ascending order, as microseconds. */
const ORDER_INSTANTS = [0, 1, 59, 60, 3_600, 86_400, 2_678_400, 31_622_400].map(
  (s) => 1_704_067_200_000_000n + BigInt(s) * 1_000_000n,
);

/** The order value a row's `ord` (0–7, ascending) stands for in the layout's order type. */
export function orderValue(layout: TableLayout, ord: number): number | string | bigint {
  if (layout.orderType === "string") return ORDER_STRINGS[ord] as string;
  if (layout.orderType === "timestamp") return ORDER_INSTANTS[ord] as bigint;
  return ord;
}

/** Ascending order of canonical order values of the layout's type. */
function compareCanonicalOrder(layout: TableLayout, a: string, b: string): number {
  if (layout.orderType === "string") {
    const x = [...a].map((c) => c.codePointAt(0) as number);
    const y = [...b].map((c) => c.codePointAt(0) as number);
    for (let i = 0; i < Math.min(x.length, y.length); i++)
      if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return x.length - y.length;
  }
  const d = BigInt(a) - BigInt(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** A canonical row: every value as a string or null (int64 decimal, timestamps as microseconds). */
export type CanonicalRow = Record<string, string | null>;

export function tableColumns(layout: TableLayout): string[] {
  return ["k1", "k2", "ord", ...(layout.tieBreak === "table" ? ["tb"] : []), "vf", "vt", "part", "pay"];
}

function deltaSchema(layout: TableLayout): DeltaSchema {
  const types: Record<string, string> = {
    k1: "long",
    k2: "string",
    ord: layout.orderType ?? "long",
    tb: "long",
    vf: "timestamp",
    vt: "timestamp",
    part: "string",
    pay: "string",
  };
  return {
    type: "struct",
    fields: tableColumns(layout).map((name) => ({
      name,
      type: types[name] as string,
      nullable: true,
      metadata: {},
    })),
  } as DeltaSchema;
}

let tables = 0;

/** Creates an empty history table under `dir`; returns its path and snapshot. */
export async function createHistoryTable(
  dir: string,
  layout: TableLayout,
): Promise<{ uri: string; snapshot: Snapshot }> {
  const uri = `${dir}/history-${tables++}`;
  const store = new LocalFileStore(uri);
  const created = await createTable(store, { schema: deltaSchema(layout), partitionColumns: ["part"] });
  return { uri, snapshot: created.snapshot };
}

export function historyOptions(layout: TableLayout) {
  return {
    keyColumns: layout.keyColumns,
    orderColumn: "ord",
    validFromColumn: "vf",
    validToColumn: "vt",
    partitionColumn: "part",
    currentPartition: CURRENT,
    ...(layout.tieBreak === "none" ? {} : { tieBreakColumn: "tb" }),
  };
}

/** The source batch: `ord` as int32 (cast to the table's long) or its order type, `vf` in `zone`. */
export function sourceTable(rows: readonly SourceRow[], layout: TableLayout, zone: string): Table {
  const fields = [
    new Field("k1", new Int64(), true),
    new Field("k2", new Utf8(), true),
    new Field("ord", orderArrowType(layout), true),
    ...(layout.tieBreak === "none" ? [] : [new Field("tb", new Int64(), true)]),
    new Field("vf", new TimestampMicrosecond(zone), true),
    new Field("pay", new Utf8(), true),
  ];
  const columns: Record<string, unknown> = {
    k1: vectorFromArray(
      rows.map((r) => (r.k1 === null ? null : BigInt(r.k1))),
      new Int64(),
    ),
    k2: vectorFromArray(
      rows.map((r) => r.k2),
      new Utf8(),
    ),
    ord: orderVector(layout, rows),
    vf: makeVector(
      makeData({
        type: new TimestampMicrosecond(zone),
        length: rows.length,
        data: BigInt64Array.from(rows.map((r) => r.vf)),
      }),
    ),
    pay: vectorFromArray(
      rows.map((r) => r.pay),
      new Utf8(),
    ),
  };
  if (layout.tieBreak !== "none") {
    columns.tb = vectorFromArray(
      rows.map((r) => (r.tb === null || r.tb === undefined ? null : BigInt(r.tb))),
      new Int64(),
    );
  }
  // By name, in the schema's order (the Table constructor pairs fields and columns by position).
  const ordered = Object.fromEntries(fields.map((f) => [f.name, columns[f.name]]));
  return new Table(new Schema(fields), ordered as never);
}

function orderArrowType(layout: TableLayout) {
  if (layout.orderType === "string") return new Utf8();
  if (layout.orderType === "timestamp") return new TimestampMicrosecond("UTC");
  return new Int32();
}

function orderVector(layout: TableLayout, rows: readonly SourceRow[]) {
  if (layout.orderType === "timestamp") {
    const data = BigInt64Array.from(rows.map((r) => orderValue(layout, r.ord) as bigint));
    return makeVector(makeData({ type: new TimestampMicrosecond("UTC"), length: rows.length, data }));
  }
  return vectorFromArray(
    rows.map((r) => orderValue(layout, r.ord)),
    orderArrowType(layout) as never,
  );
}

const MODEL_ORDER_TYPES = { long: "int64", string: "string", timestamp: "timestamp[us, tz=UTC]" };

/** Offset of a zone spelling ("UTC", "+02:00", "-05:00") in minutes. */
function offsetMinutes(zone: string): number {
  if (zone === "UTC") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const [h, m] = zone.slice(1).split(":").map(Number);
  return sign * ((h as number) * 60 + (m as number));
}

/** ISO 8601 text of an instant in `zone` (microseconds, with the offset or "Z"). */
export function isoInZone(micros: bigint, zone: string): string {
  const offset = offsetMinutes(zone);
  const local = micros + BigInt(offset) * 60_000_000n;
  const ms = Number(local / 1000n - (local % 1000n < 0n ? 1n : 0n));
  const fraction = ((local % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const base = new Date(ms).toISOString().slice(0, 19);
  const suffix =
    offset === 0
      ? "Z"
      : `${offset < 0 ? "-" : "+"}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}:${String(Math.abs(offset) % 60).padStart(2, "0")}`;
  return `${base}.${String(fraction).padStart(6, "0")}${suffix}`;
}

/** Microseconds of ISO text with "Z" or an offset. */
export function microsOf(iso: string): bigint {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  if (!match) throw new Error(`not an ISO instant: ${iso}`);
  const ms = Date.parse(`${match[1]}${match[3]}`);
  return BigInt(ms) * 1000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}

export function modelBatch(rows: readonly SourceRow[], layout: TableLayout, zone: string) {
  const tz = zone === "UTC" ? "UTC" : zone;
  const schema: Record<string, string> = {
    k1: "int64",
    k2: "string",
    ord: layout.orderType === undefined ? "int32" : MODEL_ORDER_TYPES[layout.orderType],
    ...(layout.tieBreak === "none" ? {} : { tb: "int64" }),
    vf: `timestamp[us, tz=${tz}]`,
    pay: "string",
  };
  return {
    schema,
    rows: rows.map((r) => ({
      k1: r.k1,
      k2: r.k2,
      ord:
        layout.orderType === "timestamp"
          ? isoInZone(orderValue(layout, r.ord) as bigint, "UTC")
          : orderValue(layout, r.ord),
      ...(layout.tieBreak === "none" ? {} : { tb: r.tb ?? null }),
      vf: isoInZone(r.vf, zone),
      pay: r.pay,
    })),
  };
}

export function modelTableSchema(layout: TableLayout): Record<string, string> {
  const types: Record<string, string> = {
    k1: "int64",
    k2: "string",
    ord: MODEL_ORDER_TYPES[layout.orderType ?? "long"],
    tb: "int64",
    vf: "timestamp[us, tz=UTC]",
    vt: "timestamp[us, tz=UTC]",
    part: "string",
    pay: "string",
  };
  return Object.fromEntries(tableColumns(layout).map((c) => [c, types[c] as string]));
}

export interface ModelStats {
  rowsIn: number;
  rowsDeduped: number;
  rowsReread: number;
  rowsBackwards: number;
  versionsOpened: number;
  versionsClosed: number;
  chainRowsClosed: number;
  committed: boolean;
}

export type ModelRow = Record<string, string | number | null>;

export type ModelResult =
  | { rows: ModelRow[]; stats: ModelStats; error?: undefined }
  | { error: { kind: string; message: string }; rows?: undefined; stats?: undefined };

export function applyModel(
  oracle: Oracle,
  layout: TableLayout,
  table: readonly ModelRow[],
  batch: ReturnType<typeof modelBatch>,
): Promise<ModelResult> {
  return oracle.call<ModelResult>("scd2_model_apply", {
    table: { schema: modelTableSchema(layout), partition_columns: ["part"], rows: table },
    batch,
    options: historyOptions(layout),
  });
}

/** A model row in canonical form. */
export function canonicalFromModel(row: ModelRow, layout?: TableLayout): CanonicalRow {
  const out: CanonicalRow = {};
  const instants = new Set(["vf", "vt", ...(layout?.orderType === "timestamp" ? ["ord"] : [])]);
  for (const [name, value] of Object.entries(row)) {
    if (value === null) out[name] = null;
    else if (instants.has(name)) out[name] = String(microsOf(String(value)));
    else out[name] = String(value);
  }
  return out;
}

/** A delta-rs canonical row (ops_parquet_write.canon) in canonical form. */
export function canonicalFromDeltaRs(row: Record<string, unknown>): CanonicalRow {
  const out: CanonicalRow = {};
  for (const [name, value] of Object.entries(row)) out[name] = value === null ? null : String(value);
  return out;
}

export const sortRows = (rows: CanonicalRow[]): CanonicalRow[] =>
  [...rows].sort((a, b) => {
    const x = JSON.stringify(a, Object.keys(a).sort());
    const y = JSON.stringify(b, Object.keys(b).sort());
    return x < y ? -1 : x > y ? 1 : 0;
  });

/** delta-rs reads the table: its rows in canonical form. */
export async function readWithDeltaRs(oracle: Oracle, uri: string): Promise<CanonicalRow[]> {
  const read = await oracle.call<{ rows: Record<string, unknown>[] }>("tw_read_table", { uri });
  return read.rows.map(canonicalFromDeltaRs);
}

/** `%Y-%m` of microseconds in UTC (computed with Date, independently of the engine's arithmetic). */
export function utcMonth(micros: string): string {
  return new Date(Number(BigInt(micros) / 1000n)).toISOString().slice(0, 7);
}

/**
 * The invariants of a history table: per key at most one open row, in the current partition; by order
 * value each version closes exactly where the next one starts and only the newest is open; every closed
 * row lives in the month partition of its valid-to. With `monotone` (valid-from rising with the order
 * value) the intervals also do not overlap: each closes strictly after it starts.
 */
export function checkInvariants(rows: readonly CanonicalRow[], layout: TableLayout, monotone: boolean): void {
  const byKey = new Map<string, CanonicalRow[]>();
  for (const row of rows) {
    const key = JSON.stringify(layout.keyColumns.map((k) => row[k]));
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
    if (row.vt === null) expect(row.part, "an open row is in the current partition").toBe(CURRENT);
    else expect(row.part, "a closed row is in its valid-to month").toBe(utcMonth(row.vt as string));
  }
  for (const [key, versions] of byKey) {
    const sorted = [...versions].sort((a, b) =>
      compareCanonicalOrder(layout, a.ord as string, b.ord as string),
    );
    const open = sorted.filter((r) => r.vt === null);
    expect(open.length, `key ${key}: open rows`).toBeLessThanOrEqual(1);
    expect(sorted.at(-1)?.vt, `key ${key}: the newest version is open`).toBeNull();
    sorted.forEach((row, i) => {
      const next = sorted[i + 1];
      if (next === undefined) return;
      expect(row.vt, `key ${key}: version ${row.ord} closes where ${next.ord} starts`).toBe(next.vf);
      if (monotone)
        expect(BigInt(row.vt as string) > BigInt(row.vf as string), `key ${key}: no overlap`).toBe(true);
    });
  }
}

export async function latest(uri: string): Promise<Snapshot> {
  return Snapshot.open(new LocalFileStore(uri));
}
