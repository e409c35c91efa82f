/**
 * A call that stops making progress never holds the others hostage. A data-file GET that never answers
 * (FaultyStore `hang`) while the upsert holds partition, file and fetch permits ends in a typed `timeout` —
 * through the whole-call deadline (`timeoutMs`) or the store's per-request deadline — and gives every permit back; upserts queued behind it on
 * the shared process budgets then finish. A call waiting for permits longer than `permitWaitTimeoutMs`
 * gets a typed `timeout` too. In every case the stalled table is left exactly as it was.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { limitsSnapshot, type ProcessBudgets } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore, type ObjectStore, withRequestTimeouts } from "@deltalite/object-store";
import { FaultyStore } from "@deltalite/object-store/testing";
import { ProbeCache } from "@deltalite/probe-cache";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type UpsertOptions, upsert } from "../src/index.js";
import {
  type BudgetTable,
  createTables,
  expectAllReturned,
  processBudgets,
  sourceBatch,
} from "./budget-tables.js";

/** One partition and one file at a time for the whole process: a stalled holder blocks everyone. */
const oneAtATime = () => processBudgets(1, 1, 256 * 1024 * 1024, 256 * 1024 * 1024);

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

const hangOnData = (inner: ObjectStore) =>
  new FaultyStore(inner, [{ method: "get", key: /\.parquet$/, fault: { type: "hang" } }]);

describe("bounds on waiting", () => {
  let oracle: Oracle;
  let dir: string;
  let table: BudgetTable;
  const uri = (name: string) => join(dir, name);
  const names = [
    "deadline",
    "stalled",
    "q0",
    "q1",
    "q2",
    "held",
    "waiter",
    "reference",
    "request",
    "r0",
    "r1",
  ];

  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-timeouts-"));
    table = await createTables(oracle, dir, names.map(uri), { rows: 1200, days: 3, appends: 2 });
  }, 120_000);
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const options = (budgets: ProcessBudgets, extra: Partial<UpsertOptions> = {}): UpsertOptions => ({
    primaryKeys: ["id"],
    partitionKey: "day",
    processBudgets: budgets,
    probeCache: new ProbeCache(0),
    ...extra,
  });
  const source = () => sourceBatch(table, 7, 10);

  it("a GET that never answers ends in a typed timeout at the call's deadline; nothing changes", async () => {
    const budgets = oneAtATime();
    const before = await filesUnder(uri("deadline"));
    const store = hangOnData(new LocalFileStore(uri("deadline")));
    const started = Date.now();
    const error = await upsert(
      await Snapshot.open(store),
      source(),
      options(budgets, { timeoutMs: 400 }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout" });
    expect(String((error as Error).message)).toContain("timeoutMs");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(store.fired).toBeGreaterThan(0);
    expect(await filesUnder(uri("deadline"))).toEqual(before);
    expectAllReturned(budgets);
  }, 60_000);

  it("a stalled upsert holding the only file permit (its probe's) frees it at its deadline; the queued ones finish", async () => {
    const budgets = oneAtATime();
    const before = await filesUnder(uri("stalled"));
    const stalledStore = hangOnData(new LocalFileStore(uri("stalled")));
    const stalled = upsert(
      await Snapshot.open(stalledStore),
      source(),
      options(budgets, { timeoutMs: 1500 }),
    );
    // Let the stalled call take its permits and block on its first data GET.
    while (stalledStore.fired === 0) await new Promise((r) => setTimeout(r, 10));
    expect(limitsSnapshot(budgets).files.available).toBe(0);
    const queued = ["q0", "q1", "q2"].map(async (name) =>
      upsert(await Snapshot.open(new LocalFileStore(uri(name))), source(), options(budgets)),
    );
    await new Promise((r) => setTimeout(r, 200));
    // A partition probes before it takes a partition permit: the queued calls' probes wait for the file.
    expect(limitsSnapshot(budgets).files.waiters).toBeGreaterThan(0);

    await expect(stalled).rejects.toMatchObject({ kind: "timeout" });
    const results = await Promise.all(queued);
    const reference = await upsert(
      await Snapshot.open(new LocalFileStore(uri("reference"))),
      source(),
      options(processBudgets(8, 16, 256 * 1024 * 1024, 256 * 1024 * 1024)),
    );
    for (const stats of results) {
      expect(stats.rowsUpdated).toBe(reference.rowsUpdated);
      expect(stats.rowsInserted).toBe(10);
    }
    expect(await filesUnder(uri("stalled"))).toEqual(before);
    expectAllReturned(budgets);
  }, 60_000);

  it("a stalled request hits its per-request deadline (typed, retryable) with no call deadline; the queued upserts finish", async () => {
    const budgets = oneAtATime();
    const before = await filesUnder(uri("request"));
    const faulty = hangOnData(new LocalFileStore(uri("request")));
    const store = withRequestTimeouts(faulty, { baseMs: 300, minThroughputBytesPerSec: 1024 * 1024 });
    const stalled = upsert(await Snapshot.open(store), source(), options(budgets));
    while (faulty.fired === 0) await new Promise((r) => setTimeout(r, 10));
    const queued = ["r0", "r1"].map(async (name) =>
      upsert(await Snapshot.open(new LocalFileStore(uri(name))), source(), options(budgets)),
    );
    const error = await stalled.catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout", retryable: true });
    for (const stats of await Promise.all(queued)) expect(stats.rowsInserted).toBe(10);
    expect(await filesUnder(uri("request"))).toEqual(before);
    expectAllReturned(budgets);
  }, 60_000);

  it("waiting longer than permitWaitTimeoutMs for a permit is a typed timeout; the waiter's table is unchanged", async () => {
    const budgets = oneAtATime();
    const heldStore = hangOnData(new LocalFileStore(uri("held")));
    const held = upsert(await Snapshot.open(heldStore), source(), options(budgets, { timeoutMs: 3000 }));
    while (heldStore.fired === 0) await new Promise((r) => setTimeout(r, 10));
    const before = await filesUnder(uri("waiter"));
    const started = Date.now();
    const error = await upsert(
      await Snapshot.open(new LocalFileStore(uri("waiter"))),
      source(),
      options(budgets, { permitWaitTimeoutMs: 300 }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout" });
    expect(String((error as Error).message)).toContain("permit-wait");
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await filesUnder(uri("waiter"))).toEqual(before);
    await expect(held).rejects.toMatchObject({ kind: "timeout" });
    expectAllReturned(budgets);
  }, 60_000);
});
