// The checkpoint prefetch's requests, counted with the CountingStore on the local store and on the moto S3
// server, with the process buffered budget of data-files installed into delta-log (as @deltalite/deltalite
// does). Opening a delta-rs table with a classic checkpoint at version 9 and k tail commits:
//
//   today (prefetch off):  1 GET _last_checkpoint + 1 LIST + 2 ranged GETs of the checkpoint + k commit GETs
//   prefetch on:           the same with 1 whole-file GET of the checkpoint (outcome "fetched")
//   busy budget, too large: today's requests, outcome "budget_exhausted" / "too_large"
//
// A multi-part checkpoint (the Spark golden table, 2 parts) costs one GET per part, the parts in flight
// together. The snapshot is the same either way, and the reservation is given back once the load is done.
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import {
  type CheckpointPrefetchOutcome,
  checkpointKey,
  onCheckpointPrefetch,
  Snapshot,
  useCheckpointPrefetchBudget,
} from "@deltalite/delta-log";
import { type GetOptions, LocalFileStore, type ObjectStore, openStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { goldenTable } from "@deltalite/tools/fixtures";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createProcessBudgets, type ProcessBudgets } from "../src/index.js";

const CAP = "DELTALITE_CHECKPOINT_PREFETCH_MAX_BYTES";

let oracle: Oracle;
let tmp: string;
let budgets: ProcessBudgets;
let outcomes: CheckpointPrefetchOutcome[];
let unsubscribe: () => void;
let previousBudget: ReturnType<typeof useCheckpointPrefetchBudget>;
let previousCap: string | undefined;

beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-ckpt-prefetch-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  budgets = createProcessBudgets({});
  previousBudget = useCheckpointPrefetchBudget(() => budgets.buffer);
  outcomes = [];
  unsubscribe = onCheckpointPrefetch((outcome) => outcomes.push(outcome));
  previousCap = process.env[CAP];
  delete process.env[CAP];
});
afterEach(() => {
  unsubscribe();
  useCheckpointPrefetchBudget(previousBudget);
  if (previousCap === undefined) delete process.env[CAP];
  else process.env[CAP] = previousCap;
});

let n = 0;
/** A delta-rs table with a checkpoint at version 9 and `k` commits after it. */
async function tableWithTail(k: number): Promise<string> {
  const uri = path.join(tmp, `t${n++}`);
  await oracle.call("delta_write", {
    uri,
    columns: { id: [1, 2], day: ["a", "b"] },
    partition_by: ["day"],
    configuration: { "delta.checkpointInterval": "10" },
    repeat: 10 + k,
  });
  return uri;
}

/** The requests of one operation: GET, HEAD, LIST, PUT, and the GETs of the checkpoint's files. */
function requests(store: CountingStore, checkpointFiles: readonly string[]) {
  const gets = store.log.filter((r) => r.method === "get");
  const ofCheckpoint = gets.filter((r) => checkpointFiles.includes(r.key));
  return {
    get: store.counts.get.calls,
    head: store.counts.head.calls,
    list: store.counts.list.calls,
    put: store.counts.put.calls + store.counts.putMultipart.calls,
    checkpointGets: ofCheckpoint.length,
    checkpointWholeGets: ofCheckpoint.filter((r) => r.range === undefined).length,
  };
}

