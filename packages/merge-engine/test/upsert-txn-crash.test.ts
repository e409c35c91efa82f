/**
 * Exactly-once under crashes: a child process (the BUILT packages: `pnpm exec tsc -b` first) applies a
 * sequence of numbered batches — upserts with deletes — each with `txn: { appId: "cdc", version: i }`, and
 * is SIGKILLed at a random store operation (seeded; before the operation or while it runs). The batches are
 * then redelivered from the start by a fresh child. Right after each kill the table holds batches 1..k
 * exactly (commits and rows of a clean run after k batches: a MERGE is atomic). For every one of ≥ 50 kill
 * points the redelivered table then holds
 * each batch exactly once — its rows equal a clean run's (a NULL-key row per batch would double if a batch
 * were applied twice) — and the commits carrying appId "cdc" are exactly the batch numbers 1..N, in order.
 */
import { spawnSync } from "node:child_process";
import { cp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import {
  Bool,
  type DataType,
  Field,
  Int64,
  Schema,
  Table,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";
import { oracleWorkspace } from "./oracle-workspace.js";

const here = dirname(fileURLToPath(import.meta.url));
const KILLS = Number(process.env.DELTALITE_TXN_CRASH_KILLS ?? 50);
const BATCHES = 6;
const APP = "cdc";

// Written next to this file at run time (bare imports resolve through this package's node_modules).
const CHILD = `
import { readFileSync } from "node:fs";
import { tableFromIPC } from "apache-arrow";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { upsert } from "../dist/index.js";
const [dir, batchDir, count, killAtText] = process.argv.slice(2);
const killAt = Number(killAtText);
let ops = 0;
const local = new LocalFileStore(dir);
const store = new Proxy(local, {
  get(target, prop) {
    const value = Reflect.get(target, prop);
    if (typeof value !== "function") return value;
    return (...args) => {
      ops++;
      if (ops === killAt) {
        if (killAt % 2 === 1) process.kill(process.pid, "SIGKILL");
        setImmediate(() => process.kill(process.pid, "SIGKILL"));
      }
      return value.apply(target, args);
    };
  },
});
for (let i = 1; i <= Number(count); i++) {
  const batch = tableFromIPC(readFileSync(batchDir + "/batch-" + i + ".arrow"));
  await upsert(await Snapshot.open(store), batch, {
    primaryKeys: ["id"],
    partitionKey: "part",
    deleteColumn: "_del",
    txn: { appId: "${APP}", version: i },
  });
}
process.stdout.write(JSON.stringify({ ops }));
`;

type Columns = Record<string, { type: DataType; values: unknown[] }>;
function tableOf(columns: Columns): Table {
  const fields = Object.entries(columns).map(([name, c]) => new Field(name, c.type, true));
  const vectors = Object.fromEntries(
    Object.entries(columns).map(([name, c]) => [name, vectorFromArray(c.values, c.type)]),
  );
  return new Table(new Schema(fields), vectors as never);
}

/** Batch i: updates keys, inserts new ones, deletes one, and inserts one NULL-key row (never idempotent). */
function batch(i: number): Table {
  const ids: (bigint | null)[] = [BigInt(i), BigInt(i + 10), BigInt(100 + i), BigInt((i * 3 + 1) % 10), null];
  const parts = ids.map((id) => (id === null ? "a" : ["a", "b"][Number(id % 2n)]!));
  return tableOf({
    id: { type: new Int64(), values: ids },
    name: { type: new Utf8(), values: ids.map((id) => `b${i}-${String(id)}`) },
    part: { type: new Utf8(), values: parts },
    _del: { type: new Bool(), values: [false, null, false, true, false] },
  });
}

/** A small PRNG (mulberry32): the kill points are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The txn versions of appId `APP` in commit order. */
async function appCommits(dir: string): Promise<number[]> {
  const log = join(dir, "_delta_log");
  const out: number[] = [];
  for (const name of (await readdir(log)).filter((f) => /^\d{20}\.json$/.test(f)).sort()) {
    for (const line of (await readFile(join(log, name), "utf8")).split("\n")) {
      if (!line.trim()) continue;
      const action = JSON.parse(line);
      if (action.txn?.appId === APP) out.push(action.txn.version);
    }
  }
  return out;
}

describe("exactly-once batches under SIGKILL", () => {
  const ws = oracleWorkspace("deltalite-txn-crash-");
  let child: string;
  beforeAll(async () => {
    child = join(here, `.upsert-txn-crash-child-${process.pid}.mjs`);
    await writeFile(child, CHILD);
  });
  afterAll(async () => {
    await rm(child, { force: true });
  });

  const run = (dir: string, killAt: number) =>
    spawnSync(process.execPath, [child, dir, ws.dir, String(BATCHES), String(killAt)], { encoding: "utf8" });

  it(`${KILLS} random kill points, each followed by redelivery from the start`, async () => {
    const pristine = join(ws.dir, "pristine");
    const clean = join(ws.dir, "clean");
    const initial = tableOf({
      id: { type: new Int64(), values: Array.from({ length: 20 }, (_, i) => BigInt(i)) },
      name: { type: new Utf8(), values: Array.from({ length: 20 }, (_, i) => `old-${i}`) },
      part: { type: new Utf8(), values: Array.from({ length: 20 }, (_, i) => ["a", "b"][i % 2]) },
    });
    await ws.oracle.call("merge_create", {
      uris: [pristine, clean],
      data: await ws.ipc(initial),
      partition_by: ["part"],
      appends: 2,
    });
    // The clean run's rows after each batch (states[k]: batches 1..k applied).
    const states = [(await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: clean })).rows];
    for (let i = 1; i <= BATCHES; i++) {
      await writeFile(join(ws.dir, `batch-${i}.arrow`), tableToIPC(batch(i), "file"));
      await upsert(await Snapshot.open(new LocalFileStore(clean)), batch(i), {
        primaryKeys: ["id"],
        partitionKey: "part",
        deleteColumn: "_del",
      });
      states.push((await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: clean })).rows);
    }

    // The store operations of a whole run from the pristine table: kill points are drawn from them.
    const probe = join(ws.dir, "probe");
    await cp(pristine, probe, { recursive: true });
    const full = run(probe, 0);
    expect(full.stderr).toBe("");
    const totalOps = (JSON.parse(full.stdout) as { ops: number }).ops;
    expect(totalOps).toBeGreaterThan(BATCHES * 5);

    const random = prng(Number(process.env.DELTALITE_TXN_CRASH_SEED ?? 20261201));
    const killedAt = new Set<number>();
    const partial = new Set<number>(); // how many batches had landed at the kills
    for (let trial = 0; trial < KILLS; trial++) {
      const dir = join(ws.dir, `trial-${trial}`);
      await cp(pristine, dir, { recursive: true });
      const killAt = 1 + Math.floor(random() * totalOps);
      const killed = run(dir, killAt);
      expect(killed.signal, `kill at op ${killAt}`).toBe("SIGKILL");
      killedAt.add(killAt);
      // Right after the kill: batches 1..k applied, each once, and the rows are the clean run's after k.
      const applied = await appCommits(dir);
      expect(applied, `commits of ${APP} right after a kill at op ${killAt}`).toEqual(
        Array.from({ length: applied.length }, (_, i) => i + 1),
      );
      const crashed = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: dir });
      expect(crashed.rows, `rows right after a kill at op ${killAt}`).toEqual(states[applied.length]);
      partial.add(applied.length);
      const redelivered = run(dir, 0);
      expect(redelivered.stderr, `redelivery after a kill at op ${killAt}`).toBe("");
      expect(redelivered.status).toBe(0);
      expect(await appCommits(dir), `commits of ${APP} after a kill at op ${killAt}`).toEqual(
        Array.from({ length: BATCHES }, (_, i) => i + 1),
      );
      const got = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: dir });
      expect(got.rows, `rows after a kill at op ${killAt}`).toEqual(states[BATCHES]);
      await rm(dir, { recursive: true, force: true });
    }
    expect(killedAt.size).toBeGreaterThan(KILLS / 2);
    expect(partial.size).toBeGreaterThanOrEqual(BATCHES - 1); // kills landed before, between and in batches
  }, 600_000);
});
