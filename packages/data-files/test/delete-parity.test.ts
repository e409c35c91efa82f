/**
 * `deleteWhere` = delta-rs 1.6.6 `delete(predicate)` on random filters: the same starting table (written by
 * delta-rs in several appends so files carry their own stats, copied byte for byte), one random filter
 * through our `deleteWhere` and its SQL text (written here independently of our predicate renderer)
 * through delta-rs. Then: the same rows (delta-rs reads both tables), the same files removed (the same
 * paths: both start from the same files), whether a commit was made at all, the same deterministic
 * metrics (files added/removed, rows deleted/copied) and the predicate text delta-rs recorded for its SQL
 * (where no two conditions share a column: DataFusion simplifies those, we record the filter as given).
 * Partitioned and not; long, int, string (quotes), date, timestamp, double, boolean columns with NULLs.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import {
  Bool,
  DateDay,
  Field,
  Float64,
  Int32,
  Int64,
  Schema,
  Table,
  TimestampMicrosecond,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteWhere, type ScanFilterCondition } from "../src/index.js";

const RUNS = Number(process.env.DELTALITE_DELETE_PARITY_RUNS ?? 100);
const ws = { oracle: undefined as unknown as Oracle, dir: "", files: 0 };
beforeAll(async () => {
  ws.oracle = await connectOracle();
  ws.dir = await mkdtemp(join(tmpdir(), "deltalite-delete-parity-"));
});
afterAll(async () => {
  ws.oracle?.close();
  if (ws.dir) await rm(ws.dir, { recursive: true, force: true });
});

async function ipc(table: Table): Promise<string> {
  const path = join(ws.dir, `data-${ws.files++}.arrow`);
  await writeFile(path, tableToIPC(table, "file"));
  return path;
}

const DAY = 86_400_000;
const BASE_DAY = Date.UTC(2024, 0, 1) / DAY;
const NAMES = ["a", "b", "o'brien", "zz", "mm"];
const PARTS = ["x", "y", "z"];

interface Row {
  id: number | null;
  i32: number | null;
  name: string | null;
  d: number | null; // day offset from 2024-01-01
  ts: number | null; // hours from 2024-01-01T00:00Z
  f: number | null;
  b: boolean | null;
  part: string;
}

const SCHEMA = new Schema([
  new Field("id", new Int64(), true),
  new Field("i32", new Int32(), true),
  new Field("name", new Utf8(), true),
  new Field("d", new DateDay(), true),
  new Field("ts", new TimestampMicrosecond("UTC"), true),
  new Field("f", new Float64(), true),
  new Field("b", new Bool(), true),
  new Field("part", new Utf8(), true),
]);

function tableOf(rows: readonly Row[]): Table {
  const col = (name: string, values: unknown[]) =>
    vectorFromArray(values, SCHEMA.fields.find((f) => f.name === name)!.type);
  return new Table(SCHEMA, {
    id: col(
      "id",
      rows.map((r) => (r.id === null ? null : BigInt(r.id))),
    ),
    i32: col(
      "i32",
      rows.map((r) => r.i32),
    ),
    name: col(
      "name",
      rows.map((r) => r.name),
    ),
    d: col(
      "d",
      rows.map((r) => (r.d === null ? null : new Date((BASE_DAY + r.d) * DAY))),
    ),
    ts: col(
      "ts",
      rows.map((r) => (r.ts === null ? null : BASE_DAY * DAY + r.ts * 3_600_000)),
    ),
    f: col(
      "f",
      rows.map((r) => r.f),
    ),
    b: col(
      "b",
      rows.map((r) => r.b),
    ),
    part: col(
      "part",
      rows.map((r) => r.part),
    ),
  } as never);
}

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { freq: 5 });
const rowArb: fc.Arbitrary<Row> = fc.record({
  id: nullable(fc.integer({ min: 0, max: 30 })),
  i32: nullable(fc.integer({ min: -5, max: 5 })),
  name: nullable(fc.constantFrom(...NAMES)),
  d: nullable(fc.integer({ min: 0, max: 6 })),
  ts: nullable(fc.integer({ min: 0, max: 72 })),
  f: nullable(fc.constantFrom(-1.5, 0, 0.25, 1.25, 2, 3.75)),
  b: nullable(fc.boolean()),
  part: fc.constantFrom(...PARTS),
});

type Op = "eq" | "ne" | "lt" | "le" | "gt" | "ge";
const COMPARE: Op[] = ["eq", "ne", "lt", "le", "gt", "ge"];
const SQL_OP: Record<Op, string> = { eq: "=", ne: "<>", lt: "<", le: "<=", gt: ">", ge: ">=" };

interface Condition {
  filter: ScanFilterCondition;
  sql: string;
}

const dateText = (offset: number) => new Date((BASE_DAY + offset) * DAY).toISOString().slice(0, 10);
const tsText = (hours: number) => new Date(BASE_DAY * DAY + hours * 3_600_000).toISOString();
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A comparison on `column`: our filter value and its SQL literal. */
function compare<T>(
  column: string,
  values: fc.Arbitrary<T>,
  asFilter: (v: T) => unknown,
  asSql: (v: T) => string,
) {
  return fc.tuple(fc.constantFrom(...COMPARE), values).map(
    ([op, v]): Condition => ({
      filter: { column, op, value: asFilter(v) as never },
      sql: `${column} ${SQL_OP[op]} ${asSql(v)}`,
    }),
  );
}

