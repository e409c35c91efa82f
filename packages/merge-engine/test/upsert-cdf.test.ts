/**
 * Change data written on tables with `delta.enableChangeDataFeed=true`, against delta-rs 1.6.6: random
 * sequences of upserts with a delete flag (the scenarios of upsert-delete-parity.test.ts) and deletes by
 * filter, on the same starting table, through ours and through delta-rs MERGE / delete. delta-rs
 * `load_cdf` over our table then equals `load_cdf` over its own (rows and `_change_type`, commit
 * timestamps ignored; commit versions too, since our upsert commits a batch that changes nothing and
 * delta-rs does not), and the table contents are equal. Our change-data files sit under `_change_data/`
 * and are listed by `cdc` actions with `dataChange: false`. Plain partition values only: delta-rs cannot
 * read its own change-data files under escaped partition paths (reference/anchors-measured.md). Also: an
 * overwrite of a CDF table is allowed (readers derive its changes, as delta-rs writes none).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { deleteWhere, type ScanFilterCondition, writeExistingTable } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";
import { oracleWorkspace } from "./oracle-workspace.js";
import { FLAG, keysOf, type Row, scenarioArb, tableOf } from "./upsert-scenarios.js";

const RUNS = Number(process.env.DELTALITE_UPSERT_CDF_RUNS ?? 200);
const PARTS = ["a", "b", "c"];
const CDF = { "delta.enableChangeDataFeed": "true" };
const ws = oracleWorkspace("deltalite-upsert-cdf-");

/** A delete step: our filter and the same condition as delta-rs SQL. */
const deleteArb = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map((v) => ({
    filter: [{ column: "id", op: "ge", value: v }] as ScanFilterCondition[],
    sql: `id >= ${v}`,
  })),
  fc.constantFrom(...PARTS).map((p) => ({
    filter: [{ column: "part", op: "eq", value: p }] as ScanFilterCondition[],
    sql: `part = '${p}'`,
  })),
  fc.tuple(fc.integer({ min: 0, max: 20 }), fc.constantFrom(...PARTS)).map(([v, p]) => ({
    filter: [
      { column: "id", op: "le", value: v },
      { column: "part", op: "ne", value: p },
    ] as ScanFilterCondition[],
    sql: `id <= ${v} AND part <> '${p}'`,
  })),
);

type Cdf = { changes: unknown[] };

async function cdcActions(root: string) {
  const log = join(root, "_delta_log");
  const out: { path: string; dataChange: boolean }[] = [];
  for (const name of (await readdir(log)).filter((f) => f.endsWith(".json"))) {
    for (const line of (await readFile(join(log, name), "utf8")).split("\n")) {
      if (line.includes('"cdc"')) out.push(JSON.parse(line).cdc);
    }
  }
  return out;
}