/** What a snapshot holds, for comparing loads. */
function state(snapshot: Snapshot) {
  return {
    version: snapshot.version,
    protocol: snapshot.protocol,
    metadata: snapshot.metadata,
    files: snapshot.files
      .map((f) => ({ path: f.path, add: f.add }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    tombstones: snapshot.tombstones.length,
  };
}

async function uploadTo(store: ObjectStore, source: string, prefix = ""): Promise<void> {
  for (const entry of await fs.readdir(path.join(source, prefix), { withFileTypes: true })) {
    const key = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) await uploadTo(store, source, key);
    else await store.put(key, new Uint8Array(await fs.readFile(path.join(source, key))));
  }
}

async function s3Copy(source: string): Promise<ObjectStore> {
  const s3 = testS3();
  const bucket = await s3.createBucket(`ckpt-prefetch-${randomBytes(4).toString("hex")}`);
  const store = openStore(`s3://${bucket}/t`, { storageOptions: s3.storageOptions });
  await uploadTo(store, source);
  return store;
}

describe.each(["local", "s3"] as const)("a classic checkpoint on %s", (where) => {
  const open = async (k: number) => {
    const uri = await tableWithTail(k);
    return where === "local" ? new LocalFileStore(uri) : await s3Copy(uri);
  };
  const checkpoint = [checkpointKey(9)];

  it.each([0, 3])(
    "off (no budget, or a cap of 0) keeps today's requests, with %i tail commits",
    async (k) => {
      const inner = await open(k);
      const today = { get: 1 + 2 + k, head: 0, list: 1, put: 0, checkpointGets: 2, checkpointWholeGets: 0 };
      useCheckpointPrefetchBudget(undefined);
      const unbudgeted = new CountingStore(inner);
      const reference = await Snapshot.open(unbudgeted);
      expect(requests(unbudgeted, checkpoint)).toEqual(today);

      useCheckpointPrefetchBudget(() => budgets.buffer);
      process.env[CAP] = " 0 ";
      const disabled = new CountingStore(inner);
      expect(state(await Snapshot.open(disabled))).toEqual(state(reference));
      expect(requests(disabled, checkpoint)).toEqual(today);
      expect(outcomes).toEqual([]);
    },
  );

  it.each([0, 3])("on: the checkpoint is one whole-file GET, with %i tail commits", async (k) => {
    const inner = await open(k);
    useCheckpointPrefetchBudget(undefined);
    const reference = state(await Snapshot.open(inner));
    useCheckpointPrefetchBudget(() => budgets.buffer);

    const store = new CountingStore(inner);
    const snapshot = await Snapshot.open(store);
    expect(state(snapshot)).toEqual(reference);
    expect(requests(store, checkpoint)).toEqual({
      get: 1 + 1 + k,
      head: 0,
      list: 1,
      put: 0,
      checkpointGets: 1,
      checkpointWholeGets: 1,
    });
    expect(outcomes).toEqual(["fetched"]);
    // Released once the load is done.
    expect(budgets.buffer.snapshot()).toMatchObject({ available: budgets.buffer.total, waiters: 0 });
  });

  it("a busy budget falls back to range reads (budget_exhausted)", async () => {
    const inner = await open(1);
    const held = await budgets.buffer.acquire(budgets.buffer.total);
    try {
      const store = new CountingStore(inner);
      await Snapshot.open(store);
      expect(requests(store, checkpoint)).toMatchObject({ get: 4, list: 1, checkpointGets: 2 });
      expect(outcomes).toEqual(["budget_exhausted"]);
    } finally {
      held.release();
    }
    expect(budgets.buffer.snapshot().available).toBe(budgets.buffer.total);
  });

  it("a checkpoint over the cap falls back to range reads (too_large)", async () => {
    const inner = await open(1);
    const size = (await inner.head(checkpointKey(9))).size;
    process.env[CAP] = String(size - 1);
    const store = new CountingStore(inner);
    await Snapshot.open(store);
    expect(requests(store, checkpoint)).toMatchObject({ get: 4, list: 1, checkpointGets: 2 });
    expect(outcomes).toEqual(["too_large"]);
    expect(budgets.buffer.snapshot().available).toBe(budgets.buffer.total);

    process.env[CAP] = String(size);
    const fits = new CountingStore(inner);
    await Snapshot.open(fits);
    expect(requests(fits, checkpoint)).toMatchObject({ get: 3, checkpointGets: 1 });
    expect(outcomes).toEqual(["too_large", "fetched"]);
  });
});

/** Counts how many GETs of `keys` are in flight at once (each held back a little so overlaps show). */
class InFlight extends CountingStore {
  active = 0;
  peak = 0;
  constructor(
    inner: ObjectStore,
    readonly keys: readonly string[],
  ) {
    super(inner);
  }
  override async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    if (!this.keys.includes(key)) return super.get(key, options);
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return await super.get(key, options);
    } finally {
      this.active--;
    }
  }
}

