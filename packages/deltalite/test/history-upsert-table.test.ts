/**
 * `DeltaLiteTable.historyUpsert` and `DeltaLiteTable.keyBuckets` on the handle: each history batch ends as
 * the independent reference model (oracle op `scd2_model_apply`) says, table content and counters, as
 * delta-rs reads it; the handle moves to the committed version and stays put on `committed: false`; a
 * stale handle plans on the latest version; the environment's defaults apply unless the call sets the
 * knob; refused calls leave the table as it was; keyBuckets casts the key columns to the table's types.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
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
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable, type HistoryUpsertOptions, type HistoryUpsertStats } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-history-table-"));
});
afterAll(async () => {
  oracle?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.DELTALITE_MAX_SOURCE_BYTES;
});

const OPTIONS: HistoryUpsertOptions = {
  keyColumns: ["k", "name"],
  orderColumn: "ord",
  validFromColumn: "vf",
  validToColumn: "vt",
  partitionColumn: "part",
  currentPartition: "current",
};

const TABLE_SCHEMA = new Schema([
  new Field("k", new Int64(), true),
  new Field("name", new Utf8(), true),
  new Field("ord", new Int64(), true),
  new Field("vf", new TimestampMicrosecond("UTC"), true),
  new Field("vt", new TimestampMicrosecond("UTC"), true),
  new Field("part", new Utf8(), true),
  new Field("pay", new Utf8(), true),
]);
const MODEL_TABLE_SCHEMA = {
  k: "int64",
  name: "string",
  ord: "int64",
  vf: "timestamp[us, tz=UTC]",
  vt: "timestamp[us, tz=UTC]",
  part: "string",
  pay: "string",
};

/** A source row: `k` goes in as int32 (cast to the table's long), `vf` as an ISO instant with its offset. */
interface Row {
  k: number | null;
  name: string | null;
  ord: number;
  vf: string;
  pay: string;
}
const row = (k: number | null, name: string | null, ord: number, vf: string, pay = `p${ord}`): Row => ({
  k,
  name,
  ord,
  vf,
  pay,
});

/** Microseconds since the epoch of ISO text with "Z" or an offset (up to 6 fraction digits). */
function micros(iso: string): bigint {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  if (!match) throw new Error(`not an ISO instant: ${iso}`);
  return BigInt(Date.parse(`${match[1]}${match[3]}`)) * 1000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}

function source(rows: readonly Row[]): Table {
  return new Table({
    k: vectorFromArray(
      rows.map((r) => r.k),
      new Int32(),
    ),
    name: vectorFromArray(
      rows.map((r) => r.name),
      new Utf8(),
    ),
    ord: vectorFromArray(
      rows.map((r) => BigInt(r.ord)),
      new Int64(),
    ),
    vf: makeVector(
      makeData({
        type: new TimestampMicrosecond("UTC"),
        length: rows.length,
        data: BigInt64Array.from(rows.map((r) => micros(r.vf))),
      }),
    ),
    pay: vectorFromArray(
      rows.map((r) => r.pay),
      new Utf8(),
    ),
  });
}

type ModelRow = Record<string, string | number | null>;
interface ModelStats {
  rowsIn: number;
  rowsDeduped: number;
  rowsReread: number;
  rowsBackwards: number;
  versionsOpened: number;
  versionsClosed: number;
  chainRowsClosed: number;
  committed: boolean;
}

/** The reference model's table after `rows` are applied to `table` (its whole content). */
async function model(table: readonly ModelRow[], rows: readonly Row[]) {
  const result = await oracle.call<{ rows: ModelRow[]; stats: ModelStats }>("scd2_model_apply", {
    table: { schema: MODEL_TABLE_SCHEMA, partition_columns: ["part"], rows: table },
    batch: {
      schema: { k: "int32", name: "string", ord: "int64", vf: "timestamp[us, tz=UTC]", pay: "string" },
      rows,
    },
    options: OPTIONS,
  });
  expect(result.rows, JSON.stringify(result)).toBeDefined();
  return result;
}