describe("change data written = delta-rs's, read by delta-rs load_cdf", () => {
  let n = 0;
  const seen = { cdcFiles: 0, types: new Set<string>() };
  it(
    `${RUNS} random sequences of upserts with deletes and deletes by filter`,
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb(PARTS), fc.array(deleteArb, { maxLength: 2 }), async (s, deletes) => {
          const ours = join(ws.dir, `ours-${n}`);
          const theirs = join(ws.dir, `theirs-${n++}`);
          await ws.oracle.call("merge_create", {
            uris: [ours, theirs],
            data: await ws.ipc(tableOf(s.initial, false)),
            partition_by: s.partitioned ? ["part"] : null,
            appends: s.appends,
            configuration: CDF,
          });
          const keys = keysOf(s);
          const store = new LocalFileStore(ours);
          const steps: (Row[] | (typeof deletes)[number])[] = [...s.batches];
          for (const [i, d] of deletes.entries()) steps.splice(Math.min(steps.length, 1 + 2 * i), 0, d);
          for (const step of steps) {
            if (Array.isArray(step)) {
              await upsert(await Snapshot.open(store), tableOf(step, true), {
                primaryKeys: keys,
                ...(s.partitioned ? { partitionKey: "part" } : {}),
                deleteColumn: FLAG,
                pruneStrategy: s.strategy,
                readBatchSize: s.readBatchSize,
              });
              await ws.oracle.call("merge_delta_rs", {
                uri: theirs,
                source: await ws.ipc(tableOf(step, true)),
                keys,
                partition_key: s.partitioned ? "part" : null,
                delete_column: FLAG,
              });
            } else {
              await deleteWhere(await Snapshot.open(store), step.filter);
              await ws.oracle.call("delete_delta_rs", { uri: theirs, predicate: step.sql });
            }
          }
          const a = await ws.oracle.call<Cdf>("cdf_rows", { uri: ours });
          const b = await ws.oracle.call<Cdf>("cdf_rows", { uri: theirs });
          expect(a.changes).toEqual(b.changes);
          const ra = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: ours });
          const rb = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
          expect(ra.rows).toEqual(rb.rows);
          const cdc = await cdcActions(ours);
          for (const action of cdc) {
            expect(action.path.startsWith("_change_data/")).toBe(true);
            expect(action.dataChange).toBe(false);
          }
          seen.cdcFiles += cdc.length;
          for (const row of a.changes as { _change_type: string }[]) seen.types.add(row._change_type);
        }),
        { numRuns: RUNS, seed: Number(process.env.DELTALITE_UPSERT_CDF_SEED ?? 20261201) },
      );
      expect(seen.cdcFiles).toBeGreaterThan(RUNS);
      expect([...seen.types].sort()).toEqual(["delete", "insert", "update_postimage", "update_preimage"]);
    },
    Math.max(180_000, RUNS * 3_000),
  );

  it("missingColumns keep: post-images keep the target's values, as delta-rs MERGE writes them", async () => {
    const [ours, theirs] = [join(ws.dir, "keep-ours"), join(ws.dir, "keep-theirs")];
    const initial = [0, 1, 2, 3].map((i) => ({
      id: i,
      k2: "x",
      name: `n${i}`,
      part: PARTS[i % 2]!,
      del: null,
    }));
    await ws.oracle.call("merge_create", {
      uris: [ours, theirs],
      data: await ws.ipc(tableOf(initial, false)),
      partition_by: ["part"],
      configuration: CDF,
    });
    const full = tableOf(
      [0, 1, 2, 9].map((i) => ({ id: i, k2: null, name: "", part: PARTS[i % 2]!, del: i === 2 })),
      true,
    );
    const partial = full.select(["id", "part", FLAG]);
    await upsert(await Snapshot.open(new LocalFileStore(ours)), partial, {
      primaryKeys: ["id"],
      partitionKey: "part",
      deleteColumn: FLAG,
      missingColumns: "keep",
    });
    await ws.oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ws.ipc(partial),
      keys: ["id"],
      partition_key: "part",
      delete_column: FLAG,
    });
    const a = await ws.oracle.call<Cdf>("cdf_rows", { uri: ours, starting_version: 1 });
    const b = await ws.oracle.call<Cdf>("cdf_rows", { uri: theirs, starting_version: 1 });
    expect(a.changes.length).toBe(6); // 2 × (pre + post), 1 delete, 1 insert
    expect(a.changes).toEqual(b.changes);
  });

  it("an overwrite of a CDF table commits; delta-rs derives its changes", async () => {
    const root = join(ws.dir, "overwrite");
    await ws.oracle.call("merge_create", {
      uris: [root],
      data: await ws.ipc(tableOf([{ id: 1, k2: "x", name: "a", part: "a", del: null }], false)),
      partition_by: ["part"],
      configuration: CDF,
    });
    const written = await writeExistingTable(
      await Snapshot.open(new LocalFileStore(root)),
      tableOf([{ id: 2, k2: "y", name: "b", part: "b", del: null }], false),
      { mode: "overwrite" },
    );
    expect(written.committed).toBe(true);
    const cdf = await ws.oracle.call<{
      rows: { id: string; _change_type: string; _commit_version: number }[];
    }>("cdf_rows", { uri: root, starting_version: 1 });
    expect(cdf.rows.map((r) => [r.id, r._change_type, r._commit_version])).toEqual([
      ["1", "delete", 1],
      ["2", "insert", 1],
    ]);
  });
});