function inList<T>(
  column: string,
  values: fc.Arbitrary<T>,
  asFilter: (v: T) => unknown,
  asSql: (v: T) => string,
) {
  return fc.uniqueArray(values, { minLength: 1, maxLength: 3 }).map(
    (vs): Condition => ({
      filter: { column, op: "in", value: vs.map(asFilter) as never },
      sql: `${column} IN (${vs.map(asSql).join(", ")})`,
    }),
  );
}

function nullTest(column: string): fc.Arbitrary<Condition> {
  return fc.boolean().map((isNull) => ({
    filter: { column, op: isNull ? "isNull" : "isNotNull" },
    sql: `${column} IS ${isNull ? "" : "NOT "}NULL`,
  }));
}

const ident = <T>(v: T) => v;
const conditionArb = (partitioned: boolean): fc.Arbitrary<Condition> =>
  fc.oneof(
    compare("id", fc.integer({ min: -1, max: 31 }), ident, String),
    inList("id", fc.integer({ min: 0, max: 30 }), ident, String),
    nullTest("id"),
    compare("i32", fc.integer({ min: -6, max: 6 }), ident, String),
    compare("name", fc.constantFrom(...NAMES, "n"), ident, sqlString),
    inList("name", fc.constantFrom(...NAMES), ident, sqlString),
    nullTest("name"),
    compare("d", fc.integer({ min: -1, max: 7 }), dateText, (v) => `'${dateText(v)}'`),
    compare("ts", fc.integer({ min: -1, max: 73 }), tsText, (v) => `'${tsText(v)}'`),
    compare("f", fc.constantFrom(-2, 0, 0.25, 1, 2.5, 4), ident, String),
    fc
      .tuple(fc.constantFrom<Op>("eq", "ne"), fc.boolean())
      .map(([op, v]) => ({ filter: { column: "b", op, value: v }, sql: `b ${SQL_OP[op]} ${v}` })),
    nullTest("b"),
    partitioned
      ? fc.oneof(
          compare("part", fc.constantFrom(...PARTS), ident, sqlString),
          inList("part", fc.constantFrom(...PARTS), ident, sqlString),
        )
      : compare("part", fc.constantFrom(...PARTS), ident, sqlString),
  );

const scenarioArb = fc.boolean().chain((partitioned) =>
  fc.record({
    partitioned: fc.constant(partitioned),
    rows: fc.array(rowArb, { minLength: 1, maxLength: 40 }),
    appends: fc.integer({ min: 1, max: 4 }),
    conditions: fc.array(conditionArb(partitioned), { minLength: 0, maxLength: 3 }),
  }),
);

interface OracleDelete {
  committed: boolean;
  metrics: Record<string, number>;
  commitInfo: { operationParameters: Record<string, string> } | null;
  removed: string[];
  added: string[];
}

