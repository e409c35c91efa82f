// The first thing a TypeScript user writes: `tableFromArrays({ id: [1, 2], v: ["a", "b"] })` gives Float64
// and Dictionary<Int32, Utf8> columns. Write and upsert cast them exactly to the table's `long` / `string`
// (SPEC §7 "Source casts"), checked by delta-rs; a value that does not cast is refused naming column and
// row with the table unchanged; a table created from such data stores the dictionary as its value type; a
// failed first write leaves no `_delta_log` behind.

import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { readParquetFooter } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import {
  Field,
  Float64,
  Int64,
  type RecordBatch,
  RecordBatchReader,
  Schema,
  Table,
  tableFromArrays,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-casts-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const theirRows = (uri: string) => oracle.call<unknown[]>("delta_read_rows", { uri, sort_by: ["id"] });

const longString = new Schema([new Field("id", new Int64(), true), new Field("v", new Utf8(), true)]);

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

async function refusal(promise: Promise<unknown>): Promise<{ kind: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { kind: string; message: string };
  }
  throw new Error("expected a refusal");
}

/** The Arrow schema parquet-rs stored in a data file's footer (`ARROW:schema`). */
async function storedArrowSchema(root: string, file: string): Promise<Schema> {
  const store = new LocalFileStore(root);
  const { size } = await fs.stat(path.join(root, file));
  const footer = await readParquetFooter(store, file, { size });
  const encoded = footer.key_value_metadata?.find((kv) => kv.key === "ARROW:schema")?.value;
  if (!encoded) throw new Error("no ARROW:schema in the footer");
  const message = Buffer.from(encoded, "base64");
  const eos = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0);
  const reader = RecordBatchReader.from(Buffer.concat([message, eos]));
  reader.open();
  return reader.schema;
}

describe("tableFromArrays data into a long/string table", () => {
  it("write appends it, cast to long and string; delta-rs reads the rows", async () => {
    const uri = path.join(tmp, "write");
    const table = await DeltaLiteTable.create(uri, longString);
    const data = tableFromArrays({ id: [1, 2], v: ["a", "b"] });
    expect(data.schema.fields.map((f) => String(f.type))).toEqual(["Float64", "Dictionary<Int32, Utf8>"]);
    const result = await table.write(data);
    expect(result).toMatchObject({ version: 1, rowsWritten: 2 });
    expect(await theirRows(uri)).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: "b" },
    ]);
    const stored = await storedArrowSchema(uri, table.files[0]!.path);
    expect(stored.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(["id:Int64", "v:Utf8"]);
  });

  it("upsert with primaryKeys [id] replaces and inserts; delta-rs reads the rows", async () => {
    const uri = path.join(tmp, "upsert");
    const table = await DeltaLiteTable.create(uri, longString);
    await table.write(tableFromArrays({ id: [1, 2], v: ["a", "b"] }));
    const stats = await table.upsert(tableFromArrays({ id: [2, 3], v: ["B", "c"] }), { primaryKeys: ["id"] });
    expect(stats).toMatchObject({ rowsUpdated: 1, rowsInserted: 1 });
    expect(await theirRows(uri)).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: "B" },
      { id: 3, v: "c" },
    ]);
  });

  it("a value that does not cast exactly is refused naming column and row; the table is unchanged", async () => {
    const uri = path.join(tmp, "inexact");
    const table = await DeltaLiteTable.create(uri, longString);
    await table.write(tableFromArrays({ id: [1], v: ["a"] }));
    const listing = async () => (await fs.readdir(uri, { recursive: true })).sort();
    const before = await listing();
    const bad = tableFromArrays({ id: [5, 6.5], v: ["x", "y"] });
    for (const attempt of [table.write(bad), table.upsert(bad, { primaryKeys: ["id"] })]) {
      expect(await refusal(attempt)).toMatchObject({
        kind: "schema_mismatch",
        message: expect.stringMatching(/column id: row 1 of the (data|source) batch holds 6\.5/),
      });
    }
    expect(await listing()).toEqual(before);
    expect((await DeltaLiteTable.open(uri)).version).toBe(1);
  });
});

describe("creating a table from such data", () => {
  it("stores a dictionary column as its value type (also as a partition column)", async () => {
    const uri = path.join(tmp, "create");
    const data = tableFromArrays({ id: [1, 2, 3], v: ["a", "b", "a"], day: ["d1", "d2", "d1"] });
    const { table } = await DeltaLiteTable.write(uri, data, { partitionBy: ["day"] });
    const types = JSON.parse(table.schemaJson).fields.map((f: { name: string; type: unknown }) => [
      f.name,
      f.type,
    ]);
    expect(types).toEqual([
      ["id", "double"],
      ["v", "string"],
      ["day", "string"],
    ]);
    for (const file of table.files) {
      const stored = await storedArrowSchema(uri, decodeURIComponent(file.path));
      expect(stored.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(["id:Float64", "v:Utf8"]);
    }
    expect(await theirRows(uri)).toEqual([
      { id: 1, v: "a", day: "d1" },
      { id: 2, v: "b", day: "d2" },
      { id: 3, v: "a", day: "d1" },
    ]);
  });

  it("a failed first write leaves no _delta_log and no table", async () => {
    const uri = path.join(tmp, "failed-create");
    // The stream's first batch makes the table (id long); the second one's id 4.5 does not cast to it.
    const first = new Table({
      id: vectorFromArray([1n, 2n], new Int64()),
      v: vectorFromArray(["a", "b"], new Utf8()),
    }).batches[0]!;
    const second = new Table({
      id: vectorFromArray([3, 4.5], new Float64()),
      v: vectorFromArray(["c", "d"], new Utf8()),
    }).batches[0]!;
    async function* stream(): AsyncIterable<RecordBatch> {
      yield first;
      yield second;
    }
    expect(await refusal(DeltaLiteTable.write(uri, stream()))).toMatchObject({
      kind: "schema_mismatch",
      message: expect.stringMatching(/column id: row 1 of the data batch holds 4\.5/),
    });
    expect(await exists(path.join(uri, "_delta_log"))).toBe(false);
    expect(await refusal(DeltaLiteTable.open(uri))).toMatchObject({ kind: "not_found" });
    const parquet = ((await fs.readdir(uri, { recursive: true }).catch(() => [])) as string[]).filter((f) =>
      f.endsWith(".parquet"),
    );
    expect(parquet).toEqual([]);
  });
});
