/**
 * `readChanges` beyond the parity suite: typed errors for bad ranges, versions outside the log, versions
 * without the change data feed, bad columns and filters — raised before any row is read, the table left as
 * it was, and refused by delta-rs too where it refuses; timestamp ranges equal delta-rs `load_cdf`'s; the
 * change columns' types; and the read streams (stopping after one batch reads one file).
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import type { ErrorKind } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { Int64, Timestamp, TimeUnit, Utf8 } from "apache-arrow";
import { beforeAll, describe, expect, it } from "vitest";
import { oracleWorkspace } from "../../merge-engine/test/oracle-workspace.js";
import { type ChangeRange, type ChangesOptions, deleteWhere, readChanges } from "../src/index.js";
import { ourChanges, theirChanges } from "./changes-helpers.js";

const ws = oracleWorkspace("deltalite-changes-read-");
const CDF = { "delta.enableChangeDataFeed": "true" };

const write = (uri: string, ids: number[], configuration?: Record<string, string>) =>
  ws.oracle.call("write_table", {
    uri,
    columns: { id: ids, part: ids.map((i) => (i % 2 === 0 ? "a" : "b")) },
    partition_by: ["part"],
    ...(configuration ? { configuration } : {}),
  });
const setCdf = (uri: string, value: string) =>
  ws.oracle.call("optimize_set_property", { uri, key: "delta.enableChangeDataFeed", value });
const snapshotOf = (uri: string) => Snapshot.open(new LocalFileStore(uri));

async function listing(uri: string): Promise<string[]> {
  return (await readdir(uri, { recursive: true })).map(String).sort();
}

/** The read fails with `kind` at plan time, yields no row, and leaves every file of the table as it was. */
async function expectRefused(uri: string, range: unknown, kind: ErrorKind, options: ChangesOptions = {}) {
  const before = await listing(uri);
  let error: unknown;
  let rows = 0;
  try {
    const feed = readChanges(await snapshotOf(uri), range as ChangeRange, options);
    await feed.plan();
    for await (const batch of feed) rows += batch.numRows;
  } catch (e) {
    error = e;
  }
  expect(error, JSON.stringify(range)).toMatchObject({ kind });
  expect(rows).toBe(0);
  expect(await listing(uri)).toEqual(before);
  return (error as Error).message;
}

