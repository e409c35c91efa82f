import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import type { RecordBatch } from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openParquetReader } from "../src/index.js";
import { type CanonicalTable, canonBatches } from "./read-canonical.js";

let oracle: Oracle;
let dir: string;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "read-property-"));
});
afterAll(async () => {
  oracle.close();
  await fs.rm(dir, { recursive: true, force: true });
});

// Random data (type matrix with a random seed), random layout (row-group size, page size, page version,
// dictionary, codec) and random read batch size: our decoding always equals pyarrow's.
const layout = fc.record({
  seed: fc.nat({ max: 1_000_000 }),
  rows: fc.integer({ min: 0, max: 400 }),
  row_group_size: fc.integer({ min: 1, max: 250 }),
  data_page_size: fc.integer({ min: 64, max: 8192 }),
  data_page_version: fc.constantFrom("1.0", "2.0"),
  use_dictionary: fc.boolean(),
  compression: fc.constantFrom("none", "snappy", "zstd", "gzip"),
  batchRows: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
});

describe("random files and layouts", () => {
  it("decode to pyarrow's values whatever the data, row groups, pages, codec and batch size", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(layout, async ({ batchRows, ...options }) => {
        const file = `p${run++}.parquet`;
        await oracle.call("parquet_write_type_matrix", { path: path.join(dir, file), ...options });
        const expected = await oracle.call<CanonicalTable>("parquet_read_canonical", {
          path: path.join(dir, file),
        });
        const size = (await fs.stat(path.join(dir, file))).size;
        const reader = await openParquetReader(new LocalFileStore(dir), file, { size });
        const batches: RecordBatch[] = [];
        for await (const batch of reader.readRowGroups(batchRows ? { batchRows } : {})) batches.push(batch);
        expect(canonBatches(reader.arrowSchema, batches)).toEqual({
          schema: expected.schema,
          numRows: expected.numRows,
          columns: expected.columns,
        });
        await fs.rm(path.join(dir, file));
      }),
      { numRuns: 12 },
    );
  }, 300_000);
});
