import * as fs from "node:fs/promises";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { fixturesDir, goldenTable } from "@deltalite/tools/fixtures";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { type RecordBatch, Table } from "apache-arrow";
import type { SchemaElement } from "hyparquet";
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

/** The leaf schema elements under each top-level column of a flat Parquet schema list. */
function leavesByTopLevelColumn(schema: SchemaElement[]): Map<string, SchemaElement[]> {
  const out = new Map<string, SchemaElement[]>();
  let at = 1;
  const walk = (into: SchemaElement[]) => {
    const element = schema[at++]!;
    if (!element.num_children) into.push(element);
    for (let k = 0; k < (element.num_children ?? 0); k++) walk(into);
  };
  while (at < schema.length) {
    const name = schema[at]!.name;
    const leaves: SchemaElement[] = [];
    walk(leaves);
    out.set(name, leaves);
  }
  return out;
}

async function dataFiles(root: string, inLog = false): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".parquet") && e.parentPath.includes("_delta_log") === inLog)
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
    await expectFilesMatchPyarrow(goldenTable(table));
  });
});

describe("reading every data file of the shared fixtures (golden and DAT)", () => {
  it("every Parquet data file under fixtures/ decodes to pyarrow's values and types", async () => {
    const files = await expectFilesMatchPyarrow(fixturesDir());
    expect(files).toBeGreaterThan(300);
  }, 600_000);

  it("every checkpoint Parquet file (nested actions, maps, parsed stats) decodes to pyarrow's values", async () => {
    const files = await expectFilesMatchPyarrow(fixturesDir(), true);
    expect(files).toBeGreaterThan(20);
  }, 600_000);
});

/** Decodes every data file under `root` and compares with pyarrow; returns how many files were compared. */
async function expectFilesMatchPyarrow(root: string, inLog = false): Promise<number> {
  const files = await dataFiles(root, inLog);
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
    // schema, leaves it without a time zone. Columns holding INT96 leaves (and no timestamp_ntz leaf) get
    // that one difference accepted; everything else must match exactly.
    for (const [name, leaves] of leavesByTopLevelColumn(reader.metadata.schema)) {
      const int96 = leaves.some((e) => e.type === "INT96");
      const ntz = leaves.some((e) => e.logical_type?.type === "TIMESTAMP" && !e.logical_type.isAdjustedToUTC);
      if (!int96 || ntz) continue;
      expect(actual.schema[name]).toContain("timestamp(us,UTC)");
      expected.schema[name] = expected.schema[name]!.replaceAll("timestamp(us,)", "timestamp(us,UTC)");
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
    if (!slices) {
      // The same file decoded in row ranges of 7 rows gives the same values.
      const ranged: RecordBatch[] = [];
      for await (const batch of reader.readRowGroups({ batchRows: 7 })) ranged.push(batch);
      expect(ranged.every((b) => b.numRows <= 7)).toBe(true);
      expect({ file, ranged: canonBatches(reader.arrowSchema, ranged).columns }).toEqual({
        file,
        ranged: actual.columns,
      });
    }
  }
  return files.length;
}
