/**
 * `readChanges` against delta-rs 1.6.6 `load_cdf`, on the same tables: random sequences of upserts with a
 * delete flag and deletes by filter (the scenarios of merge-engine's upsert-cdf suite), run through OUR
 * upsert / delete on one copy and through delta-rs MERGE / delete on another, sometimes with appends, an
 * overwrite and a delta-rs OPTIMIZE (dataChange: false, contributes nothing) after them. On both tables our
 * change read equals delta-rs's — rows, `_change_type` and `_commit_version`, commit timestamps ignored —
 * over the whole log and over random sub-ranges; a filter and a projection equal the unfiltered read
 * filtered and projected.
 */
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { upsert } from "../../merge-engine/src/index.js";
import { oracleWorkspace } from "../../merge-engine/test/oracle-workspace.js";
import {
  FLAG,
  keysOf,
  type Row,
  type Scenario,
  scenarioArb,
  tableOf,
} from "../../merge-engine/test/upsert-scenarios.js";
import { deleteWhere, type ScanFilterCondition, writeExistingTable } from "../src/index.js";
import { ourChanges, theirChanges } from "./changes-helpers.js";

const RUNS = Number(process.env.DELTALITE_CHANGES_PARITY_RUNS ?? 40);
const PARTS = ["a", "b", "c"];
const CDF = { "delta.enableChangeDataFeed": "true" };
const ws = oracleWorkspace("deltalite-changes-parity-");

type Delete = { filter: ScanFilterCondition[]; sql: string };
type Step = Row[] | Delete;

const deleteArb: fc.Arbitrary<Delete> = fc.oneof(
  fc
    .integer({ min: 0, max: 20 })
    .map((v) => ({ filter: [{ column: "id", op: "ge" as const, value: v }], sql: `id >= ${v}` })),
  fc
    .constantFrom(...PARTS)
    .map((p) => ({ filter: [{ column: "part", op: "eq" as const, value: p }], sql: `part = '${p}'` })),
);

/** After the upserts and deletes: maybe an append, an overwrite, an OPTIMIZE (each on both tables). */
const tailArb = fc.record({ append: fc.boolean(), overwrite: fc.boolean(), optimize: fc.boolean() });

async function applySteps(s: Scenario, steps: Step[], ours: string, theirs: string): Promise<void> {
  const keys = keysOf(s);
  const store = new LocalFileStore(ours);
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
}

async function applyTail(tail: { append: boolean; overwrite: boolean; optimize: boolean }, roots: string[]) {
  const row = (id: number): Row => ({ id, k2: "x", name: `t${id}`, part: "a", del: null });
  for (const root of roots) {
    const store = new LocalFileStore(root);
    if (tail.append)
      await writeExistingTable(await Snapshot.open(store), tableOf([row(30), row(31)], false), {
        mode: "append",
      });
    if (tail.overwrite)
      await writeExistingTable(await Snapshot.open(store), tableOf([row(40)], false), { mode: "overwrite" });
    if (tail.append || tail.overwrite)
      await writeExistingTable(await Snapshot.open(store), tableOf([row(50)], false), { mode: "append" });
    if (tail.optimize) await ws.oracle.call("delta_optimize", { uri: root });
  }
}

type CanonicalRow = Record<string, unknown>;
const byJson = (rows: CanonicalRow[]) =>
  [...rows].sort((x, y) => {
    const [a, b] = [JSON.stringify(x), JSON.stringify(y)];
    return a < b ? -1 : a > b ? 1 : 0;
  });

/** A filter on change and partition columns and a projection = the full read filtered and projected. */
async function expectFilteredRead(root: string, all: CanonicalRow[], types: string[], from: number) {
  const filter: ScanFilterCondition[] = [
    { column: "_change_type", op: "in", value: types },
    { column: "part", op: "ne", value: "b" },
    { column: "_commit_version", op: "ge", value: from },
  ];
  const got = await ourChanges(
    ws.oracle,
    ws.dir,
    root,
    { startingVersion: 0 },
    { columns: ["name", "id"], filter },
  );
  const expected = all
    .filter((r) => types.includes(String(r._change_type)) && r.part !== null && r.part !== "b")
    .filter((r) => Number(r._commit_version) >= from)
    .map((r) => ({
      name: r.name,
      id: r.id,
      _change_type: r._change_type,
      _commit_version: r._commit_version,
    }));
  expect(byJson(got.rows)).toEqual(byJson(expected));
  for (const batch of got.batches) {
    expect(batch.schema.fields.map((f) => f.name)).toEqual([
      "name",
      "id",
      "_change_type",
      "_commit_version",
      "_commit_timestamp",
    ]);
  }
}

describe("readChanges = delta-rs load_cdf, on our table and on delta-rs's", () => {
  let n = 0;
  const seen = { types: new Set<string>(), rows: 0, subRanges: 0 };
  it(
    `${RUNS} random sequences of upserts with deletes and deletes by filter`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          scenarioArb(PARTS),
          fc.array(deleteArb, { maxLength: 2 }),
          tailArb,
          fc.tuple(fc.nat(), fc.nat()),
          fc.subarray(["insert", "delete", "update_preimage", "update_postimage"], { minLength: 1 }),
          async (s, deletes, tail, [a, b], types) => {
            const ours = join(ws.dir, `ours-${n}`);
            const theirs = join(ws.dir, `theirs-${n++}`);
            await ws.oracle.call("merge_create", {
              uris: [ours, theirs],
              data: await ws.ipc(tableOf(s.initial, false)),
              partition_by: s.partitioned ? ["part"] : null,
              appends: s.appends,
              configuration: CDF,
            });
            const steps: Step[] = [...s.batches];
            for (const [i, d] of deletes.entries()) steps.splice(Math.min(steps.length, 1 + 2 * i), 0, d);
            await applySteps(s, steps, ours, theirs);
            await applyTail(tail, [ours, theirs]);
            for (const root of [ours, theirs]) {
              const mine = await ourChanges(ws.oracle, ws.dir, root, { startingVersion: 0 });
              const reference = await theirChanges(ws.oracle, root, { starting_version: 0 });
              expect(mine.rows).toEqual(reference.rows);
              seen.rows += mine.count;
              for (const r of mine.rows) seen.types.add(String(r._change_type));
              const latest = (await Snapshot.open(new LocalFileStore(root))).version;
              const start = a % (latest + 1);
              const end = start + (b % (latest - start + 1));
              const part = await ourChanges(ws.oracle, ws.dir, root, {
                startingVersion: start,
                endingVersion: end,
              });
              const partRef = await theirChanges(ws.oracle, root, {
                starting_version: start,
                ending_version: end,
              });
              expect(part.rows).toEqual(partRef.rows);
              seen.subRanges++;
              await expectFilteredRead(root, reference.rows, types, start);
            }
          },
        ),
        { numRuns: RUNS, seed: Number(process.env.DELTALITE_CHANGES_PARITY_SEED ?? 20261202) },
      );
      expect(seen.subRanges).toBe(2 * RUNS);
      expect(seen.rows).toBeGreaterThan(RUNS * 10);
      expect([...seen.types].sort()).toEqual(["delete", "insert", "update_postimage", "update_preimage"]);
    },
    Math.max(180_000, RUNS * 6_000),
  );
});
