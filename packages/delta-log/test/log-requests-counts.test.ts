// Requests per warm upsert through a table handle, counted with the CountingStore on the local file system
// and on the moto S3 server, for each of the log-request switches on and off. Measured before the switches
// existed (the `today` row): each upsert LISTed `_delta_log/` before planning, put its commit, then LISTed
// again and read its own commit back — 2 LIST + 1 GET + 1 PUT under `_delta_log/`. With every switch on a
// warm upsert with no other writer sends no LIST at all: a 404 GET of the next commit and a HEAD of the
// anchor to refresh, a HEAD of the anchor before the commit put, the put. Requests to data files are the same
// in every row (the switches only touch the log).
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { DeltaLiteError } from "@deltalite/errors";
import { LocalFileStore, openStore } from "@deltalite/object-store";
import { CountingStore, EtaglessStore, FaultyStore } from "@deltalite/object-store/testing";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commitKey,
  type LogProbeEvent,
  onLogProbe,
  type RequestSwitchName,
  writeCheckpoint,
} from "../src/index.js";
import {
  DeltaLiteTable,
  LOG_SWITCHES,
  openHandle,
  type Requests,
  requestsOf,
  rows,
  withSwitchesOff,
} from "./helpers/handle-rig.js";

const TODAY: Requests = { get: 1, head: 0, list: 2, put: 1 };

/** Switches turned off → `_delta_log/` requests of one warm upsert. */
const CASES: { off: RequestSwitchName[]; log: Requests }[] = [
  { off: LOG_SWITCHES, log: TODAY },
  { off: [], log: { get: 1, head: 2, list: 0, put: 1 } },
  { off: ["probeRefresh"], log: { get: 0, head: 1, list: 1, put: 1 } },
  { off: ["optimisticCommitVersion"], log: { get: 1, head: 1, list: 0, put: 1 } },
  { off: ["commitJsonCache"], log: { get: 1, head: 2, list: 0, put: 1 } },
  // The post-commit refresh LISTs again, but the own commit comes from the cache (seeded, not read back).
  { off: ["adoptCommitSnapshot"], log: { get: 1, head: 2, list: 1, put: 1 } },
  { off: ["adoptCommitSnapshot", "commitJsonCache"], log: { get: 2, head: 2, list: 1, put: 1 } },
  {
    off: ["optimisticCommitVersion", "commitJsonCache", "adoptCommitSnapshot"],
    log: { get: 2, head: 1, list: 1, put: 1 },
  },
];

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-log-requests-"));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Backend {
  name: string;
  uri(name: string): Promise<string>;
  storageOptions(): Record<string, string> | undefined;
}

const local: Backend = {
  name: "local",
  uri: async (name) => path.join(tmp, name),
  storageOptions: () => undefined,
};
let bucket: string | undefined;
const s3: Backend = {
  name: "moto S3",
  uri: async (name) => {
    const server = testS3();
    bucket ??= await server.createBucket(`log-requests-${Date.now().toString(36)}`);
    return `s3://${bucket}/${name}`;
  },
  storageOptions: () => testS3().storageOptions,
};

let n = 0;
/** A fresh partitioned table written by us and a handle over a counting store of it. */
async function freshHandle(backend: Backend, configuration?: Record<string, string>) {
  const uri = await backend.uri(`t${n++}`);
  const storageOptions = backend.storageOptions();
  await DeltaLiteTable.write(uri, rows([1, 2, 3, 4, 5, 6], 0), {
    storageOptions,
    partitionBy: ["day"],
    configuration,
  });
  const store = new CountingStore(openStore(uri, { storageOptions }));
  return { uri, store, table: await openHandle(store) };
}

/** Three upserts through one handle; the requests of the second and third (the first warms the handle). */
async function warmUpserts(backend: Backend) {
  const { store, table } = await freshHandle(backend);
  const measured: ReturnType<typeof requestsOf>[] = [];
  for (let i = 0; i < 3; i++) {
    store.reset();
    const stats = await table.upsert(rows([2, 7 + i], i + 1), { primaryKeys: ["id"] });
    expect(stats.version).toBe(i + 1);
    if (i > 0) measured.push(requestsOf(store));
  }
  return { measured, table };
}

describe.each([local, s3])("requests per warm upsert on $name", (backend) => {
  let baseline: Requests[] = [];

  it.each(CASES)("switches off: $off", async ({ off, log }) => {
    const { measured, table } = await withSwitchesOff(off, () => warmUpserts(backend));
    for (const requests of measured) expect(requests.log, requests.logKeys.join("\n")).toEqual(log);
    // Data-file requests do not depend on the log switches (the first case is today's).
    if (baseline.length === 0) baseline = measured.map((m) => m.data);
    expect(measured.map((m) => m.data)).toEqual(baseline);
    expect(table.version).toBe(3);
  });

  it("a store without ETags falls back to a LIST before every upsert and sends no anchor HEAD", async () => {
    const uri = await backend.uri(`etagless${n++}`);
    const storageOptions = backend.storageOptions();
    await DeltaLiteTable.write(uri, rows([1, 2, 3], 0), { storageOptions, partitionBy: ["day"] });
    const store = new CountingStore(new EtaglessStore(openStore(uri, { storageOptions })));
    const table = await openHandle(store);
    const events = recordProbes();
    for (let i = 0; i < 2; i++) {
      store.reset();
      await table.upsert(rows([2, 9 + i], i + 1), { primaryKeys: ["id"] });
      expect(requestsOf(store).log).toEqual({ get: 0, head: 0, list: 1, put: 1 });
    }
    expect(events.splice(0)).toEqual([
      { probe: "refresh", outcome: "listed" },
      { probe: "commit", outcome: "no_anchor" },
      { probe: "refresh", outcome: "listed" },
      { probe: "commit", outcome: "no_anchor" },
    ]);
  });
});

