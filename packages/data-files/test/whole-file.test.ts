/**
 * Whole-file reads (read/whole-file.ts): one GET up to the ranged-GET part size, parallel ranged GETs above it,
 * always the exact bytes; the admission covers the file's size and is given back when the length is not the
 * Add's; a reader over the bytes reads the footer and columns with no request.
 */
import { InMemoryStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { writeParquetFiles } from "@deltalite/parquet-stream";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { fetchWholeFile, readerOverBytes } from "../src/index.js";

const file = (path: string, size: number) => ({ path, size }) as never;

function admissions() {
  const log = { admitted: 0, released: 0 };
  return {
    log,
    admission: {
      admitFetch: async (bytes: number) => {
        log.admitted += bytes;
        return () => {
          log.released += bytes;
        };
      },
      admitDecode: async () => () => undefined,
    },
  };
}

describe("fetchWholeFile", () => {
  it("one GET up to the part size, ranged GETs of that size above it, the same bytes", async () => {
    const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 31) % 251);
    const store = new CountingStore(new InMemoryStore());
    await store.put("f.bin", bytes);
    for (const [partSize, gets] of [
      [10_000, 1],
      [4096, 3],
      [1000, 10],
    ] as const) {
      store.reset();
      const { admission, log } = admissions();
      const whole = await fetchWholeFile(store, file("f.bin", 10_000), {
        admission,
        rangeGetPartSizeBytes: partSize,
        rangeGetConcurrency: 2,
      });
      expect(whole?.bytes).toEqual(bytes);
      expect(store.counts.get.calls).toBe(gets);
      expect(log.admitted).toBe(10_000);
      whole?.release();
      expect(log.released).toBe(10_000);
    }
  });

  it("a length other than the Add's: undefined, the admission given back", async () => {
    const store = new InMemoryStore();
    await store.put("f.bin", new Uint8Array(100));
    const { admission, log } = admissions();
    expect(await fetchWholeFile(store, file("f.bin", 120), { admission })).toBeUndefined();
    expect(log).toEqual({ admitted: 120, released: 120 });
  });

  it("a reader over the bytes makes no request", async () => {
    const inner = new InMemoryStore();
    const table = new Table({
      id: vectorFromArray([1n, 2n, 3n], new Int64()),
      s: vectorFromArray(["a", "b", "c"], new Utf8()),
    });
    const [written] = await writeParquetFiles(inner, table.batches, {
      schema: table.schema,
      nextKey: () => "t.parquet",
    });
    const store = new CountingStore(inner);
    const view = file("t.parquet", written?.size ?? 0);
    const whole = await fetchWholeFile(store, view, {});
    store.reset();
    const reader = await readerOverBytes(store, view, { size: written?.size ?? 0 }, whole!);
    const ids: bigint[] = [];
    for await (const batch of reader.readRowGroups({ columns: ["id"] })) {
      ids.push(...(batch.getChild("id")?.toArray() ?? []));
    }
    expect(ids).toEqual([1n, 2n, 3n]);
    expect(store.counts.get.calls).toBe(0);
    reader.close();
  });
});