/** A row as text: every value a string or null, instants as microseconds. */
const canonical = (values: Record<string, unknown>, instants: boolean) =>
  JSON.stringify(
    Object.keys(MODEL_TABLE_SCHEMA).map((name) => {
      const value = values[name];
      if (value === null || value === undefined) return null;
      return instants && (name === "vf" || name === "vt") ? String(micros(String(value))) : String(value);
    }),
  );

async function deltaRs(uri: string): Promise<{ rows: string[]; version: number }> {
  const read = await oracle.call<{ rows: Record<string, unknown>[]; version: number }>("tw_read_table", {
    uri,
  });
  return { rows: read.rows.map((r) => canonical(r, false)).sort(), version: read.version };
}

const modelRows = (rows: readonly ModelRow[]) => rows.map((r) => canonical(r, true)).sort();

function counters(stats: HistoryUpsertStats): ModelStats {
  const { rowsIn, rowsDeduped, rowsReread, rowsBackwards, versionsOpened, versionsClosed } = stats;
  return {
    rowsIn,
    rowsDeduped,
    rowsReread,
    rowsBackwards,
    versionsOpened,
    versionsClosed,
    chainRowsClosed: stats.chainRowsClosed,
    committed: stats.committed,
  };
}

let tables = 0;
async function historyTable(): Promise<{ uri: string; table: DeltaLiteTable }> {
  const uri = path.join(tmp, `history-${tables++}`);
  return { uri, table: await DeltaLiteTable.create(uri, TABLE_SCHEMA, { partitionBy: ["part"] }) };
}

const FIRST = [
  row(1, "a", 1, "2024-01-10T00:00:00Z"),
  row(1, "a", 2, "2024-02-01T00:30:00+02:00"),
  row(null, "b", 1, "2024-01-31T23:00:00-05:00"),
  row(2, null, 1, "2024-03-01T00:00:00Z"),
];
const SECOND = [
  row(1, "a", 2, "2024-02-01T00:00:00Z", "reread"),
  row(1, "a", 1, "2024-01-05T00:00:00Z", "backwards"),
  row(null, "b", 5, "2024-12-31T23:30:00-01:00"),
  row(2, null, 3, "2024-04-01T00:00:00Z", "loses"),
  row(2, null, 3, "2024-04-01T00:00:00Z", "wins"),
  row(3, "c", 1, "2024-05-05T05:05:05.123456Z"),
];

/** What the batches do, counted by hand from the rules (so the model and the engine cannot agree on nothing). */
const EXPECTED_COUNTERS: ModelStats[] = [
  {
    rowsIn: 4,
    rowsDeduped: 0,
    rowsReread: 0,
    rowsBackwards: 0,
    versionsOpened: 3,
    versionsClosed: 0,
    chainRowsClosed: 1,
    committed: true,
  },
  {
    rowsIn: 6,
    rowsDeduped: 1,
    rowsReread: 1,
    rowsBackwards: 1,
    versionsOpened: 3,
    versionsClosed: 2,
    chainRowsClosed: 0,
    committed: true,
  },
  {
    rowsIn: 6,
    rowsDeduped: 1,
    rowsReread: 4,
    rowsBackwards: 1,
    versionsOpened: 0,
    versionsClosed: 0,
    chainRowsClosed: 0,
    committed: false,
  },
];

