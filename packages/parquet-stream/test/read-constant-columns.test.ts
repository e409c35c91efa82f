import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle } from "@deltalite/tools/oracle";
import {
  Binary,
  Bool,
  type DataType,
  DateDay,
  Decimal,
  Float64,
  Int8,
  Int32,
  Int64,
  TimestampMicrosecond,
  Utf8,
} from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openParquetReader, withConstantColumns } from "../src/index.js";
import { canonBatches, canonType } from "./read-canonical.js";

let dir: string;
let size: number;

beforeAll(async () => {
  const oracle = await connectOracle();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "read-constant-"));
  await oracle.call("parquet_write_type_matrix", {
    path: path.join(dir, "m.parquet"),
    rows: 300,
    row_group_size: 120,
  });
  oracle.close();
  size = (await fs.stat(path.join(dir, "m.parquet"))).size;
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const cases: { name: string; type: DataType; value: unknown; canonical: unknown }[] = [
  { name: "day", type: new Utf8(), value: "2026-01-01 ünï", canonical: "2026-01-01 ünï" },
  { name: "empty", type: new Utf8(), value: "", canonical: "" },
  { name: "big", type: new Int64(), value: 9007199254740993n, canonical: "9007199254740993" },
  { name: "small", type: new Int8(), value: -7, canonical: -7 },
  { name: "n", type: new Int32(), value: 123456, canonical: 123456 },
  { name: "x", type: new Float64(), value: -0, canonical: "8000000000000000" },
  { name: "flag", type: new Bool(), value: true, canonical: true },
  { name: "d", type: new DateDay(), value: 20454, canonical: 20454 },
  {
    name: "ts",
    type: new TimestampMicrosecond("UTC"),
    value: 1767225600123456n,
    canonical: "1767225600123456",
  },
  { name: "amount", type: new Decimal(2, 10, 128), value: -12345n, canonical: "-123.45" },
  {
    name: "wide",
    type: new Decimal(10, 38, 128),
    value: -(10n ** 37n) - 1n,
    canonical: "-1000000000000000000000000000.0000000001",
  },
  { name: "raw", type: new Binary(), value: new Uint8Array([0, 255, 7]), canonical: "00ff07" },
  { name: "nothing", type: new Utf8(), value: null, canonical: null },
  { name: "no_ts", type: new TimestampMicrosecond("UTC"), value: null, canonical: null },
];

describe("withConstantColumns", () => {
  it("appends typed constant (partition) columns to every decoded batch, nulls included", async () => {
    const reader = await openParquetReader(new LocalFileStore(dir), "m.parquet", { size });
    let rows = 0;
    for await (const batch of reader.readRowGroups({ columns: ["id", "s"] })) {
      const out = withConstantColumns(
        batch,
        cases.map(({ name, type, value }) => ({ name, type, value })),
      );
      expect(out.schema.fields.map((f) => f.name)).toEqual(["id", "s", ...cases.map((c) => c.name)]);
      const canon = canonBatches(out.schema, [out]);
      for (const c of cases) {
        expect(canon.schema[c.name]).toBe(canonType(c.type));
        expect({ name: c.name, values: canon.columns[c.name] }).toEqual({
          name: c.name,
          values: new Array(batch.numRows).fill(c.canonical),
        });
      }
      expect(canon.columns.id).toEqual(canonBatches(batch.schema, [batch]).columns.id);
      rows += out.numRows;
    }
    expect(rows).toBe(300);
  });

  it("replaces a column of the same name (the log's partition value wins) and rejects mistyped values", async () => {
    const reader = await openParquetReader(new LocalFileStore(dir), "m.parquet", { size });
    const batch = await reader.readRowGroup(0, { columns: ["id", "s"] });
    const out = withConstantColumns(batch, [{ name: "s", type: new Utf8(), value: "p" }]);
    expect(out.schema.fields.map((f) => f.name)).toEqual(["id", "s"]);
    expect(canonBatches(out.schema, [out]).columns.s).toEqual(new Array(batch.numRows).fill("p"));
    expect(() => withConstantColumns(batch, [{ name: "k", type: new Int64(), value: 5 }])).toThrow(
      expect.objectContaining({ kind: "schema_mismatch" }),
    );
  });
});
