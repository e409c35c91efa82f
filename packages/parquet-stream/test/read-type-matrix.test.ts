import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import type { RecordBatch } from "apache-arrow";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openParquetReader } from "../src/index.js";
import { type CanonicalTable, canonBatches } from "./read-canonical.js";

// Each variant is one pyarrow-written file of the full type matrix (see op_parquet_write_type_matrix):
// every primitive, decimals on INT32/INT64/FLBA, timestamps ms/us/ns with and without UTC, dates, binary,
// fixed binary, struct, list, list<list>, map, list<struct>, with nulls, NaN, ±inf, -0.0, empty, long and
// non-ASCII strings — over several row groups, page versions, encodings and codecs.
const variants: { name: string; options: Record<string, unknown> }[] = [
  { name: "snappy, V1 pages, dictionary", options: { compression: "snappy" } },
  {
    name: "zstd, V2 pages, plain, decimals as integers",
    options: {
      compression: "zstd",
      data_page_version: "2.0",
      use_dictionary: false,
      store_decimal_as_integer: true,
    },
  },
  {
    name: "uncompressed, V1, tiny pages (many pages per chunk)",
    options: { compression: "none", data_page_size: 256, row_group_size: 300 },
  },
  { name: "gzip, V2 pages, dictionary", options: { compression: "gzip", data_page_version: "2.0" } },
  { name: "lz4, V1 pages", options: { compression: "lz4", use_dictionary: false } },
  {
    name: "snappy, V2 pages, DELTA_BINARY_PACKED / DELTA_BYTE_ARRAY / DELTA_LENGTH_BYTE_ARRAY / BYTE_STREAM_SPLIT",
    options: {
      data_page_version: "2.0",
      use_dictionary: false,
      column_encoding: {
        i32: "DELTA_BINARY_PACKED",
        i64: "DELTA_BINARY_PACKED",
        s: "DELTA_BYTE_ARRAY",
        bin: "DELTA_LENGTH_BYTE_ARRAY",
        f64: "BYTE_STREAM_SPLIT",
        f32: "BYTE_STREAM_SPLIT",
      },
    },
  },
];