const recorded: LogProbeEvent[] = [];
onLogProbe((event) => recorded.push(event));
function recordProbes(): LogProbeEvent[] {
  recorded.splice(0);
  return recorded;
}

describe("when the refresh probe is not trusted", () => {
  it("warm upserts report current, and no LIST", async () => {
    const { store, table } = await freshHandle(local);
    const events = recordProbes();
    await table.upsert(rows([1], 1), { primaryKeys: ["id"] });
    store.reset();
    await table.upsert(rows([2], 1), { primaryKeys: ["id"] });
    expect(requestsOf(store).log.list).toBe(0);
    expect(events).toEqual([
      { probe: "refresh", outcome: "current" },
      { probe: "commit", outcome: "current" },
      { probe: "refresh", outcome: "current" },
      { probe: "commit", outcome: "current" },
    ]);
  });

  it("after the handle's own commit on a checkpoint boundary, the next refresh LISTs", async () => {
    // checkpointInterval 3: version 2 is a boundary (the table's creation is version 0).
    const { uri, store, table } = await freshHandle(local, { "delta.checkpointInterval": "3" });
    const events = recordProbes();
    const lists: number[] = [];
    for (let i = 0; i < 4; i++) {
      store.reset();
      await table.upsert(rows([i], 1), { primaryKeys: ["id"] });
      lists.push(requestsOf(store).log.list);
    }
    // Upserts commit 1, 2 (boundary: the checkpoint hook and log cleanup LIST once), 3, 4: the refresh
    // before the third lists.
    expect(lists).toEqual([0, 1, 1, 0]);
    expect(events.filter((e) => e.probe === "refresh").map((e) => e.outcome)).toEqual([
      "current",
      "current",
      "listed",
      "current",
    ]);
    expect(await fs.readdir(path.join(uri, "_delta_log"))).toContain(
      "00000000000000000002.checkpoint.parquet",
    );
  });

  it("past half of delta.logRetentionDuration since the last LIST, the refresh LISTs", async () => {
    const { store, table } = await freshHandle(local, { "delta.logRetentionDuration": "interval 2 seconds" });
    const events = recordProbes();
    await table.upsert(rows([1], 1), { primaryKeys: ["id"] });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    store.reset();
    await table.upsert(rows([2], 1), { primaryKeys: ["id"] });
    expect(requestsOf(store).log.list).toBe(1);
    // Within the first second of the handle's LIST the probe answers; after it, a LIST.
    expect(events.filter((e) => e.probe === "refresh").map((e) => e.outcome)).toEqual(["current", "listed"]);
  });

  it("when the last load read no commit file, the refresh LISTs once and takes the commit as its anchor", async () => {
    const { uri, store } = await freshHandle(local);
    const first = await openHandle(store);
    await first.upsert(rows([1], 1), { primaryKeys: ["id"] });
    // A checkpoint at the latest version: a new handle's load reads the checkpoint and no commit file.
    await writeCheckpoint(store, first.snapshot.checkpointSource(), first.snapshot.version);
    const table = await openHandle(store);
    expect(table.snapshot.anchor).toBeUndefined();
    const events = recordProbes();
    for (let i = 0; i < 2; i++) await table.upsert(rows([5 + i], 2), { primaryKeys: ["id"] });
    expect(events.filter((e) => e.probe === "refresh").map((e) => e.outcome)).toEqual([
      "no_anchor",
      "current",
    ]);
    expect(await fs.readdir(path.join(uri, "_delta_log"))).toContain(
      "00000000000000000001.checkpoint.parquet",
    );
  });
});

describe("when the probe finds something", () => {
  it("another writer's commit: one LIST, and the commit the probe fetched is not fetched again", async () => {
    const { uri, store, table } = await freshHandle(local);
    await table.upsert(rows([1], 1), { primaryKeys: ["id"] });
    const other = await openHandle(new LocalFileStore(uri));
    await other.upsert(rows([4], 2), { primaryKeys: ["id"] });
    const events = recordProbes();
    store.reset();
    await table.upsert(rows([2], 3), { primaryKeys: ["id"] });
    expect(events[0]).toEqual({ probe: "refresh", outcome: "new_commits" });
    const gets = store.log.filter((r) => r.method === "get" && r.key === commitKey(2));
    expect(gets).toHaveLength(1);
    // The probe's GET of version 2 (found) and HEAD of the anchor, one LIST, the commit HEAD and put.
    expect(requestsOf(store).log).toEqual({ get: 1, head: 2, list: 1, put: 1 });
    expect(table.version).toBe(3);
  });

  it("a probe request failing otherwise than 404 is `unknown`: the refresh LISTs", async () => {
    const { uri } = await freshHandle(local);
    const faulty = new FaultyStore(new LocalFileStore(uri), [
      {
        method: "head",
        key: /_delta_log\//,
        call: 1,
        fault: {
          type: "error",
          error: () => new DeltaLiteError("generic", "HEAD failed", { retryable: true }),
        },
      },
    ]);
    const store = new CountingStore(faulty);
    const table = await openHandle(store);
    const events = recordProbes();
    store.reset();
    await table.upsert(rows([2], 3), { primaryKeys: ["id"] });
    expect(faulty.fired).toBe(1);
    expect(events.map((e) => `${e.probe} ${e.outcome}`)).toEqual(["refresh unknown", "commit current"]);
    expect(requestsOf(store).log.list).toBe(1);
  });
});
