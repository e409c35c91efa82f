/**
 * `zOrder` against delta-rs 1.6.6 `optimize.z_order` on random tables (partitioned and not) over column sets
 * of every key type (int64, int32, double, string, date, timestamp, decimal, boolean; nulls, negatives and
 * empty strings included): the same removed files, the same metrics but the added files' sizes, the same
 * operationParameters plus our `zOrderBy`, unchanged content (delta-rs reads ours), and the same row order.
 * Row order: delta-rs's sort is not stable, so rows of equal key may come in any order; each file's rows are
 * compared as the sequence of (key, ids of that key), and delta-rs's own output must be sorted by OUR key —
 * which fails unless both compute the same key.
 */
import { describe, expect, it } from "vitest";
import { zOrder } from "../src/index.js";
import { type OracleCommit, openLocal, removedByPartition, workspace } from "./oracle-tables.js";
import { buildZOrderTable, isSorted, keyGroups, readFilesInOrder } from "./z-order-tables.js";

const ws = workspace("compaction-zorder-parity-");

const COLUMN_SETS: string[][] = [
  ["x", "y"],
  ["s", "f64"],
  ["d", "ts", "dec"],
  ["i32", "flag", "s", "x"],
  ["f64"],
];

const rows = async (uri: string) => (await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri })).rows;

/** Metrics but the added files' sizes (codecs differ: ours is parquet-wasm's ZSTD, theirs level 4). */
function comparable(metrics: Record<string, unknown>) {
  const { filesAdded, ...rest } = metrics;
  return rest;
}

describe("zOrder: parity with delta-rs optimize.z_order", () => {
  const cases = COLUMN_SETS.flatMap((columns, i) => [
    { columns, partitions: 0, seed: 100 + i },
    { columns, partitions: 3, seed: 200 + i },
  ]);
  it.each(cases)(
    "columns $columns, $partitions partitions, seed $seed",
    async ({ columns, partitions, seed }) => {
      const name = `t${seed}`;
      const table = await buildZOrderTable(ws, name, { appends: 4, rows: 400, seed, partitions });
      const before = await rows(table.theirs);
      const theirs = await ws.oracle.call<{
        version: number;
        metrics: Record<string, unknown>;
        commit: OracleCommit;
      }>("optimize_z_order", { uri: table.theirs, columns });
      const result = await zOrder(await openLocal(table.ours), columns);
      expect(result.version).toBe(theirs.version);
      const ours = await ws.oracle.call<OracleCommit>("optimize_commit", {
        uri: table.ours,
        version: result.version,
      });

      expect(removedByPartition(ours.removed)).toEqual(removedByPartition(theirs.commit.removed));
      expect(ours.added.every((a) => a.dataChange === false)).toBe(true);
      expect(ours.removed.every((r) => r.dataChange === false)).toBe(true);
      const ourMetrics = ours.commitInfo.operationMetrics ?? {};
      expect(comparable(ourMetrics)).toEqual(comparable(theirs.commit.commitInfo.operationMetrics ?? {}));
      expect(ours.commitInfo.operation).toBe("OPTIMIZE");
      const { zOrderBy, ...parameters } = ours.commitInfo.operationParameters ?? {};
      expect(parameters).toEqual(theirs.commit.commitInfo.operationParameters);
      expect(zOrderBy).toBe(JSON.stringify(columns));

      expect(await rows(table.ours)).toEqual(before);
      expect(await rows(table.theirs)).toEqual(before);

      const ourFiles = await readFilesInOrder(
        await openLocal(table.ours),
        ours.added.map((a) => a.path),
        columns,
      );
      const theirFiles = await readFilesInOrder(
        await openLocal(table.theirs),
        theirs.commit.added.map((a) => a.path),
        columns,
      );
      const byPartition = (files: typeof ourFiles) =>
        Object.fromEntries(files.map((f) => [f.partition, keyGroups(f)]));
      for (const f of [...ourFiles, ...theirFiles]) expect(isSorted(f.keys), f.path).toBe(true);
      expect(byPartition(ourFiles)).toEqual(byPartition(theirFiles));
    },
  );
});