describe("a multi-part checkpoint (Spark, 2 parts) on moto S3", () => {
  const parts = [
    "_delta_log/00000000000000000001.checkpoint.0000000001.0000000002.parquet",
    "_delta_log/00000000000000000001.checkpoint.0000000002.0000000002.parquet",
  ];

  it("off: today's range reads; on: one GET per part, both in flight together, same snapshot", async () => {
    const inner = await s3Copy(goldenTable("multi-part-checkpoint"));
    useCheckpointPrefetchBudget(undefined);
    const off = new InFlight(inner, parts);
    const reference = state(await Snapshot.open(off));
    const today = requests(off, parts);
    // Today: _last_checkpoint + per part a footer GET and a row-group GET; one LIST.
    expect(today).toEqual({ get: 5, head: 0, list: 1, put: 0, checkpointGets: 4, checkpointWholeGets: 0 });
    expect(off.peak).toBe(1);

    useCheckpointPrefetchBudget(() => budgets.buffer);
    const on = new InFlight(inner, parts);
    expect(state(await Snapshot.open(on))).toEqual(reference);
    expect(requests(on, parts)).toEqual({
      ...today,
      get: today.get - today.checkpointGets + 2,
      checkpointGets: 2,
      checkpointWholeGets: 2,
    });
    expect(on.peak).toBe(2);
    expect(outcomes).toEqual(["fetched", "fetched"]);
    expect(budgets.buffer.snapshot().available).toBe(budgets.buffer.total);
  });

  it("a cap that holds only the first part fetches it and range-reads the second (too_large)", async () => {
    const inner = await s3Copy(goldenTable("multi-part-checkpoint"));
    const first = (await inner.head(parts[0]!)).size;
    const second = (await inner.head(parts[1]!)).size;
    process.env[CAP] = String(first + second - 1);
    const store = new CountingStore(inner);
    await Snapshot.open(store);
    const gets = store.log.filter((r) => r.method === "get");
    expect(gets.filter((r) => r.key === parts[0]).map((r) => r.range)).toEqual([undefined]);
    expect(gets.filter((r) => r.key === parts[1]).length).toBeGreaterThanOrEqual(2);
    expect(gets.filter((r) => r.key === parts[1]).every((r) => r.range !== undefined)).toBe(true);
    expect(outcomes).toEqual(["fetched", "too_large"]);
  });
});

describe.each([
  ["v2-checkpoint-parquet", 3],
  ["v2-checkpoint-json", 2],
  ["checkpoint", 1],
] as const)("the Spark golden table %s", (name, parquetFiles) => {
  it("loads the same with the prefetch on; every Parquet file of it (sidecars included) is one GET", async () => {
    const inner = await s3Copy(goldenTable(name));
    useCheckpointPrefetchBudget(undefined);
    const off = new CountingStore(inner);
    const reference = state(await Snapshot.open(off));
    useCheckpointPrefetchBudget(() => budgets.buffer);
    const on = new CountingStore(inner);
    expect(state(await Snapshot.open(on))).toEqual(reference);
    const checkpointish = (key: string) => key.includes(".checkpoint") || key.includes("_sidecars/");
    const parquetGets = on.log.filter(
      (r) => r.method === "get" && checkpointish(r.key) && r.key.endsWith(".parquet"),
    );
    expect(parquetGets.every((r) => r.range === undefined)).toBe(true);
    expect(new Set(parquetGets.map((r) => r.key)).size).toBe(parquetGets.length);
    expect(outcomes).toEqual(Array(parquetGets.length).fill("fetched"));
    expect(parquetGets.length).toBe(parquetFiles);
    expect(on.counts.list.calls).toBe(off.counts.list.calls);
    expect(on.counts.head.calls).toBe(off.counts.head.calls);
  });
});
