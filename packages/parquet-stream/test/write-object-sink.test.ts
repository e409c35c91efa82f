import { InMemoryStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { Int64, Table, type Vector, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readParquetFooter, type WrittenFile, writeParquetFiles } from "../src/index.js";
import { ObjectSink, TAIL_BYTES } from "../src/write/object-sink.js";

/** `length` bytes numbered from `start` (mod 251, so shifted windows differ). */
function bytesFrom(start: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (start + i) % 251;
  return out;
}

describe("ObjectSink: the stored object and the tail it reports", () => {
  it("stores the chunks' concatenation and returns its last TAIL_BYTES bytes, single put or multipart", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fc.integer({ min: 0, max: 4096 }), fc.integer({ min: 0, max: TAIL_BYTES + 4096 })),
          { minLength: 1, maxLength: 12 },
        ),
        fc.constantFrom(1 << 12, 1 << 20, 3 << 20, 64 << 20),
        async (sizes, multipartThresholdBytes) => {
          const store = new InMemoryStore();
          const sink = new ObjectSink(store, "part-0.parquet", {
            mode: "create",
            uniqueKey: true,
            multipartThresholdBytes,
            partSizeBytes: 5 << 20,
            concurrency: 2,
            signal: undefined,
          });
          let offset = 0;
          for (const size of sizes) {
            await sink.write(bytesFrom(offset, size));
            offset += size;
          }
          const { size, tail } = await sink.finish();
          const whole = bytesFrom(0, offset);
          expect(size).toBe(offset);
          expect(sink.multipart).toBe(offset > 0 && offset >= multipartThresholdBytes);
          expect(
            Buffer.from(tail).equals(Buffer.from(whole.subarray(Math.max(0, offset - TAIL_BYTES)))),
          ).toBe(true);
          const stored = await store.get("part-0.parquet");
          expect(Buffer.from(stored).equals(Buffer.from(whole))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("writeParquetFiles: a footer longer than the sink's tail", () => {
  it("is read back with one ranged GET, and describes the file the store holds", async () => {
    // 120 columns × 24 row groups: a footer of several hundred KiB, beyond the 256 KiB the sink keeps.
    const columns: Record<string, Vector> = {};
    for (let c = 0; c < 120; c++) {
      columns[`c${c}`] = vectorFromArray(
        Array.from({ length: 2400 }, (_, i) => BigInt(i * 120 + c)),
        new Int64(),
      );
    }
    const table = new Table(columns);
    const store = new CountingStore(new InMemoryStore());
    const [file, ...more] = await writeParquetFiles(store, table.batches, {
      schema: table.schema,
      nextKey: () => "wide.parquet",
      maxRowGroupRows: 100,
    });
    expect(more).toEqual([]);
    const written = file as WrittenFile;
    expect(Number(written.metadata.metadata_length)).toBeGreaterThan(TAIL_BYTES);
    expect(written.metadata.row_groups.length).toBe(24);
    expect(Number(written.metadata.num_rows)).toBe(2400);
    expect(store.counts.get.calls).toBe(1);
    const stored = await readParquetFooter(store, "wide.parquet", { size: written.size });
    expect(Number(stored.metadata_length)).toBe(Number(written.metadata.metadata_length));
  });
});