async function ourCommitActions(root: string, version: number) {
  const text = await readFile(join(root, "_delta_log", `${String(version).padStart(20, "0")}.json`), "utf8");
  const actions = text.split("\n").map((l) => JSON.parse(l));
  return {
    commitInfo: actions.find((a) => a.commitInfo)?.commitInfo,
    removed: actions
      .filter((a) => a.remove)
      .map((a) => a.remove.path as string)
      .sort(),
  };
}

const deterministic = (m: Record<string, unknown>) => ({
  num_added_files: m.num_added_files,
  num_removed_files: m.num_removed_files,
  num_deleted_rows: m.num_deleted_rows,
  num_copied_rows: m.num_copied_rows,
});

describe("deleteWhere = delta-rs delete on random filters", () => {
  let n = 0;
  // What the runs covered (asserted at the end, so a generator change cannot silently test nothing).
  const seen = {
    predicateCompared: 0,
    committed: 0,
    noCommit: 0,
    rewritten: 0,
    removedUnread: 0,
    probedUntouched: 0,
  };
  it(`${RUNS} random filters`, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const ours = join(ws.dir, `ours-${n}`);
        const theirs = join(ws.dir, `theirs-${n++}`);
        await ws.oracle.call("merge_create", {
          uris: [ours, theirs],
          data: await ipc(tableOf(s.rows)),
          partition_by: s.partitioned ? ["part"] : null,
          appends: s.appends,
        });
        const filter = s.conditions.map((c) => c.filter);
        const sql = s.conditions.length === 0 ? null : s.conditions.map((c) => `(${c.sql})`).join(" AND ");
        const before = await Snapshot.open(new LocalFileStore(ours));
        const result = await deleteWhere(before, filter);
        const expected = await ws.oracle.call<OracleDelete>("delete_delta_rs", {
          uri: theirs,
          predicate: sql,
        });
        expect(result.committed).toBe(expected.committed);
        expect(result.skipped).toBe(false);
        const a = await ws.oracle.call<{ rows: unknown[]; version: number }>("merge_read", { uri: ours });
        const b = await ws.oracle.call<{ rows: unknown[]; version: number }>("merge_read", { uri: theirs });
        expect(a.rows).toEqual(b.rows);
        expect(a.version).toBe(b.version);
        if (!expected.committed) {
          expect(result.version).toBe(before.version);
          seen.noCommit++;
          return;
        }
        seen.committed++;
        if (result.filesRewritten > 0) seen.rewritten++;
        if (result.filesRemovedUnread > 0) seen.removedUnread++;
        if (result.filesProbed > result.filesRewritten) seen.probedUntouched++;
        const commit = await ourCommitActions(ours, result.version);
        expect(commit.removed).toEqual(expected.removed);
        expect(commit.commitInfo.operation).toBe("DELETE");
        expect(deterministic(commit.commitInfo.operationMetrics)).toEqual(deterministic(expected.metrics));
        expect(Object.keys(commit.commitInfo.operationMetrics)).toEqual(Object.keys(expected.metrics));
        // DataFusion simplifies conditions that share a column (`x != 'a' AND x = 'b'` → `x = 'b'`); we record
        // the filter as given, so the texts are compared where each column appears once.
        const columns = filter.map((c) => c.column);
        if (new Set(columns).size === columns.length) {
          expect(commit.commitInfo.operationParameters).toEqual(expected.commitInfo?.operationParameters);
          seen.predicateCompared++;
        }
        expect(result.rowsDeleted).toBe(expected.metrics.num_deleted_rows);
        expect(result.filesRemoved).toBe(expected.removed.length);
      }),
      { numRuns: RUNS, seed: Number(process.env.DELTALITE_DELETE_PARITY_SEED ?? 20261201) },
    );
    console.log("delete parity coverage", seen);
    expect(seen.committed).toBeGreaterThan(RUNS / 3);
    expect(seen.noCommit).toBeGreaterThan(0);
    expect(seen.rewritten).toBeGreaterThan(RUNS / 5);
    expect(seen.removedUnread).toBeGreaterThan(RUNS / 10);
    expect(seen.probedUntouched).toBeGreaterThan(0);
    expect(seen.predicateCompared).toBeGreaterThan(RUNS / 4);
  }, 180_000);
});
