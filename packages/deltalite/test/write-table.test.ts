// DeltaLiteTable writes checked by delta-rs: the whole Delta type matrix, unpartitioned and partitioned
// (hostile strings, int64, date partition values), locally and on the S3 server; append, overwrite, schema
// merge; and every validation error leaves the table exactly as it was.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { Field, Int64, Schema, Table, tableFromIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-write-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Matrix {
  rows: unknown[];
  names: string[];
  table: Table;
}

async function matrix(name: string, seed: number, rows: number, partition?: string): Promise<Matrix> {
  const out = path.join(tmp, `${name}.arrow`);
  const r = await oracle.call<{ rows: unknown[]; names: string[] }>("tw_type_matrix", {
    out,
    rows,
    seed,
    partition,
  });
  return { ...r, table: tableFromIPC(await fs.readFile(out)) };
}

interface DeltaRead {
  rows: unknown[];
  names: string[];
  version: number;
  numFiles: number;
  partitionValues: Record<string, string | null>[];
}

const read = (uri: string, storage_options?: Record<string, string>, version?: number) =>
  oracle.call<DeltaRead>("tw_read_table", { uri, storage_options, version });

describe("DeltaLiteTable.write → delta-rs reads identical rows", () => {
  it.each([
    ["unpartitioned", undefined],
    ["partitioned by hostile strings", "hostile"],
    ["partitioned by int64", "int"],
    ["partitioned by date", "date"],
  ] as const)("type matrix, %s", async (_name, partition) => {
    const m = await matrix(`m-${partition ?? "none"}`, 7, 300, partition);
    const uri = path.join(tmp, `t-${partition ?? "none"}`);
    const partitionBy = partition ? ["part"] : [];
    const { table, result } = await DeltaLiteTable.write(uri, m.table, { partitionBy, maxRowGroupRows: 100 });
    expect(result.version).toBe(0);
    expect(result.rowsWritten).toBe(300);
    const theirs = await read(uri);
    expect(theirs.version).toBe(0);
    expect(theirs.names).toEqual(m.names);
    expect(theirs.rows).toEqual(m.rows);
    expect(theirs.numFiles).toBe(result.filesAdded);
    expect(table.numFiles).toBe(result.filesAdded);
    if (partition === "hostile") expect(theirs.numFiles).toBe(11);
    // Append the same rows again, then overwrite with them: delta-rs sees 2× then 1× the rows.
    await table.write(m.table, { maxRowGroupRows: 100 });
    expect((await read(uri)).rows.length).toBe(600);
    const over = await table.write(m.table, { mode: "overwrite" });
    expect(over.filesRemoved).toBe(result.filesAdded * 2);
    const after = await read(uri);
    expect(after.version).toBe(2);
    expect(after.rows).toEqual(m.rows);
  });

  it("writes through the S3 server and delta-rs reads it there", async () => {
    const s3 = testS3();
    const bucket = await s3.createBucket(`write-${randomBytes(4).toString("hex")}`);
    const uri = `s3://${bucket}/tables/matrix`;
    const m = await matrix("m-s3", 11, 200, "hostile");
    await DeltaLiteTable.write(uri, m.table, { partitionBy: ["part"], storageOptions: s3.storageOptions });
    const theirs = await read(uri, s3.storageOptions);
    expect(theirs.rows).toEqual(m.rows);
  });

  it("rolls files over at the target size", async () => {
    const m = await matrix("m-roll", 3, 2000);
    const uri = path.join(tmp, "t-roll");
    const { result } = await DeltaLiteTable.write(uri, m.table, {
      targetFileSize: 32 * 1024,
      maxRowGroupRows: 200,
    });
    expect(result.filesAdded).toBeGreaterThan(2);
    expect((await read(uri)).rows).toEqual(m.rows);
  });
});

describe("schema rules and errors leave the table unchanged", () => {
  const ids = (n: number, start = 0) =>
    vectorFromArray(
      Array.from({ length: n }, (_, i) => BigInt(start + i)),
      new Int64(),
    );
  const base = () => new Table({ id: ids(3), name: vectorFromArray(["a", "b", "c"], new Utf8()) });

  async function snapshotOf(uri: string) {
    const files = (await fs.readdir(uri, { recursive: true })).sort();
    return { files, version: (await DeltaLiteTable.open(uri)).version };
  }

  it("extra columns need schemaMode merge; the merged column reads back null for old rows", async () => {
    const uri = path.join(tmp, "t-merge");
    const { table } = await DeltaLiteTable.write(uri, base());
    const wider = new Table({
      id: ids(2, 10),
      name: vectorFromArray(["x", "y"], new Utf8()),
      extra: vectorFromArray(["e1", null], new Utf8()),
    });
    const before = await snapshotOf(uri);
    await expect(table.write(wider)).rejects.toMatchObject({ kind: "schema_mismatch" });
    expect(await snapshotOf(uri)).toEqual(before);
    await table.write(wider, { schemaMode: "merge" });
    const theirs = await read(uri);
    expect(theirs.names).toEqual(["id", "name", "extra"]);
    expect(theirs.rows.length).toBe(5);
    expect(theirs.rows.filter((r) => (r as { extra: unknown }).extra === null).length).toBe(4);
  });

  it("a missing nullable column is null-filled; a type change or a wrong partitionBy is refused", async () => {
    const uri = path.join(tmp, "t-rules");
    const { table } = await DeltaLiteTable.write(uri, base(), { partitionBy: ["name"] });
    await table.write(new Table({ id: ids(1, 100) }));
    // Canonical rows carry int64 as strings.
    const rows = (await read(uri)).rows as { id: string; name: string | null }[];
    expect(rows.find((r) => r.id === "100")).toEqual({ id: "100", name: null });
    const before = await snapshotOf(uri);
    const wrongType = new Table({ id: vectorFromArray(["not a number"], new Utf8()) });
    await expect(table.write(wrongType)).rejects.toMatchObject({ kind: "schema_mismatch" });
    await expect(table.write(base(), { partitionBy: ["id"] })).rejects.toMatchObject({
      kind: "invalid_argument",
    });
    expect(await snapshotOf(uri)).toEqual(before);
  });

  it("create refuses an existing table unless ifNotExists; create + append reads back", async () => {
    const uri = path.join(tmp, "t-create");
    const schema = new Schema([new Field("id", new Int64(), false), new Field("name", new Utf8(), true)]);
    const created = await DeltaLiteTable.create(uri, schema, { partitionBy: ["name"] });
    expect(created.version).toBe(0);
    await expect(DeltaLiteTable.create(uri, schema)).rejects.toMatchObject({ kind: "already_exists" });
    expect((await DeltaLiteTable.create(uri, schema, { ifNotExists: true })).version).toBe(0);
    await created.write(base());
    const theirs = await read(uri);
    expect(theirs.version).toBe(1);
    expect(theirs.rows.length).toBe(3);
    expect(theirs.partitionValues.map((p) => p.name).sort()).toEqual(["a", "b", "c"]);
  });
});
