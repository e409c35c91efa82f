/**
 * Calls the seed refuses: each one is refused by `historyUpsert` with the error kind the reference model
 * (oracle op `scd2_model_apply`) gives for it, and leaves the table exactly as it was (same version, same
 * files on disk). Option mistakes that the model's contract cannot express are checked on our side alone
 * (kind `invalid_argument`, with a "did you mean" hint for a misspelt column).
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createTable, type DeltaSchema } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Int64, Schema, Table, TimestampMicrosecond, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyUpsert } from "../src/index.js";
import { historyOptions, latest, microsOf, sourceTable, type TableLayout } from "./history-fixtures.js";

const layout: TableLayout = { keyColumns: ["k1"], tieBreak: "none" };
const VF = "2024-01-10T00:00:00.000000Z";

type Column = { delta: string; model: string; arrow: () => Int64 | Utf8 | TimestampMicrosecond };
const COLUMNS: Record<string, Column> = {
  k1: { delta: "long", model: "int64", arrow: () => new Int64() },
  k2: { delta: "string", model: "string", arrow: () => new Utf8() },
  ord: { delta: "long", model: "int64", arrow: () => new Int64() },
  tb: { delta: "string", model: "string", arrow: () => new Utf8() },
  vf: { delta: "timestamp", model: "timestamp[us, tz=UTC]", arrow: () => new TimestampMicrosecond("UTC") },
  vt: { delta: "timestamp", model: "timestamp[us, tz=UTC]", arrow: () => new TimestampMicrosecond("UTC") },
  part: { delta: "string", model: "string", arrow: () => new Utf8() },
  pnum: { delta: "long", model: "int64", arrow: () => new Int64() },
  pay: { delta: "string", model: "string", arrow: () => new Utf8() },
};

type Row = Record<string, string | number | null>;

/** An Arrow source of the given columns (timestamps as ISO text, integers as numbers). */
function arrowSource(columns: string[], rows: Row[]): Table {
  const fields = columns.map((c) => new Field(c, (COLUMNS[c] as Column).arrow(), true));
  const vectors = Object.fromEntries(
    fields.map((f) => {
      const values = rows.map((r) => r[f.name] ?? null);
      const converted =
        f.type instanceof TimestampMicrosecond
          ? values.map((v) => (v === null ? null : Number(microsOf(String(v)) / 1000n)))
          : f.type instanceof Int64
            ? values.map((v) => (v === null ? null : BigInt(v)))
            : values;
      return [f.name, vectorFromArray(converted, f.type as never)];
    }),
  );
  return new Table(new Schema(fields), vectors as never);
}