describe("change reads: typed errors, the table untouched", () => {
  let uri: string;
  beforeAll(async () => {
    uri = join(ws.dir, "late-cdf");
    await write(uri, [1, 2]); // v0, no change data feed
    await write(uri, [3]); // v1
    await setCdf(uri, "true"); // v2
    await deleteWhere(await snapshotOf(uri), [{ column: "id", op: "eq", value: 1 }]); // v3 (cdc files)
    await write(uri, [4, 5]); // v4
  });

  it("versions before the feed was enabled are invalid_argument, as delta-rs refuses version 0", async () => {
    expect(await expectRefused(uri, { startingVersion: 0 }, "invalid_argument")).toMatch(
      /version 0 were not recorded.*delta\.enableChangeDataFeed/,
    );
    expect((await theirChanges(ws.oracle, uri, { starting_version: 0 })).error).toBeDefined();
    // delta-rs checks only metaData actions inside the range (v1 has none); the snapshot at v1 has no feed.
    await expectRefused(uri, { startingVersion: 1, endingVersion: 2 }, "invalid_argument");
    const from2 = await ourChanges(ws.oracle, ws.dir, uri, { startingVersion: 2 });
    expect(from2.rows).toEqual((await theirChanges(ws.oracle, uri, { starting_version: 2 })).rows);
    expect(from2.rows.map((r) => [r.id, r._change_type, r._commit_version])).toEqual([
      ["1", "delete", "3"],
      ["4", "insert", "4"],
      ["5", "insert", "4"],
    ]);
  });

  it("a feed turned off inside the range is invalid_argument (delta-rs refuses too)", async () => {
    const off = join(ws.dir, "off");
    await write(off, [1], CDF);
    await write(off, [2]);
    await setCdf(off, "false"); // v2
    await write(off, [3]);
    await expectRefused(off, { startingVersion: 0 }, "invalid_argument");
    expect((await theirChanges(ws.oracle, off, { starting_version: 0 })).error).toBeDefined();
    const before = await ourChanges(ws.oracle, ws.dir, off, { startingVersion: 0, endingVersion: 1 });
    expect(before.count).toBe(2);
  });

  it("versions beyond the latest or cleaned out of the log are not_found; an ending beyond reads to the latest", async () => {
    expect(await expectRefused(uri, { startingVersion: 5 }, "not_found")).toMatch(/latest version is 4/);
    expect((await theirChanges(ws.oracle, uri, { starting_version: 5 })).error).toBeDefined();
    const clamped = await ourChanges(ws.oracle, ws.dir, uri, { startingVersion: 4, endingVersion: 99 });
    expect(clamped.rows).toEqual(
      (await theirChanges(ws.oracle, uri, { starting_version: 4, ending_version: 99 })).rows,
    );

    const cleaned = join(ws.dir, "cleaned");
    for (const ids of [[1], [2], [3], [4]]) await write(cleaned, ids, CDF);
    await ws.oracle.call("delta_create_checkpoint", { uri: cleaned });
    for (const v of [0, 1]) await rm(join(cleaned, "_delta_log", `${String(v).padStart(20, "0")}.json`));
    expect(await expectRefused(cleaned, { startingVersion: 1 }, "not_found")).toMatch(/no longer in the log/);
    expect((await ourChanges(ws.oracle, ws.dir, cleaned, { startingVersion: 2 })).count).toBe(2);
  });

  it("malformed ranges are invalid_argument, unknown keys with a did-you-mean", async () => {
    const bad: [unknown, RegExp][] = [
      [{}, /startingVersion .*is required/],
      [undefined, /startingVersion, endingVersion/],
      [{ startingVersion: 3, endingVersion: 2 }, /endingVersion 2 is before startingVersion 3/],
      [{ startingVersion: -1 }, /non-negative integer/],
      [{ startingVersion: 1.5 }, /non-negative integer/],
      [{ startingVersion: "2" }, /non-negative integer, got "2"/],
      [{ startingVersion: 2, startingTimestamp: "2026-01-01" }, /versions or timestamps, not both/],
      [{ startVersion: 2 }, /unknown key "startVersion".*startingVersion/],
      [{ startingTimestamp: "yesterday" }, /startingTimestamp must be a Date/],
      [{ endingTimestamp: "2026-01-01" }, /needs a startingTimestamp/],
      [{ startingTimestamp: "2026-01-02", endingTimestamp: "2026-01-01" }, /is before startingTimestamp/],
      [{ startingTimestamp: "2999-01-01T00:00:00Z" }, /after the latest commit \(version 4/],
    ];
    for (const [range, message] of bad) {
      expect(await expectRefused(uri, range, "invalid_argument")).toMatch(message);
    }
  });

  it("bad columns and filters are invalid_argument, with a did-you-mean", async () => {
    const range = { startingVersion: 2 };
    expect(await expectRefused(uri, range, "invalid_argument", { columns: ["idd"] })).toMatch(
      /"idd".*did you mean "id"/i,
    );
    expect(await expectRefused(uri, range, "invalid_argument", { columns: ["id", "id"] })).toMatch(/twice/);
    expect(await expectRefused(uri, range, "invalid_argument", { columns: ["_change_type"] })).toMatch(
      /leave it out/,
    );
    const typo = [{ column: "_change_typ", op: "eq" as const, value: "insert" }];
    expect(await expectRefused(uri, range, "invalid_argument", { filter: typo })).toMatch(
      /did you mean "_change_type"/i,
    );
    const wrongValue = [{ column: "_commit_version", op: "ge" as const, value: "two" }];
    await expectRefused(uri, range, "invalid_argument", { filter: wrongValue });
    expect(() => readChanges(() => snapshotOf(uri), range, { batchSize: 0 })).toThrow(/positive integer/);
  });
});

describe("change reads: timestamps, column types, streaming", () => {
  let uri: string;
  let times: number[];
  beforeAll(async () => {
    uri = join(ws.dir, "timed");
    for (const ids of [[1, 2], [3], [4, 5], [6]]) {
      await write(uri, ids, CDF);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await deleteWhere(await snapshotOf(uri), [{ column: "id", op: "le", value: 3 }]); // v4
    const history = await (await snapshotOf(uri)).history();
    times = history.map((h) => h.timestamp).reverse();
  });

  it("a timestamp window selects the commits stamped inside it, as delta-rs load_cdf", async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const [from, to] of [
      [1, 3],
      [0, 4],
      [2, 2],
      [4, undefined],
    ] as const) {
      const range = {
        startingTimestamp: iso(times[from]!),
        endingTimestamp: to === undefined ? undefined : iso(times[to]!),
      };
      const mine = await ourChanges(ws.oracle, ws.dir, uri, range);
      const theirs = await theirChanges(ws.oracle, uri, {
        starting_timestamp: range.startingTimestamp,
        ...(range.endingTimestamp ? { ending_timestamp: range.endingTimestamp } : {}),
      });
      expect(mine.rows).toEqual(theirs.rows);
      const versions = new Set(mine.rows.map((r) => Number(r._commit_version)));
      expect(Math.min(...versions)).toBe(from);
      expect(Math.max(...versions)).toBe(to ?? 4);
    }
    // The same instants as Date objects and epoch milliseconds.
    const byDate = await ourChanges(ws.oracle, ws.dir, uri, {
      startingTimestamp: new Date(times[1]!),
      endingTimestamp: times[3]!,
    });
    expect(byDate.count).toBe(4);
  });

  it("change columns: _change_type utf8, _commit_version int64, _commit_timestamp the commit's µs UTC", async () => {
    const feed = readChanges(await snapshotOf(uri), { startingVersion: 0 });
    const { schema, startingVersion, endingVersion, commits } = await feed.plan();
    expect([startingVersion, endingVersion, commits]).toEqual([0, 4, 5]);
    const [type, version, timestamp] = schema.fields.slice(-3);
    expect(type!.type).toBeInstanceOf(Utf8);
    expect(version!.type).toBeInstanceOf(Int64);
    expect(timestamp!.type).toBeInstanceOf(Timestamp);
    expect((timestamp!.type as Timestamp).unit).toBe(TimeUnit.MICROSECOND);
    expect((timestamp!.type as Timestamp).timezone).toBe("UTC");
    for await (const batch of feed) {
      for (let i = 0; i < batch.numRows; i++) {
        const v = Number(batch.getChild("_commit_version")!.get(i));
        const micros = batch.getChild("_commit_timestamp")!.data[0]!.values[i] as bigint;
        expect(micros).toBe(BigInt(times[v]!) * 1000n);
      }
    }
  });

  it("streams: stopping after the first batch has read one file", async () => {
    const feed = readChanges(await snapshotOf(uri), { startingVersion: 0 }, { batchSize: 1 });
    const plan = await feed.plan();
    expect(plan.filesToRead).toBeGreaterThan(4);
    for await (const batch of feed) {
      expect(batch.numRows).toBe(1);
      break;
    }
    expect(feed.metrics.filesRead).toBe(1);
    expect(feed.metrics.batches).toBe(1);
  });

  it("pruning: a filter on partition and change columns skips files before reading them", async () => {
    const feed = readChanges(
      await snapshotOf(uri),
      { startingVersion: 0 },
      {
        filter: [
          { column: "part", op: "eq", value: "a" },
          { column: "_change_type", op: "eq", value: "insert" },
          { column: "_commit_version", op: "le", value: 2 },
        ],
      },
    );
    const rows: bigint[] = [];
    for await (const batch of feed) for (const id of batch.getChild("id")!) rows.push(id as bigint);
    expect(rows.sort()).toEqual([2n, 4n]);
    const plan = await feed.plan();
    expect(plan.filesToRead).toBe(2);
    expect(feed.metrics.filesRead).toBe(2);
  });
});
