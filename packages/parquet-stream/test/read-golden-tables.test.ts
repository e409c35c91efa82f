import * as fs from "node:fs/promises";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { goldenTable } from "@deltalite/tools/fixtures";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { type RecordBatch, Table } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openParquetReader } from "../src/index.js";
import { type CanonicalTable, canonBatches } from "./read-canonical.js";

// Spark-written data files of the delta-io golden tables: every data file is decoded by our reader and by
// pyarrow (INT96 read at microseconds), and the canonical values and types must agree.
const tables = [
  "data-reader-primitives",
  "data-reader-array-primitives",
  "data-reader-array-complex-objects",
  "data-reader-nested-struct",
  "data-reader-map",
  "data-reader-timestamp_ntz",
  "data-reader-date-types-UTC",
  "decimal-various-scale-precision",
  "basic-decimal-table",
  "basic-decimal-table-legacy",
  "parquet-decimal-dictionaries",
  "parquet-decimal-dictionaries-v2",
  "parquet-decimal-type",
  "kernel-timestamp-INT96",
  "kernel-timestamp-TIMESTAMP_MICROS",
  "kernel-timestamp-TIMESTAMP_MILLIS",
  "parquet-all-types",
  "parquet-all-types-legacy-format",
  "124-decimal-decode-bug",
];

const BIG_FILE_ROWS = 200_000;
const SLICE_ROWS = 20_000;

async function dataFiles(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".parquet") && !e.parentPath.includes("_delta_log"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

let oracle: Oracle;
beforeAll(async () => {
  oracle = await connectOracle();
});
afterAll(() => oracle.close());

describe("reading Spark-written data files of the golden tables", () => {
  it.each(tables)("%s: every data file decodes to pyarrow's values and types", async (table) => {
    const root = goldenTable(table);
    const files = await dataFiles(root);
    expect(files.length).toBeGreaterThan(0);
    const store = new LocalFileStore(root);
    for (const file of files) {
      const size = (await fs.stat(path.join(root, file))).size;
      const reader = await openParquetReader(store, file, { size });
      const batches: RecordBatch[] = [];
      for await (const batch of reader.readRowGroups()) batches.push(batch);
      // Files of a million rows are compared on three 20k-row slices (start, middle, end): pyarrow's
      // canonicalization of every row costs ~10 s per file on this VM. All rows are still decoded here.
      const numRows = reader.numRows;
      const slices =
        numRows > BIG_FILE_ROWS
          ? [
              [0, SLICE_ROWS],
              [Math.floor(numRows / 2), SLICE_ROWS],
              [numRows - SLICE_ROWS, SLICE_ROWS],
            ]
          : undefined;
      const expected = await oracle.call<CanonicalTable>("parquet_read_canonical", {
        path: path.join(root, file),
        ...(slices ? { slices } : {}),
      });
      const decoded = new Table(batches);
      const compared = slices
        ? slices.flatMap(([offset, length]) => decoded.slice(offset, offset! + length!).batches)
        : batches;
      const actual = { ...canonBatches(reader.arrowSchema, compared), numRows: decoded.numRows };
      // INT96 is Spark's instant timestamp: we type it timestamp(us, UTC); pyarrow, lacking the Delta
      // schema, leaves it without a time zone. Everything else must match exactly.
      const int96 = reader.metadata.schema.filter((e) => e.type === "INT96").map((e) => e.name);
      for (const name of int96) {
        expect(actual.schema[name]).toBe("timestamp(us,UTC)");
        expect(expected.schema[name]).toBe("timestamp(us,)");
        expected.schema[name] = actual.schema[name]!;
      }
      expect({ file, schema: actual.schema }).toEqual({ file, schema: expected.schema });
      expect({ file, numRows: actual.numRows }).toEqual({ file, numRows: expected.numRows });
      for (const column of Object.keys(expected.columns)) {
        expect({ file, column, values: actual.columns[column] }).toEqual({
          file,
          column,
          values: expected.columns[column],
        });
      }
    }
  });
});
