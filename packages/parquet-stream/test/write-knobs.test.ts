import { InMemoryStore } from "@deltalite/object-store";
import type { RecordBatch } from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readParquetObjects, writeParquetFiles } from "../src/index.js";
import { sequenceTable } from "./write-helpers.js";

/** Input rows 0..rows-1 cut into batches of the given sizes (cycled). */
function batchesOf(rows: number, sizes: number[]): RecordBatch[] {
  const out: RecordBatch[] = [];
  let start = 0;
  for (let i = 0; start < rows; i++) {
    const n = Math.min(rows - start, sizes[i % sizes.length] as number);
    out.push(...sequenceTable(start, n, 12).batches);
    start += n;
  }
  return out;
}

describe("writeParquetFiles: layout invariants for any knobs and batch shapes", () => {
  it("keeps every row once and in order, closes row groups exactly at the row cap, rolls files only past the target", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30_000 }),
        fc.array(fc.integer({ min: 1, max: 9_000 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 500, max: 12_000 }),
        fc.integer({ min: 20_000, max: 400_000 }),
        async (rows, sizes, rowCap, target) => {
          const store = new InMemoryStore();
          let n = 0;
          const files = await writeParquetFiles(store, batchesOf(rows, sizes), {
            schema: sequenceTable(0, 1, 12).schema,
            nextKey: () => `f${n++}.parquet`,
            maxRowGroupRows: rowCap,
            targetFileSize: target,
            codec: "uncompressed",
          });
          expect(files.reduce((s, f) => s + f.numRows, 0)).toBe(rows);
          files.forEach((file, i) => {
            const groups = file.metadata.row_groups.map((rg) => Number(rg.num_rows));
            expect(groups.reduce((s, g) => s + g, 0)).toBe(file.numRows);
            // Every group but a file's last is exactly the cap.
            for (const g of groups.slice(0, -1)) expect(g).toBe(rowCap);
            expect(groups[groups.length - 1]).toBeLessThanOrEqual(rowCap);
            if (i < files.length - 1) {
              expect(file.size).toBeGreaterThanOrEqual(target);
              // ...and it closed within one row group of the first boundary past the target (parquet-rs can
              // hold a small finished row group back until the next one completes when fed tiny batches).
              const chunkBytes = file.metadata.row_groups.map((rg) =>
                rg.columns.reduce((s, c) => s + Number(c.meta_data?.total_compressed_size ?? 0), 0),
              );
              expect(4 + chunkBytes.slice(0, -2).reduce((s, b) => s + b, 0)).toBeLessThan(target);
            }
          });
          const ids: bigint[] = [];
          for (const file of files) {
            const objects = await readParquetObjects(store, file.key, { size: file.size, columns: ["id"] });
            for (const o of objects) ids.push(o.id as bigint);
          }
          expect(ids).toEqual(Array.from({ length: rows }, (_, i) => BigInt(i)));
        },
      ),
      { numRuns: 25 },
    );
  });
});