async function filesOnDisk(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

interface Case {
  name: string;
  tableColumns?: string[];
  partitionColumns?: string[];
  sourceColumns: string[];
  rows: Row[];
  options?: Record<string, unknown>;
  kind: string;
}

const TABLE = ["k1", "ord", "vf", "vt", "part", "pay"];
const SOURCE = ["k1", "ord", "vf", "pay"];
const ROW: Row = { k1: 1, ord: 5, vf: VF, pay: "x" };

const CASES: Case[] = [
  {
    name: "the source carries the valid-to column",
    sourceColumns: [...SOURCE, "vt"],
    rows: [{ ...ROW, vt: VF }],
    kind: "generic",
  },
  {
    name: "the source carries the partition column",
    sourceColumns: [...SOURCE, "part"],
    rows: [{ ...ROW, part: "x" }],
    kind: "generic",
  },
  {
    name: "a NULL order value",
    sourceColumns: SOURCE,
    rows: [ROW, { ...ROW, k1: 2, ord: null }],
    kind: "generic",
  },
  {
    name: "a NULL valid-from",
    sourceColumns: SOURCE,
    rows: [ROW, { ...ROW, k1: 2, vf: null }],
    kind: "generic",
  },
  {
    name: "a string tie-break column in the source only",
    sourceColumns: [...SOURCE, "tb"],
    rows: [{ ...ROW, tb: "a" }],
    options: { tieBreakColumn: "tb" },
    kind: "invalid_argument",
  },
  {
    name: "a string tie-break column of the table",
    tableColumns: [...TABLE, "tb"],
    sourceColumns: [...SOURCE, "tb"],
    rows: [{ ...ROW, tb: "a" }],
    options: { tieBreakColumn: "tb" },
    kind: "invalid_argument",
  },
  {
    name: "an unpartitioned table",
    partitionColumns: [],
    sourceColumns: SOURCE,
    rows: [ROW],
    kind: "unsupported",
  },
  {
    name: "a table partitioned by another column too",
    tableColumns: [...TABLE, "k2"],
    partitionColumns: ["part", "k2"],
    sourceColumns: SOURCE,
    rows: [ROW],
    kind: "unsupported",
  },
  {
    name: "a partition column that is not a string",
    tableColumns: ["k1", "ord", "vf", "vt", "pnum", "pay"],
    partitionColumns: ["pnum"],
    sourceColumns: SOURCE,
    rows: [ROW],
    options: { partitionColumn: "pnum" },
    kind: "unsupported",
  },
];

describe("historyUpsert refuses what the seed refuses, as the reference model does", () => {
  let oracle: Oracle;
  let dir: string;
  let tables = 0;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-scd2-errors-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function table(columns: string[], partitionColumns: string[]): Promise<string> {
    const uri = join(dir, `t${tables++}`);
    const schema = {
      type: "struct",
      fields: columns.map((c) => ({
        name: c,
        type: (COLUMNS[c] as Column).delta,
        nullable: true,
        metadata: {},
      })),
    } as DeltaSchema;
    await createTable(new LocalFileStore(uri), { schema, partitionColumns });
    return uri;
  }

  it.each(CASES)("$name: kind $kind", async (c) => {
    const tableColumns = c.tableColumns ?? TABLE;
    const partitionColumns = c.partitionColumns ?? ["part"];
    const options = { ...historyOptions(layout), ...(c.options ?? {}) };
    const model = await oracle.call<{ error?: { kind: string } }>("scd2_model_apply", {
      table: {
        schema: Object.fromEntries(tableColumns.map((n) => [n, (COLUMNS[n] as Column).model])),
        partition_columns: partitionColumns,
        rows: [],
      },
      batch: {
        schema: Object.fromEntries(c.sourceColumns.map((n) => [n, (COLUMNS[n] as Column).model])),
        rows: c.rows,
      },
      options,
    });
    expect(model.error?.kind).toBe(c.kind);
    const uri = await table(tableColumns, partitionColumns);
    const before = await latest(uri);
    const disk = await filesOnDisk(uri);
    const error = await historyUpsert(before, arrowSource(c.sourceColumns, c.rows), options as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: c.kind });
    expect((await latest(uri)).version).toBe(before.version);
    expect(await filesOnDisk(uri)).toEqual(disk);
  });

  it("option mistakes are invalid_argument before anything is read", async () => {
    const uri = await table(TABLE, ["part"]);
    const snapshot = await latest(uri);
    const source = sourceTable([], layout, "UTC");
    const refuse = async (options: Record<string, unknown>, message: RegExp) => {
      const error = await historyUpsert(snapshot, source, {
        ...historyOptions(layout),
        ...options,
      } as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ kind: "invalid_argument" });
      expect((error as Error).message).toMatch(message);
    };
    await refuse({ keyColumns: ["k_1"] }, /did you mean "k1"/);
    await refuse({ orderColumn: "ordr" }, /did you mean "ord"/);
    await refuse({ keyColumns: [] }, /keyColumns/);
    await refuse({ keyColumns: ["k1", "k1"] }, /distinct/);
    await refuse({ currentPartition: "" }, /currentPartition/);
    await refuse({ keyColumns: ["ord"] }, /both/);
    await refuse({ tieBreakColum: "tb" }, /did you mean "tieBreakColumn"/);
    await refuse({ validToColumn: "pay" }, /one type/);
    expect((await latest(uri)).version).toBe(snapshot.version);
  });
});
