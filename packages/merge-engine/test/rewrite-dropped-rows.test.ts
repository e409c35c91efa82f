// The partition rewrite as a building block: `rewritePartition` hands the target rows it drops (the rows
// whose key the source replaces) to `onDroppedRows`, batch by decoded batch, before the survivors and the
// source rows are written — exactly the replaced rows with their old values, and nothing else. This is
// the seam change-data-feed pre-images build on.
import { writeNewTable } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { InMemoryStore } from "@deltalite/object-store";
import { Int64, type RecordBatch, Table, Utf8, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { defaultKeyHasher, planSource, rewritePartition } from "../src/index.js";

const rows = (ids: number[], tag: string) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    val: vectorFromArray(
      ids.map((i) => `${tag}-${i}`),
      new Utf8(),
    ),
  });

const idsOf = (batch: RecordBatch) =>
  Array.from({ length: batch.numRows }, (_, i) => Number(batch.get(i)?.id));

describe("rewritePartition's dropped-rows hook", () => {
  it("receives exactly the replaced target rows, with their old values, per decoded batch", async () => {
    const store = new InMemoryStore("memory://rewrite-dropped-rows");
    await writeNewTable(
      store,
      rows(
        Array.from({ length: 50 }, (_, i) => i),
        "old",
      ),
      {},
    );
    const snapshot = await Snapshot.open(store);
    const source = rows([5, 10, 11, 60], "new").batches[0]!;
    const [partition] = planSource({
      batches: [source],
      tableSchema: snapshot.schema,
      dataSchema: snapshot.schema,
      partitionColumn: undefined,
      partitionType: undefined,
      fileKeys: ["id"],
      label: "t",
    });
    const dropped: RecordBatch[] = [];
    const result = await rewritePartition({
      store,
      partition: partition!,
      partitionColumns: [],
      hitFiles: snapshot.files,
      dataSchema: snapshot.schema,
      configuration: {},
      targetFileSize: undefined,
      maxRowGroupBytes: undefined,
      maxRowGroupRows: undefined,
      codec: "snappy",
      multipartThresholdBytes: undefined,
      multipartPartSizeBytes: undefined,
      multipartConcurrency: undefined,
      read: { knobs: {}, batchRows: 8, signal: undefined },
      acquireFile: async () => ({ amount: 1, release() {} }),
      collection: undefined,
      hasher: defaultKeyHasher,
      signal: undefined,
      onFile: () => {},
      onDroppedRows: (batch) => {
        dropped.push(batch);
      },
    });
    expect(result.rowsUpdated).toBe(3);
    expect(result.rowsCopied).toBe(47);
    // Rows 0-7, 8-15, ... are decoded 8 at a time: id 5 in the first batch, ids 10 and 11 in the second.
    expect(dropped.map(idsOf)).toEqual([[5], [10, 11]]);
    expect(dropped.flatMap((b) => Array.from({ length: b.numRows }, (_, i) => b.get(i)?.val))).toEqual([
      "old-5",
      "old-10",
      "old-11",
    ]);
    expect(dropped.every((b) => b.schema.fields.map((f) => f.name).join() === "id,val")).toBe(true);
  });
});
