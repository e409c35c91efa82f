/**
 * Exactly-once upserts (`txn`) and the `deleteColumn`'s refusals. With a txn the MERGE commit carries the
 * `txn` action (delta-rs `transaction_version` reads it, also after a checkpoint); a redelivered or older
 * batch is skipped before anything is written (`skipped: true`, `committed: false`, no new version, no new
 * file); a txn written by delta-rs is honoured; a concurrent commit of the same appId fails with a
 * non-retryable `conflict` where another appId is rebased; bad txn / deleteColumn values are
 * `invalid_argument` (or `schema_mismatch`, for duplicate keys) and leave the table as it was.
 * `deleteColumn` with `missingColumns: "keep"` equals delta-rs MERGE with a partial source.
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Snapshot, writeCheckpoint } from "@deltalite/delta-log";
import { type ErrorKind, isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { Bool, type DataType, Field, Int64, Schema, Table, Utf8, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { type UpsertOptions, upsert } from "../src/index.js";
import { oracleWorkspace } from "./oracle-workspace.js";

type Columns = Record<string, { type: DataType; values: unknown[] }>;

function tableOf(columns: Columns): Table {
  const fields = Object.entries(columns).map(([name, c]) => new Field(name, c.type, true));
  const vectors = Object.fromEntries(
    Object.entries(columns).map(([name, c]) => [name, vectorFromArray(c.values, c.type)]),
  );
  return new Table(new Schema(fields), vectors as never);
}

const rows = (ids: number[], tag: string, extra: Columns = {}): Columns => ({
  id: { type: new Int64(), values: ids.map(BigInt) },
  name: { type: new Utf8(), values: ids.map((i) => `${tag}-${i}`) },
  part: { type: new Utf8(), values: ids.map((i) => ["a", "b"][i % 2]) },
  ...extra,
});

const flags = (values: (boolean | null)[]): Columns => ({ _del: { type: new Bool(), values } });

async function parquetFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".parquet")).sort();
}

async function expectKind(promise: Promise<unknown>, kind: ErrorKind, message?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isDeltaLiteError(error) ? error.kind : error).toBe(kind);
  if (message) expect((error as Error).message).toMatch(message);
}

describe("upsert with txn", () => {
  const ws = oracleWorkspace("deltalite-upsert-txn-");
  let n = 0;
  async function table(copies = 1): Promise<string[]> {
    const uris = Array.from({ length: copies }, (_, i) => join(ws.dir, `t-${n}-${i}`));
    n++;
    await ws.oracle.call("merge_create", {
      uris,
      data: await ws.ipc(tableOf(rows([...Array(10).keys()], "old"))),
      partition_by: ["part"],
      appends: 2,
    });
    return uris;
  }
  const opts = (txn?: UpsertOptions["txn"]): UpsertOptions => ({
    primaryKeys: ["id"],
    partitionKey: "part",
    ...(txn ? { txn } : {}),
  });
  const txnVersion = (uri: string, appId: string) =>
    ws.oracle.call<{ txnVersion: number | null }>("txn_version", { uri, app_id: appId });

  it("commits the txn (delta-rs reads it) and skips a redelivered or older batch before writing", async () => {
    const [uri] = await table();
    const store = new LocalFileStore(uri!);
    const first = await upsert(
      await Snapshot.open(store),
      tableOf(rows([1, 20], "b1")),
      opts({ appId: "sync", version: 5 }),
    );
    expect(first).toMatchObject({ committed: true, skipped: false, rowsInserted: 1, rowsUpdated: 1 });
    expect((await txnVersion(uri!, "sync")).txnVersion).toBe(5);
    expect((await txnVersion(uri!, "other")).txnVersion).toBeNull();
    const files = await parquetFiles(uri!);
    for (const version of [5, 4, 0]) {
      const again = await upsert(
        await Snapshot.open(store),
        tableOf(rows([1, 21], "dup")),
        opts({ appId: "sync", version }),
      );
      expect(again).toMatchObject({ committed: false, skipped: true, version: first.version, sourceRows: 0 });
    }
    expect((await Snapshot.open(store)).version).toBe(first.version);
    expect(await parquetFiles(uri!)).toEqual(files);
    const next = await upsert(
      await Snapshot.open(store),
      tableOf(rows([21], "b6")),
      opts({ appId: "sync", version: 6 }),
    );
    expect(next).toMatchObject({ committed: true, skipped: false, version: first.version + 1 });
    expect((await txnVersion(uri!, "sync")).txnVersion).toBe(6);
    const commit = (await Snapshot.open(store)).txnVersion("sync");
    expect(commit).toBe(6);
  });

  it("honours a txn delta-rs wrote, and our txn survives a delta-rs checkpoint and our own", async () => {
    const [uri] = await table();
    const store = new LocalFileStore(uri!);
    await ws.oracle.call("txn_write", {
      uri,
      data: await ws.ipc(tableOf(rows([100], "rs"))),
      txn: { appId: "rs-app", version: 3 },
      partition_by: ["part"],
    });
    const before = await Snapshot.open(store);
    expect(before.txnVersion("rs-app")).toBe(3);
    const skipped = await upsert(before, tableOf(rows([1], "x")), opts({ appId: "rs-app", version: 3 }));
    expect(skipped.skipped).toBe(true);
    const applied = await upsert(before, tableOf(rows([1], "x")), opts({ appId: "rs-app", version: 4 }));
    expect(applied.committed).toBe(true);
    await ws.oracle.call("delta_create_checkpoint", { uri });
    const fromCheckpoint = await Snapshot.open(store);
    expect(fromCheckpoint.txnVersion("rs-app")).toBe(4);
    // Our own checkpoint of the same version; then only checkpoints hold the txn.
    await writeCheckpoint(store, fromCheckpoint.checkpointSource(), fromCheckpoint.version);
    for (const f of await readdir(join(uri!, "_delta_log"))) {
      if (f.endsWith(".json") && Number(f.slice(0, 20)) <= fromCheckpoint.version) {
        await rm(join(uri!, "_delta_log", f));
      }
    }
    expect((await txnVersion(uri!, "rs-app")).txnVersion).toBe(4);
    expect((await Snapshot.open(store)).txnVersion("rs-app")).toBe(4);
  });

  it("a concurrent commit of the same appId is a non-retryable conflict; another appId is rebased", async () => {
    const [uri] = await table();
    const store = new LocalFileStore(uri!);
    const stale = await Snapshot.open(store);
    // Partition a, then partition b: without a shared appId the second would rebase past the first.
    await upsert(stale, tableOf(rows([2], "w")), opts({ appId: "job", version: 1 }));
    const other = await upsert(stale, tableOf(rows([3], "o")), opts({ appId: "other-job", version: 1 }));
    expect(other.committed).toBe(true);
    const error = await upsert(stale, tableOf(rows([5], "l")), opts({ appId: "job", version: 2 })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDeltaLiteError(error) && error.kind).toBe("conflict");
    expect(isDeltaLiteError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toMatch(/ConcurrentTransaction/);
    expect((await Snapshot.open(store)).txnVersion("job")).toBe(1);
  });

  it("refuses a bad txn or deleteColumn with the table unchanged", async () => {
    const [uri] = await table();
    const store = new LocalFileStore(uri!);
    const before = await Snapshot.open(store);
    const files = await parquetFiles(uri!);
    const bad: [Columns, Partial<UpsertOptions>, ErrorKind, RegExp][] = [
      [rows([1], "x"), { txn: { appId: "", version: 1 } }, "invalid_argument", /txn.appId/],
      [rows([1], "x"), { txn: { appId: "a", version: -1 } }, "invalid_argument", /txn.version/],
      [rows([1], "x"), { txn: { appId: "a", version: 1.5 } }, "invalid_argument", /txn.version/],
      [rows([1], "x"), { txn: { appId: "a" } as never }, "invalid_argument", /txn.version/],
      [rows([1], "x"), { deleteColumn: "_del" }, "invalid_argument", /not a source column/],
      [
        rows([1], "x", { _del: { type: new Utf8(), values: ["true"] } }),
        { deleteColumn: "_del" },
        "invalid_argument",
        /boolean/,
      ],
      [
        rows([1], "x", { _dell: { type: new Bool(), values: [true] } }),
        { deleteColumn: "_del" },
        "invalid_argument",
        /did you mean/,
      ],
      [rows([1], "x"), { deleteColumn: "name" }, "invalid_argument", /is a table column/],
      [rows([1], "x"), { deleteColumn: "id" }, "invalid_argument", /not a primary key/],
      [rows([1], "x"), { deleteColumn: "" }, "invalid_argument", /deleteColumn/],
      [
        { ...rows([1, 1], "x"), ...flags([true, false]) },
        { deleteColumn: "_del" },
        "generic",
        /duplicate primary-key/,
      ],
    ];
    for (const [source, extra, kind, message] of bad) {
      await expectKind(upsert(before, tableOf(source), { ...opts(), ...extra }), kind, message);
    }
    expect((await Snapshot.open(store)).version).toBe(before.version);
    expect(await parquetFiles(uri!)).toEqual(files);
  });

  it("deleteColumn with missingColumns keep equals delta-rs MERGE on a partial source", async () => {
    const [ours, theirs] = await table(2);
    const source = tableOf({
      id: { type: new Int64(), values: [0n, 1n, 2n, 30n, 31n] },
      part: { type: new Utf8(), values: ["a", "b", "a", "a", "b"] },
      ...flags([true, false, null, false, true]),
    });
    const stats = await upsert(await Snapshot.open(new LocalFileStore(ours!)), source, {
      ...opts(),
      missingColumns: "keep",
      deleteColumn: "_del",
    });
    expect(stats).toMatchObject({ rowsDeleted: 1, rowsUpdated: 2, rowsInserted: 1, sourceDeleteRows: 2 });
    await ws.oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ws.ipc(source),
      keys: ["id"],
      partition_key: "part",
      delete_column: "_del",
    });
    const a = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: ours });
    const b = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
  });
});
