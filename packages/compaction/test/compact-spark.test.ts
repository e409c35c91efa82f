/**
 * Spark (pyspark + delta-spark, the engine that defines Delta) reads what compaction and Z-order commit, as
 * packages/deltalite/test/spark-interop.test.ts has it read our writes: the rows Spark reads after our
 * OPTIMIZE commits equal the rows before them (read by delta-rs) and the ids our own reader reads from the
 * compacted files; time travel to the version before a compaction still works in Spark.
 */
import { describe, expect, it } from "vitest";
import { compact, zOrder } from "../src/index.js";
import { openLocal, workspace } from "./oracle-tables.js";
import { buildZOrderTable, readFilesInOrder } from "./z-order-tables.js";

const ws = workspace("compaction-spark-");

interface Read {
  rows: Record<string, unknown>[];
  names: string[];
  count: number;
}

const sparkRead = (uri: string, version?: number) =>
  ws.oracle.call<Read>("spark_read_table", { uri, version });
const deltaRsRows = async (uri: string) =>
  (await ws.oracle.call<{ rows: Record<string, unknown>[] }>("merge_read", { uri })).rows;

/** The same rows as an order-free list of JSON texts (Spark and delta-rs sort their rows differently). */
const asSet = (rows: readonly Record<string, unknown>[]) =>
  rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort()))).sort();

/** The `id` of every row our reader reads from the table's live files, sorted. */
async function ourIds(uri: string): Promise<string[]> {
  const snapshot = await openLocal(uri);
  const files = await readFilesInOrder(
    snapshot,
    snapshot.files.map((f) => f.path),
    ["id"],
  );
  return files.flatMap((f) => f.ids.map(String)).sort();
}

const sparkIds = (read: Read) => read.rows.map((r) => String(r.id)).sort();

describe("Spark reads compacted and Z-ordered tables", () => {
  it("a partitioned table with deletes, compacted then Z-ordered", { timeout: 600_000 }, async () => {
    const { ours } = await ws.build(
      "spark-compact",
      [
        { op: "append", rows: 300, start: 0, parts: ["a", "b", "c"] },
        { op: "append", rows: 200, start: 300, parts: ["a", "b"], pad: 800 },
        { op: "append", rows: 100, start: 500, parts: ["c"] },
        { op: "delete", predicate: "id % 7 = 0" },
        { op: "append", rows: 150, start: 600, parts: ["a", "c"] },
      ],
      true,
    );
    const before = await deltaRsRows(ours);
    const beforeVersion = (await openLocal(ours)).version;

    const compacted = await compact(await openLocal(ours));
    expect(compacted.numFilesRemoved).toBeGreaterThan(compacted.numFilesAdded);
    const afterCompact = await sparkRead(ours);
    expect(afterCompact.count).toBe(before.length);
    expect(asSet(afterCompact.rows)).toEqual(asSet(before));
    expect(sparkIds(afterCompact)).toEqual(await ourIds(ours));
    const travelled = await sparkRead(ours, beforeVersion);
    expect(asSet(travelled.rows)).toEqual(asSet(before));

    const ordered = await zOrder(await openLocal(ours), ["id", "payload"]);
    expect(ordered.version).toBe(compacted.version + 1);
    const afterZOrder = await sparkRead(ours);
    expect(asSet(afterZOrder.rows)).toEqual(asSet(before));
    expect(sparkIds(afterZOrder)).toEqual(await ourIds(ours));
    expect(asSet(await deltaRsRows(ours))).toEqual(asSet(before));
  });

  it("a Z-ordered table of every key type (dates, timestamps, decimals, booleans, nulls)", {
    timeout: 300_000,
  }, async () => {
    const table = await buildZOrderTable(ws, "spark-zorder", {
      appends: 4,
      rows: 300,
      seed: 31,
      partitions: 2,
    });
    const before = await deltaRsRows(table.ours);
    const result = await zOrder(await openLocal(table.ours), ["d", "ts", "dec", "s"]);
    expect(result.numFilesRemoved).toBeGreaterThan(0);
    const read = await sparkRead(table.ours);
    expect(read.count).toBe(table.rows);
    expect(asSet(read.rows)).toEqual(asSet(before));
    expect(sparkIds(read)).toEqual(await ourIds(table.ours));
  });
});