describe("DeltaLiteTable.historyUpsert", () => {
  it("ends each batch as the reference model says (content and counters, read by delta-rs); the handle follows", async () => {
    const { uri, table } = await historyTable();
    let expected: ModelRow[] = [];
    for (const [step, batch] of [FIRST, SECOND, SECOND].entries()) {
      const want = await model(expected, batch);
      const stats = await table.historyUpsert(source(batch), {
        ...OPTIONS,
        commitMetadata: { step: String(step) },
      });
      expect(counters(stats), `batch ${step}`).toEqual(want.stats);
      const read = await deltaRs(uri);
      expect(read.rows, `batch ${step}`).toEqual(modelRows(want.rows));
      expect(read.version).toBe(stats.version);
      expect(table.version).toBe(stats.version);
      expect(want.stats, `batch ${step}`).toEqual(EXPECTED_COUNTERS[step]);
      expected = want.rows;
    }
    // The re-run of SECOND kept no row: no commit, the handle where it was.
    const history = await table.history();
    expect(history.map((h) => h.version)).toEqual([2, 1, 0]);
    expect(history[0]?.commitInfo).toMatchObject({ operation: "MERGE", step: "1" });
    expect(modelRows(expected).some((r) => r.includes('"2025-01"'))).toBe(true);
  }, 60_000);

  it("plans on the latest version when the handle is stale", async () => {
    const { uri, table: stale } = await historyTable();
    const other = await DeltaLiteTable.open(uri);
    await other.historyUpsert(source(FIRST), OPTIONS);
    expect(stale.version).toBe(0);
    const first = await model([], FIRST);
    const want = await model(first.rows, SECOND);
    const stats = await stale.historyUpsert(source(SECOND), OPTIONS);
    expect(stats).toMatchObject({ committed: true, version: 2, planAttempts: 1 });
    expect(counters(stats)).toEqual(want.stats);
    expect((await deltaRs(uri)).rows).toEqual(modelRows(want.rows));
    expect(stale.version).toBe(2);
  }, 60_000);

  it("takes DELTALITE_MAX_SOURCE_BYTES unless the call sets maxSourceBytes; refused calls change nothing", async () => {
    const { uri, table } = await historyTable();
    process.env.DELTALITE_MAX_SOURCE_BYTES = "16";
    await expect(table.historyUpsert(source(FIRST), OPTIONS)).rejects.toMatchObject({
      kind: "source_too_large",
    });
    await expect(
      table.historyUpsert(source(FIRST), { ...OPTIONS, maxSorceBytes: 0 } as HistoryUpsertOptions),
    ).rejects.toMatchObject({ kind: "invalid_argument", message: /did you mean "maxSourceBytes"/ });
    const withValidTo = new Table({
      ...Object.fromEntries(source(FIRST).schema.fields.map((f) => [f.name, source(FIRST).getChild(f.name)])),
      vt: source(FIRST).getChild("vf"),
    } as never);
    await expect(table.historyUpsert(withValidTo, { ...OPTIONS, maxSourceBytes: 0 })).rejects.toMatchObject({
      kind: "generic",
      message: /carries column vt/,
    });
    const unpartitioned = { ...OPTIONS, partitionColumn: "pay", maxSourceBytes: 0 };
    await expect(table.historyUpsert(source(FIRST), unpartitioned)).rejects.toMatchObject({
      kind: "unsupported",
    });
    expect(await deltaRs(uri)).toEqual({ rows: [], version: 0 });
    expect(table.version).toBe(0);

    const stats = await table.historyUpsert(source(FIRST), { ...OPTIONS, maxSourceBytes: 0 });
    expect(stats).toMatchObject({ committed: true, version: 1, versionsOpened: 3 });
  }, 60_000);
});

describe("DeltaLiteTable.keyBuckets", () => {
  it("casts the key columns to the table's types: an int32 and an int64 key share a bucket", async () => {
    const { table } = await historyTable();
    const keys = [1, 2, null, 2_000_000_000, -7];
    const names = ["a", null, "b", "c", null];
    const narrow = new Table({
      k: vectorFromArray(keys, new Int32()),
      name: vectorFromArray(names, new Utf8()),
    });
    const wide = new Table({
      name: vectorFromArray(names, new Utf8()),
      k: vectorFromArray(
        keys.map((k) => (k === null ? null : BigInt(k))),
        new Int64(),
      ),
    });
    const ids = table.keyBuckets(narrow, ["k", "name"], 7);
    expect([...ids]).toEqual([...table.keyBuckets(wide, ["k", "name"], 7)]);
    expect(ids.every((id) => id < 7)).toBe(true);
    expect(() => table.keyBuckets(narrow, ["kk"], 7)).toThrow(
      expect.objectContaining({
        kind: "invalid_argument",
        message: expect.stringContaining('did you mean "k"'),
      }),
    );
    expect(() => table.keyBuckets(narrow, ["k"], 0)).toThrow(
      expect.objectContaining({ kind: "invalid_argument" }),
    );
  });
});
