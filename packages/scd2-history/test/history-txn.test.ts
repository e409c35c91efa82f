/**
 * Exactly-once history upserts (`txn`) and the whole-call deadline (`timeoutMs`). With a txn the one commit
 * carries the `txn` action (delta-rs `transaction_version` reads it); a redelivered or older batch is skipped
 * before its source is read (`skipped: true`, `committed: false`, no new version, no new file); a concurrent
 * commit of the same appId is a non-retryable conflict where another appId's is re-planned; a bad txn or
 * timeoutMs is `invalid_argument`. A call whose data GETs never answer ends in kind `timeout` at its
 * deadline with the table and its files as they were.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { FaultyStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Table, type Vector } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HistoryUpsertOptions, historyUpsert } from "../src/index.js";
import {
  createHistoryTable,
  historyOptions,
  latest,
  microsOf,
  readWithDeltaRs,
  type SourceRow,
  sortRows,
  sourceTable,
  type TableLayout,
} from "./history-fixtures.js";

const layout: TableLayout = { keyColumns: ["k1", "k2"], tieBreak: "none" };
const row = (k1: number, ord: number, vf: string): SourceRow => ({
  k1,
  k2: "k",
  ord,
  vf: microsOf(vf),
  pay: "p",
});
const batch = (n: number) =>
  sourceTable(
    [row(1, n, `2024-0${n}-10T00:00:00Z`), row(n + 10, 1, `2024-0${n}-10T00:00:00Z`)],
    layout,
    "UTC",
  );
const withTxn = (appId: string, version: number): HistoryUpsertOptions => ({
  ...historyOptions(layout),
  txn: { appId, version },
});

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("historyUpsert with txn", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-scd2-txn-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const txnVersion = async (uri: string, appId: string) =>
    (await oracle.call<{ txnVersion: number | null }>("txn_version", { uri, app_id: appId })).txnVersion;

  it("commits the txn action (delta-rs reads it); a redelivered or older batch is skipped unread", async () => {
    const { uri, snapshot } = await createHistoryTable(dir, layout);
    const first = await historyUpsert(snapshot, batch(1), withTxn("sync", 1));
    expect(first).toMatchObject({ committed: true, skipped: false, version: 1 });
    const second = await historyUpsert(await latest(uri), batch(2), withTxn("sync", 2));
    expect(second).toMatchObject({ committed: true, skipped: false, version: 2, versionsClosed: 1 });
    expect(await txnVersion(uri, "sync")).toBe(2);
    expect((await latest(uri)).txnVersion("sync")).toBe(2);
    const rows = sortRows(await readWithDeltaRs(oracle, uri));
    const files = await filesUnder(uri);
    // Redelivered (2) and older (1) batches; the second carries the valid-to column, which a read would refuse.
    const redelivered = await historyUpsert(await latest(uri), batch(2), withTxn("sync", 2));
    expect(redelivered).toMatchObject({
      committed: false,
      skipped: true,
      version: 2,
      rowsIn: 0,
      filesAdded: 0,
    });
    const unread = sourceTable([row(1, 3, "2024-03-10T00:00:00Z")], layout, "UTC");
    const withValidTo = unread.assign(new Table({ vt: unread.getChild("vf") as Vector }));
    const older = await historyUpsert(await latest(uri), withValidTo, withTxn("sync", 1));
    expect(older).toMatchObject({ committed: false, skipped: true, version: 2 });
    expect((await latest(uri)).version).toBe(2);
    expect(await filesUnder(uri)).toEqual(files);
    expect(sortRows(await readWithDeltaRs(oracle, uri))).toEqual(rows);
    // Another appId is its own sequence.
    const other = await historyUpsert(await latest(uri), batch(3), withTxn("other", 1));
    expect(other).toMatchObject({ committed: true, skipped: false, version: 3 });
    expect(await txnVersion(uri, "sync")).toBe(2);
    expect(await txnVersion(uri, "other")).toBe(1);
  });

  it("a concurrent commit of the same appId is a non-retryable conflict; another appId's is re-planned", async () => {
    const { uri, snapshot } = await createHistoryTable(dir, layout);
    await historyUpsert(snapshot, batch(1), withTxn("job", 1));
    const stale = await latest(uri);
    await historyUpsert(await latest(uri), batch(2), withTxn("other-job", 1));
    const replanned = await historyUpsert(stale, batch(3), withTxn("job", 2));
    expect(replanned).toMatchObject({ committed: true, planAttempts: 2, version: 3 });
    const staleAgain = await latest(uri);
    await historyUpsert(await latest(uri), batch(4), withTxn("job", 3));
    const version = (await latest(uri)).version;
    const error = await failure(historyUpsert(staleAgain, batch(5), withTxn("job", 4)));
    expect(error).toMatchObject({ kind: "conflict", retryable: false });
    expect((error as Error).message).toMatch(/ConcurrentTransaction/);
    expect((await latest(uri)).version).toBe(version);
    expect(await txnVersion(uri, "job")).toBe(3);
  });

  it("refuses a bad txn or timeoutMs with the table unchanged", async () => {
    const { uri, snapshot } = await createHistoryTable(dir, layout);
    await historyUpsert(snapshot, batch(1), historyOptions(layout));
    const files = await filesUnder(uri);
    const bad: [Partial<HistoryUpsertOptions>, RegExp][] = [
      [{ txn: { appId: "", version: 1 } }, /txn.appId/],
      [{ txn: { appId: "a", version: -1 } }, /txn.version/],
      [{ txn: { appId: "a" } as never }, /txn.version/],
      [{ txn: { appId: "a", version: 1, extra: 1 } as never }, /only appId and version/],
      [{ timeoutMs: 0 }, /timeoutMs/],
      [{ timeoutMs: 1.5 }, /timeoutMs/],
      [{ timeoutMS: 10 } as never, /did you mean "timeoutMs"/],
    ];
    for (const [extra, message] of bad) {
      const error = await failure(
        historyUpsert(await latest(uri), batch(2), { ...historyOptions(layout), ...extra }),
      );
      expect(error, JSON.stringify(extra)).toMatchObject({ kind: "invalid_argument" });
      expect((error as Error).message).toMatch(message);
    }
    expect((await latest(uri)).version).toBe(1);
    expect(await filesUnder(uri)).toEqual(files);
  });
});

describe("historyUpsert timeoutMs", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deltalite-scd2-timeout-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a data GET that never answers ends in kind timeout at the deadline; nothing changes", async () => {
    const { uri, snapshot } = await createHistoryTable(dir, layout);
    await historyUpsert(snapshot, batch(1), historyOptions(layout));
    const files = await filesUnder(uri);
    const store = new FaultyStore(new LocalFileStore(uri), [
      { method: "get", key: /\.parquet$/, fault: { type: "hang" } },
    ]);
    const started = Date.now();
    const error = await failure(
      historyUpsert(await Snapshot.open(store), batch(2), { ...historyOptions(layout), timeoutMs: 400 }),
    );
    expect(error).toMatchObject({ kind: "timeout" });
    expect((error as Error).message).toContain("timeoutMs (400 ms)");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(store.fired).toBeGreaterThan(0);
    expect((await latest(uri)).version).toBe(1);
    expect(await filesUnder(uri)).toEqual(files);
  }, 30_000);

  it("a call that finishes before its deadline is not affected by it", async () => {
    const { uri, snapshot } = await createHistoryTable(dir, layout);
    const stats = await historyUpsert(snapshot, batch(1), { ...historyOptions(layout), timeoutMs: 60_000 });
    expect(stats).toMatchObject({ committed: true, version: 1 });
    expect((await latest(uri)).version).toBe(1);
  });
});
