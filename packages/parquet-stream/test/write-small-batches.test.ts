import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { type RecordBatch, tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeParquetFiles } from "../src/index.js";
import { encoderSlices } from "../src/write/wasm-batches.js";
import { canonicalRows, sequenceTable } from "./write-helpers.js";

let oracle: Oracle;
let dir: string;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await mkdtemp(join(tmpdir(), "deltalite-small-batches-"));
});

afterAll(async () => {
  oracle.close();
  await rm(dir, { recursive: true, force: true });
});

/** `batches` re-cut into sliced pieces of 1..7 rows (non-zero offsets into shared buffers). */
function tinyPieces(batches: readonly RecordBatch[]): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (const batch of batches) {
    for (let start = 0, k = 0; start < batch.numRows; k++) {
      const end = Math.min(batch.numRows, start + 1 + (k % 7));
      out.push(batch.slice(start, end));
      start = end;
    }
  }
  return out;
}

async function countSlices(batches: RecordBatch[], maxSliceBytes: number, maxSliceRows: number) {
  const rows: number[] = [];
  for await (const slice of encoderSlices(
    batches,
    batches[0]!.schema,
    { maxSliceBytes, maxSliceRows },
    undefined,
  )) {
    rows.push(slice.numRows);
  }
  return rows;
}

describe("writeParquetFiles: many small batches", () => {
  it("pyarrow and delta-rs read back exactly the rows of the type matrix fed in pieces of 1–7 rows", async () => {
    const path = join(dir, "matrix.arrow");
    await oracle.call("parquet_type_matrix", { out: path, rows: 300, seed: 5 });
    const batches = tableFromIPC(await readFile(path)).batches;
    const tableDir = join(dir, "table");
    let n = 0;
    const files = await writeParquetFiles(new LocalFileStore(tableDir), tinyPieces(batches), {
      schema: batches[0]!.schema,
      nextKey: () => `part-${n++}.parquet`,
      maxRowGroupRows: 128,
    });
    expect(files).toHaveLength(1);
    expect(files[0]!.metadata.row_groups.map((rg) => Number(rg.num_rows))).toEqual([128, 128, 44]);
    const expected = canonicalRows(batches);
    const fromPyarrow = await oracle.call<{ rows: unknown[] }>("parquet_canonical", {
      files: [join(tableDir, files[0]!.key)],
    });
    expect(fromPyarrow.rows).toEqual(expected);
    const fromDeltaRs = await oracle.call<{ rows: unknown[] }>("delta_read_parquet", {
      dir: tableDir,
      files: [{ path: files[0]!.key, size: files[0]!.size }],
    });
    const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(fromDeltaRs.rows)).toEqual(sorted(expected));
  });

  it("crosses into WASM as few slices as the limits allow", async () => {
    const small = Array.from({ length: 100 }, (_, i) => sequenceTable(i * 10, 10, 12).batches[0]!);
    // 100 batches of 10 rows: one slice, then cut by the row limit, then by the byte limit.
    expect(await countSlices(small, 4 << 20, 65_536)).toEqual([1000]);
    expect(await countSlices(small, 4 << 20, 250)).toEqual([250, 250, 250, 250]);
    const bytesPerBatch = 10 * (8 + 12 + 4); // id int64 + 12-char strings + their offsets, about
    const slices = await countSlices(small, bytesPerBatch * 30, 65_536);
    expect(slices.reduce((s, r) => s + r, 0)).toBe(1000);
    expect(slices.length).toBeGreaterThan(2);
    for (const rows of slices) expect(rows).toBeLessThanOrEqual(400);
  });

  it("never holds back a small slice of a large batch (it keeps the large batch's memory alive)", async () => {
    const large = sequenceTable(0, 50_000, 12).batches[0]!;
    const pieces = [large.slice(0, 10), large.slice(10, 20), ...sequenceTable(0, 20, 12).batches];
    // The large batch keeps ~1.6 MB alive; each of its 10-row slices counts ~0.6 MB (its whole string buffer).
    expect(await countSlices(pieces, 1 << 20, 65_536)).toEqual([10, 10, 20]);
  });
});
