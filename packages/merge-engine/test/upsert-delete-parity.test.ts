/**
 * Property: the upsert with a `deleteColumn` equals delta-rs 1.6.6 MERGE with `when_matched_delete` on the
 * flag, then `when_matched_update_all` and `when_not_matched_insert_all` (where the flag is not true) on the
 * rest, the flag column excepted — over random sequences of 2–5 batches on a random starting table (written
 * by delta-rs, copied byte for byte): long, string and composite keys, partitioned or not, NULL keys, flags
 * true / false / NULL, keys that move partition, a random prune strategy and read batch size. After every
 * batch the row counts (deleted, inserted, updated) equal delta-rs's metrics and our MERGE commit carries
 * `numTargetRowsDeleted`; at the end delta-rs reads both tables to the same rows and schema, and the flag
 * column is in neither. Runs: DELTALITE_UPSERT_DELETE_RUNS (default 200).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";
import { oracleWorkspace } from "./oracle-workspace.js";
import { FLAG, keysOf, scenarioArb, tableOf } from "./upsert-scenarios.js";

const RUNS = Number(process.env.DELTALITE_UPSERT_DELETE_RUNS ?? 200);
const PARTS = ["a", "b", "sp ace"];
const ws = oracleWorkspace("deltalite-upsert-delete-");

async function commitInfoOf(root: string, version: number) {
  const text = await readFile(join(root, "_delta_log", `${String(version).padStart(20, "0")}.json`), "utf8");
  return text
    .split("\n")
    .map((line) => JSON.parse(line))
    .find((a) => a.commitInfo).commitInfo;
}

describe("upsert with deleteColumn = delta-rs MERGE with a delete clause", () => {
  let n = 0;
  const seen = { deletedRows: 0, deleteRowsUnmatched: 0, partitioned: 0, nullKeyDeletes: 0 };
  it(
    `${RUNS} random sequences`,
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb(PARTS), async (s) => {
          const ours = join(ws.dir, `ours-${n}`);
          const theirs = join(ws.dir, `theirs-${n++}`);
          await ws.oracle.call("merge_create", {
            uris: [ours, theirs],
            data: await ws.ipc(tableOf(s.initial, false)),
            partition_by: s.partitioned ? ["part"] : null,
            appends: s.appends,
          });
          if (s.partitioned) seen.partitioned++;
          const keys = keysOf(s);
          const store = new LocalFileStore(ours);
          for (const rows of s.batches) {
            const stats = await upsert(await Snapshot.open(store), tableOf(rows, true), {
              primaryKeys: keys,
              ...(s.partitioned ? { partitionKey: "part" } : {}),
              deleteColumn: FLAG,
              pruneStrategy: s.strategy,
              readBatchSize: s.readBatchSize,
            });
            const expected = await ws.oracle.call<{ metrics: Record<string, number> }>("merge_delta_rs", {
              uri: theirs,
              source: await ws.ipc(tableOf(rows, true)),
              keys,
              partition_key: s.partitioned ? "part" : null,
              delete_column: FLAG,
            });
            expect(stats.rowsDeleted).toBe(expected.metrics.num_target_rows_deleted);
            expect(stats.rowsInserted).toBe(expected.metrics.num_target_rows_inserted);
            expect(stats.rowsUpdated).toBe(expected.metrics.num_target_rows_updated);
            const deletes = rows.filter((r) => r.del === true).length;
            expect(stats.sourceDeleteRows).toBe(deletes);
            expect(stats.rowsInserted + stats.sourceRowsMatched + stats.sourceDeleteRows).toBe(rows.length);
            const info = await commitInfoOf(ours, stats.version);
            expect(info.operationMetrics.numTargetRowsDeleted).toBe(stats.rowsDeleted);
            seen.deletedRows += stats.rowsDeleted;
            seen.deleteRowsUnmatched += deletes - stats.rowsDeleted;
            seen.nullKeyDeletes += rows.filter(
              (r) => r.del && keys.some((k) => r[k as "id"] === null),
            ).length;
          }
          const a = await ws.oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: ours });
          const b = await ws.oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: theirs });
          expect(a.rows).toEqual(b.rows);
          expect(a.schema).toEqual(b.schema);
          expect(JSON.stringify(a.schema)).not.toContain(FLAG);
        }),
        { numRuns: RUNS, seed: Number(process.env.DELTALITE_UPSERT_DELETE_SEED ?? 20261201) },
      );
      console.log("upsert delete parity coverage", seen);
      expect(seen.deletedRows).toBeGreaterThan(RUNS);
      expect(seen.deleteRowsUnmatched).toBeGreaterThan(RUNS / 2);
      expect(seen.partitioned).toBeGreaterThan(RUNS / 4);
      expect(seen.nullKeyDeletes).toBeGreaterThan(0);
    },
    Math.max(180_000, RUNS * 3_000),
  );
});