let oracle: Oracle;
let dir: string;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "read-type-matrix-"));
});
afterAll(async () => {
  oracle.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("reading pyarrow-written Parquet over the type matrix", () => {
  it.each(variants)(
    "$name: every decoded value and type equals pyarrow's reading",
    async ({ name, options }) => {
      const file = `${name.replace(/[^a-z0-9]+/gi, "-")}.parquet`;
      const rows = 700;
      await oracle.call("parquet_write_type_matrix", {
        path: path.join(dir, file),
        rows,
        seed: 11,
        ...options,
      });
      const expected = await oracle.call<CanonicalTable & { rowGroupRows: number[] }>(
        "parquet_read_canonical",
        {
          path: path.join(dir, file),
        },
      );
      const store = new LocalFileStore(dir);
      const size = (await fs.stat(path.join(dir, file))).size;
      const reader = await openParquetReader(store, file, { size });
      expect(reader.rowGroupRows).toEqual(expected.rowGroupRows);
      expect(expected.rowGroupRows.length).toBeGreaterThan(1);

      const batches: RecordBatch[] = [];
      for await (const batch of reader.readRowGroups()) batches.push(batch);
      expect(batches.map((b) => b.numRows)).toEqual(expected.rowGroupRows);

      // The matrix really holds the edge values this test is about (drawn at random, so check they were).
      expect(expected.columns.f64).toEqual(
        expect.arrayContaining(["NaN", "7ff0000000000000", "fff0000000000000", "8000000000000000", null]),
      );
      expect(expected.columns.s).toEqual(expect.arrayContaining(["", "日本語", null]));
      expect(
        (expected.columns.s as (string | null)[]).some((v) => v !== null && Buffer.byteLength(v) > 64),
      ).toBe(true);
      expect(expected.columns.dec38_10).toEqual(
        expect.arrayContaining(["1234567890123456789012345678.0123456789"]),
      );
      expect(expected.columns.i64).toEqual(
        expect.arrayContaining(["9007199254740993", "-9223372036854775808"]),
      );

      const actual = canonBatches(reader.arrowSchema, batches);
      expect(actual.schema).toEqual(expected.schema);
      expect(actual.numRows).toBe(rows);
      for (const column of Object.keys(expected.columns)) {
        expect({ column, values: actual.columns[column] }).toEqual({
          column,
          values: expected.columns[column],
        });
      }
    },
  );

  it("BYTE_ARRAY decimals (variable-length big-endian, written by hyparquet-writer) decode exactly", async () => {
    const file = "byte-array-decimals.parquet";
    // (No zero: hyparquet-writer encodes 0 as an empty byte array, which pyarrow refuses to read.)
    const wide = [
      2n,
      1n,
      -1n,
      10n ** 37n,
      -(10n ** 37n) + 7n,
      9007199254740993n,
      null,
      -128n,
      127n,
      128n,
      -129n,
    ];
    const narrow = [12345n, -99999n, null, 3n, 999999999n, -999999999n, 1n, null, -1n, 100n, 5n];
    const buffer = parquetWriteBuffer({
      schema: [
        { name: "root", num_children: 2 },
        {
          name: "wide",
          type: "BYTE_ARRAY",
          converted_type: "DECIMAL",
          precision: 38,
          scale: 4,
          repetition_type: "OPTIONAL",
        },
        {
          name: "narrow",
          type: "BYTE_ARRAY",
          converted_type: "DECIMAL",
          precision: 9,
          scale: 2,
          repetition_type: "OPTIONAL",
        },
      ],
      columnData: [
        { name: "wide", data: wide },
        { name: "narrow", data: narrow },
      ],
    });
    await fs.writeFile(path.join(dir, file), new Uint8Array(buffer));
    const expected = await oracle.call<CanonicalTable>("parquet_read_canonical", {
      path: path.join(dir, file),
    });
    expect(expected.schema).toEqual({ wide: "decimal(38,4)", narrow: "decimal(9,2)" });
    const reader = await openParquetReader(new LocalFileStore(dir), file, { size: buffer.byteLength });
    const batches: RecordBatch[] = [];
    for await (const batch of reader.readRowGroups()) batches.push(batch);
    expect(canonBatches(reader.arrowSchema, batches)).toEqual({
      schema: expected.schema,
      numRows: expected.numRows,
      columns: expected.columns,
    });
  });

  it("an empty file yields empty batches (or none) with the full schema", async () => {
    const file = "empty.parquet";
    await oracle.call("parquet_write_type_matrix", { path: path.join(dir, file), rows: 0 });
    const expected = await oracle.call<CanonicalTable & { rowGroupRows: number[] }>(
      "parquet_read_canonical",
      {
        path: path.join(dir, file),
      },
    );
    const size = (await fs.stat(path.join(dir, file))).size;
    const reader = await openParquetReader(new LocalFileStore(dir), file, { size });
    const batches: RecordBatch[] = [];
    for await (const batch of reader.readRowGroups()) batches.push(batch);
    expect(batches.map((b) => b.numRows)).toEqual(expected.rowGroupRows);
    expect(canonBatches(reader.arrowSchema, batches)).toEqual({
      schema: expected.schema,
      numRows: 0,
      columns: expected.columns,
    });
  });

  it("a projection decodes only the named columns, in the order asked, with the same values", async () => {
    const file = "projection.parquet";
    await oracle.call("parquet_write_type_matrix", { path: path.join(dir, file), rows: 400, seed: 5 });
    const columns = ["lst", "id", "dec38_10", "m"];
    const expected = await oracle.call<CanonicalTable>("parquet_read_canonical", {
      path: path.join(dir, file),
      columns,
    });
    const size = (await fs.stat(path.join(dir, file))).size;
    const reader = await openParquetReader(new LocalFileStore(dir), file, { size });
    const batches: RecordBatch[] = [];
    for await (const batch of reader.readRowGroups({ columns })) batches.push(batch);
    expect(batches[0]!.schema.fields.map((f) => f.name)).toEqual(columns);
    const actual = canonBatches(reader.schemaFor(columns), batches);
    expect(actual).toEqual({ schema: expected.schema, numRows: expected.numRows, columns: expected.columns });
  });
});
