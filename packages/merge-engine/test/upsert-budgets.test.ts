/**
 * The upsert's memory follows its budgets: live fetched bytes (counted as GETs return them at the store,
 * until the upsert gives back their admission) stay within maxFetchBytes and live decoded batches within
 * maxBufferedBytes, plus one oversized unit — for one upsert on its per-call budgets and for four
 * concurrent upserts sharing small process-wide budgets. Each check is shown able to fail: the same
 * upsert without a binding budget goes past the small one. Tiny budgets (1 KiB, one file, one partition)
 * still finish, every permit comes back, and the content equals the unbudgeted run's as delta-rs reads it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { ProbeCache } from "@deltalite/probe-cache";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UpsertOptions } from "../src/index.js";
import { upsertWithHooks } from "../src/internal.js";
import {
  type BudgetTable,
  createTables,
  expectAllReturned,
  LiveBytes,
  MeteredStore,
  processBudgets,
  sourceBatch,
} from "./budget-tables.js";

const KIB = 1024;
/** Updates every 41st row: coprime with the 4 days, so every file of every day holds updated keys. */
const STRIDE = 41;
const MIB = 1024 * KIB;

const roomy = () => processBudgets(64, 256, 4096 * MIB, 4096 * MIB);

/** Eager knobs: many partitions, probes and row groups in flight unless a budget says otherwise. */
const eager: Partial<UpsertOptions> = {
  maxParallelPartitions: 4,
  maxParallelFiles: 16,
  probeConcurrency: 8,
  readAheadRowGroups: 3,
  readBatchSize: 256,
};

