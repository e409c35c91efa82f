import { LocalFileStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { goldenTable } from "@deltalite/tools/fixtures";
import { describe, expect, it } from "vitest";
import { readParquetObjects } from "../src/index.js";

describe("readParquetObjects", () => {
  it("reads a Spark-written multi-part checkpoint into action objects, with no HEAD when the size is known", async () => {
    const store = new CountingStore(new LocalFileStore(goldenTable("multi-part-checkpoint")));
    const key = "_delta_log/00000000000000000001.checkpoint.0000000001.0000000002.parquet";
    const size = (await store.head(key)).size;
    store.reset();
    const rows = await readParquetObjects(store, key, { size });
    expect(store.counts.head.calls).toBe(0);
    expect(store.counts.get.calls).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeGreaterThan(0);
    const kinds = new Set(
      rows.flatMap((r) =>
        Object.entries(r)
          .filter(([, v]) => v != null)
          .map(([k]) => k),
      ),
    );
    expect([...kinds].some((k) => ["add", "metaData", "protocol", "remove", "txn"].includes(k))).toBe(true);
  });
});