describe("the upsert's budgets", () => {
  let oracle: Oracle;
  let dir: string;
  let table: BudgetTable;
  let UPDATED = 0;
  const uri = (name: string) => join(dir, name);
  const names = [
    "single",
    "single-free",
    "held",
    "held-free",
    "c0",
    "c1",
    "c2",
    "c3",
    "f0",
    "f1",
    "f2",
    "f3",
  ].concat(["t0", "t1", "t2", "t3"].flatMap((t) => [`${t}-1`, `${t}-8`]));

  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-budgets-"));
    // 4 days × 6 appends = 24 files of ~250 rows (~70 KB each).
    table = await createTables(oracle, dir, names.map(uri), { rows: 6000, days: 4, appends: 6 });
    UPDATED = Math.floor(table.rows / STRIDE);
    expect(table.files).toBe(24);
  }, 120_000);
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function run(
    name: string,
    meter: LiveBytes,
    options: Partial<UpsertOptions>,
    arrivalDelayMs = 0,
    passthroughHeldBytes?: number,
  ) {
    const store = new MeteredStore(new LocalFileStore(uri(name)), meter, arrivalDelayMs);
    return upsertWithHooks(
      await Snapshot.open(store),
      sourceBatch(table, STRIDE, 50),
      { primaryKeys: ["id"], partitionKey: "day", probeCache: new ProbeCache(0), ...options },
      // The JavaScript probe: its decoded key batches are part of what the decode budget bounds here (the
      // native value hashes decode nothing on this thread).
      { budgetObserver: meter, valueHashProbe: false, passthroughHeldBytes },
    );
  }

  const read = async (name: string) =>
    (await oracle.call<{ rows: unknown[] }>("merge_read", { uri: uri(name) })).rows;

  it("one upsert: live fetched and decoded bytes stay within its own budgets (+ one unit)", async () => {
    const free = new LiveBytes();
    const freeBudgets = roomy();
    const unbounded = await run("single-free", free, {
      ...eager,
      maxFetchBytes: 1024 * MIB,
      maxBufferedBytes: 1024 * MIB,
      processBudgets: freeBudgets,
    });

    const limits = { maxFetchBytes: 96 * KIB, maxBufferedBytes: 32 * KIB };
    const meter = new LiveBytes();
    const budgets = roomy();
    const stats = await run("single", meter, { ...eager, ...limits, processBudgets: budgets });

    // Able to fail: left alone, the same upsert holds more than the budgets allow.
    expect(free.peakFetched).toBeGreaterThan(limits.maxFetchBytes);
    expect(free.peakDecoded).toBeGreaterThan(limits.maxBufferedBytes);
    // Every data-file byte the store returned was admitted first, and the live bytes stayed in budget.
    expect(meter.arrivedTotal).toBeGreaterThan(0);
    expect(meter.arrivedTotal + meter.handedOverTotal).toBe(meter.admittedTotal);
    expect(meter.fetched).toBe(0);
    expect(meter.decoded).toBe(0);
    expect(meter.peakFetched).toBeLessThanOrEqual(limits.maxFetchBytes + meter.largestFetchAdmission);
    expect(meter.peakDecoded).toBeLessThanOrEqual(limits.maxBufferedBytes + meter.largestBatch);
    expect(meter.largestBatch).toBeLessThan(limits.maxBufferedBytes);

    expect(stats.filesRemoved).toBe(unbounded.filesRemoved);
    expect(stats.filesRemoved).toBe(table.files);
    expect(stats).toMatchObject({ rowsUpdated: UPDATED, rowsInserted: 50 });
    expect(await read("single")).toEqual(await read("single-free"));
    expectAllReturned(budgets);
    expectAllReturned(freeBudgets);
  }, 120_000);

  it("whole files held to pass through stay within the call's passthrough bound (+ one file)", async () => {
    // Fetches arrive late and the probe reads one file at a time, so what piles up is the rewrite's whole
    // files waiting for the encoder worker: all of them at once when only the fetch budget bounds them.
    const knobs: Partial<UpsertOptions> = { ...eager, probeConcurrency: 1, processBudgets: roomy() };
    const free = new LiveBytes();
    const unbounded = await run("held-free", free, knobs, 5, 1024 * MIB);
    const meter = new LiveBytes();
    const stats = await run("held", meter, knobs, 5, 1);

    expect(unbounded.filesPassedThrough).toBe(table.files);
    expect(stats.filesPassedThrough).toBe(table.files);
    // Able to fail: left alone, the rewrite holds more than two files' bytes at once.
    expect(free.peakFetched).toBeGreaterThan(2 * free.largestFetchAdmission);
    // Held alone: one whole file, and the one file the probe reads beside it.
    expect(meter.peakFetched).toBeLessThanOrEqual(2 * meter.largestFetchAdmission);
    expect(meter.fetched).toBe(0);
    expect(stats).toMatchObject({ rowsUpdated: UPDATED, rowsInserted: 50, filesRemoved: table.files });
    expect(await read("held")).toEqual(await read("held-free"));
  }, 120_000);

  it("four concurrent upserts: the sum of their live bytes stays within the shared process budgets", async () => {
    const shared = { fetch: 128 * KIB, buffer: 128 * KIB };
    // The writer hands rows to its encoder (a worker thread) every 128 KiB and each data-file GET's bytes
    // arrive 5 ms before the reader gets them, so without a binding budget the fetches pile up (they did
    // not on a fast local disk once encoding left the reading thread: the precondition below failed).
    const concurrent: Partial<UpsertOptions> = { ...eager, maxRowGroupBytes: MIB };
    const ARRIVAL_DELAY_MS = 5;
    const freeMeter = new LiveBytes();
    const freeBudgets = roomy();
    await Promise.all(
      ["f0", "f1", "f2", "f3"].map((name) =>
        run(name, freeMeter, { ...concurrent, processBudgets: freeBudgets }, ARRIVAL_DELAY_MS),
      ),
    );
    expect(freeMeter.peakFetched).toBeGreaterThan(shared.fetch);
    // Decoded batches no longer pile up here even without a budget: each stream hands its batch on before
    // it decodes the next, and encoding runs on the encoder worker, so the writer never keeps the reader
    // waiting with a batch in hand. The decoded bound below is still checked; the tiny-budget cases and
    // the single upsert above are where the decoded budget has to bind.
    expect(freeMeter.peakDecoded).toBeGreaterThan(0);

    const meter = new LiveBytes();
    // Only the byte budgets are small: partitions and files leave plenty of concurrency.
    const budgets = processBudgets(64, 256, shared.buffer, shared.fetch);
    const results = await Promise.all(
      ["c0", "c1", "c2", "c3"].map((name) =>
        run(name, meter, { ...concurrent, processBudgets: budgets }, ARRIVAL_DELAY_MS),
      ),
    );
    expect(meter.arrivedTotal + meter.handedOverTotal).toBe(meter.admittedTotal);
    expect(meter.peakFetched).toBeLessThanOrEqual(shared.fetch + meter.largestFetchAdmission);
    expect(meter.peakDecoded).toBeLessThanOrEqual(shared.buffer + meter.largestBatch);
    for (const stats of results) expect(stats).toMatchObject({ rowsUpdated: UPDATED, rowsInserted: 50 });
    const expected = await read("f0");
    for (const name of ["c0", "c1", "c2", "c3", "f1", "f2", "f3"]) expect(await read(name)).toEqual(expected);
    expectAllReturned(budgets);
  }, 180_000);

  it.each([
    ["one partition and one file", 1, 1],
    ["many partitions and files", 8, 64],
  ])(
    "tiny byte budgets (1 KiB for the call and the process) with %s never deadlock",
    async (_, partitions, files) => {
      const budgets = processBudgets(partitions, files, 1, 1);
      const tiny: Partial<UpsertOptions> = {
        ...eager,
        maxParallelPartitions: Math.min(partitions, 4),
        maxParallelFiles: Math.min(files, 16),
        maxFetchBytes: 1,
        maxBufferedBytes: 1,
        processBudgets: budgets,
      };
      const meter = new LiveBytes();
      const names = ["t0", "t1", "t2", "t3"].map((t) => `${t}-${partitions}`);
      const results = await Promise.all(names.map((name) => run(name, meter, tiny)));
      for (const stats of results) expect(stats).toMatchObject({ rowsUpdated: UPDATED, rowsInserted: 50 });
      // One unit at a time: a request larger than the whole budget runs alone.
      expect(meter.peakFetched).toBeLessThanOrEqual(KIB + meter.largestFetchAdmission);
      const expected = await read("single-free");
      for (const name of names) expect(await read(name)).toEqual(expected);
      expectAllReturned(budgets);
    },
    60_000,
  );
});
