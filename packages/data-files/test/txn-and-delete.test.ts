/**
 * Exactly-once writes and deletes (`txn`), and `deleteWhere`'s guarantees beyond the delta-rs parity suite
 * (delete-parity.test.ts): a write or delete with a txn commits the `txn` action (delta-rs
 * `transaction_version` reads it), a redelivered batch is skipped before anything is read or written, a
 * concurrent commit of the same appId is a non-retryable conflict even for a blind append; bad filters,
 * txns and options are `invalid_argument` (an append-only table `unsupported`) with the table unchanged;
 * the delete reads through the shared budgets (files at most `maxParallelFiles`, fetch and decode
 * admitted, every permit given back).
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { type ErrorKind, isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Budget,
  createProcessBudgets,
  type DeleteOptions,
  deleteWhere,
  type ProcessBudgets,
  type ScanFilterCondition,
  writeExistingTable,
  writeNewTable,
} from "../src/index.js";

let oracle: Oracle;
let tmp: string;
let n = 0;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await mkdtemp(join(tmpdir(), "deltalite-txn-delete-"));
});
afterAll(async () => {
  oracle?.close();
  await rm(tmp, { recursive: true, force: true });
});

const data = (ids: number[]) =>
  new Table({
    id: vectorFromArray(ids.map(BigInt), new Int64()),
    p: vectorFromArray(
      ids.map((i) => ["a", "b"][i % 2]!),
      new Utf8(),
    ),
  });

async function newTable(ids = [1, 2, 3, 4, 5, 6], configuration?: Record<string, string>) {
  const root = join(tmp, `t-${n++}`);
  const store = new LocalFileStore(root);
  await writeNewTable(store, data(ids), { partitionBy: ["p"], configuration });
  return { root, store };
}

async function parquetFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".parquet")).sort();
}

const txnVersion = async (uri: string, appId: string) =>
  (await oracle.call<{ txnVersion: number | null }>("txn_version", { uri, app_id: appId })).txnVersion;

async function kindOf(promise: Promise<unknown>): Promise<{ kind: ErrorKind | unknown; error: unknown }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { kind: isDeltaLiteError(error) ? error.kind : error, error };
}

describe("write with txn", () => {
  it("a new table and an append carry the txn; a redelivered write is skipped unread", async () => {
    const root = join(tmp, `t-${n++}`);
    const store = new LocalFileStore(root);
    const created = await writeNewTable(store, data([1]), { txn: { appId: "w", version: 0 } });
    expect(created.committed).toBe(true);
    expect(await txnVersion(root, "w")).toBe(0);
    const appended = await writeExistingTable(await Snapshot.open(store), data([2]), {
      txn: { appId: "w", version: 1 },
    });
    expect(appended).toMatchObject({ committed: true, version: 1 });
    expect(await txnVersion(root, "w")).toBe(1);
    const files = await parquetFiles(root);
    // A source that would fail if read proves the skip happens first.
    const unreadable = {
      [Symbol.asyncIterator]() {
        throw new Error("read");
      },
    };
    for (const version of [1, 0]) {
      const again = await writeExistingTable(await Snapshot.open(store), unreadable as never, {
        txn: { appId: "w", version },
      });
      expect(again).toMatchObject({ committed: false, skipped: true, version: 1, rowsWritten: 0 });
    }
    expect(await parquetFiles(root)).toEqual(files);
    expect((await Snapshot.open(store)).version).toBe(1);
  });

  it("a concurrent append of the same appId is a non-retryable conflict; another appId rebases", async () => {
    const { store } = await newTable();
    const stale = await Snapshot.open(store);
    await writeExistingTable(stale, data([7]), { txn: { appId: "w", version: 1 } });
    const other = await writeExistingTable(stale, data([8]), { txn: { appId: "z", version: 1 } });
    expect(other.committed).toBe(true);
    const { kind, error } = await kindOf(
      writeExistingTable(stale, data([9]), { txn: { appId: "w", version: 2 } }),
    );
    expect(kind).toBe("conflict");
    expect(isDeltaLiteError(error) && error.retryable).toBe(false);
  });

  it("a bad txn is invalid_argument before anything is written", async () => {
    const { root, store } = await newTable();
    const files = await parquetFiles(root);
    for (const txn of [{ appId: "", version: 1 }, { appId: "x", version: -2 }, { appId: "x" }, "x"]) {
      const { kind } = await kindOf(
        writeExistingTable(await Snapshot.open(store), data([9]), { txn } as never),
      );
      expect(kind).toBe("invalid_argument");
    }
    expect(await parquetFiles(root)).toEqual(files);
  });
});

describe("deleteWhere", () => {
  it("commits the txn, and a redelivered delete is skipped; nothing to delete makes no commit", async () => {
    const { root, store } = await newTable();
    const filter: ScanFilterCondition[] = [{ column: "id", op: "le", value: 2 }];
    const first = await deleteWhere(await Snapshot.open(store), filter, { txn: { appId: "d", version: 4 } });
    expect(first).toMatchObject({ committed: true, skipped: false, rowsDeleted: 2 });
    expect(await txnVersion(root, "d")).toBe(4);
    const again = await deleteWhere(await Snapshot.open(store), [], { txn: { appId: "d", version: 4 } });
    expect(again).toMatchObject({ committed: false, skipped: true, rowsDeleted: 0, version: first.version });
    const none = await deleteWhere(await Snapshot.open(store), [{ column: "id", op: "eq", value: 99 }]);
    expect(none).toMatchObject({ committed: false, skipped: false, version: first.version });
    expect((await Snapshot.open(store)).version).toBe(first.version);
  });

  it("refuses bad filters, txns and options with the table unchanged", async () => {
    const { root, store } = await newTable();
    const files = await parquetFiles(root);
    const cases: [unknown, DeleteOptions, ErrorKind, RegExp][] = [
      [undefined, {}, "invalid_argument", /needs a filter/],
      [[{ column: "idd", op: "eq", value: 1 }], {}, "invalid_argument", /did you mean "id"/],
      [[{ column: "id", op: "equals", value: 1 }], {}, "invalid_argument", /unknown op/],
      [[{ column: "id", op: "eq", value: "x" }], {}, "invalid_argument", /does not fit/],
      [
        [{ column: "id", op: "eq", value: 1 }],
        { txn: { appId: "", version: 1 } },
        "invalid_argument",
        /appId/,
      ],
      [[{ column: "id", op: "eq", value: 1 }], { readBatchSize: 0 }, "invalid_argument", /readBatchSize/],
      [
        [{ column: "id", op: "eq", value: 1 }],
        { maxParallelFiles: -1 },
        "invalid_argument",
        /maxParallelFiles/,
      ],
    ];
    for (const [filter, options, kind, message] of cases) {
      const { kind: got, error } = await kindOf(
        deleteWhere(await Snapshot.open(store), filter as never, options),
      );
      expect(got).toBe(kind);
      expect((error as Error).message).toMatch(message);
    }
    expect(await parquetFiles(root)).toEqual(files);
    expect((await Snapshot.open(store)).version).toBe(0);
    const appendOnly = await newTable([1, 2], { "delta.appendOnly": "true" });
    const { kind } = await kindOf(deleteWhere(await Snapshot.open(appendOnly.store), []));
    expect(kind).toBe("unsupported");
  });

  it("removes files proven to match without reading them, and leaves files proven not to match", async () => {
    const { root } = await newTable([1, 2, 3, 4, 5, 6, 7, 8]);
    const gets: string[] = [];
    const local = new LocalFileStore(root);
    const counting = new Proxy(local, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (prop === "get" && String(args[0]).endsWith(".parquet")) gets.push(String(args[0]));
          return value.apply(target, args);
        };
      },
    });
    const byPartition = await deleteWhere(await Snapshot.open(counting), [
      { column: "p", op: "eq", value: "a" },
    ]);
    expect(byPartition).toMatchObject({
      committed: true,
      rowsDeleted: 4,
      filesRemovedUnread: 1,
      filesProbed: 0,
    });
    const byStats = await deleteWhere(await Snapshot.open(counting), [{ column: "id", op: "ge", value: 1 }]);
    expect(byStats).toMatchObject({ committed: true, rowsDeleted: 4, filesRemovedUnread: 1, filesProbed: 0 });
    expect(gets).toEqual([]);
    expect((await oracle.call<{ rows: unknown[] }>("merge_read", { uri: root })).rows).toEqual([]);
  });

  it("reads through the shared budgets and gives every permit back", async () => {
    const ids = Array.from({ length: 4000 }, (_, i) => i * 2); // one partition ("a"), one file
    const root = join(tmp, `t-${n++}`);
    const store = new LocalFileStore(root);
    await writeNewTable(store, data(ids), { partitionBy: ["p"], maxRowGroupRows: 500 });
    for (let k = 0; k < 3; k++) {
      await writeExistingTable(await Snapshot.open(store), data(ids.map((i) => i + 10_000 * (k + 1))), {});
    }
    const budgets = createProcessBudgets({});
    const peaks = watch(budgets);
    const result = await deleteWhere(
      await Snapshot.open(store),
      [{ column: "id", op: "in", value: [4, 10_006, 30_000] }],
      {
        processBudgets: budgets,
        maxParallelFiles: 2,
        readBatchSize: 256,
      },
    );
    expect(result).toMatchObject({ committed: true, rowsDeleted: 3, filesRewritten: 3, filesRemoved: 3 });
    expect(result.rowsCopied).toBe(3 * 4000 - 3);
    expect(peaks.files).toBeGreaterThan(0);
    expect(peaks.files).toBeLessThanOrEqual(2);
    expect(peaks.buffer).toBeGreaterThan(0);
    expect(peaks.fetch).toBeGreaterThan(0);
    for (const budget of Object.values(budgets) as Budget[]) {
      expect(budget.snapshot().available).toBe(budget.total);
    }
    const rows = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: root });
    expect(rows.rows.length).toBe(4 * 4000 - 3);
  });
});

/** Records the largest number of permits each budget had out at once. */
/** The most permits each budget had out, seen at every grant (a wait's, and a free budget's taken at once). */
function watch(budgets: ProcessBudgets): Record<keyof ProcessBudgets, number> {
  const peaks = { partitions: 0, files: 0, buffer: 0, fetch: 0 };
  for (const name of Object.keys(peaks) as (keyof ProcessBudgets)[]) {
    const budget = budgets[name];
    const seen = () => {
      peaks[name] = Math.max(peaks[name], budget.total - budget.snapshot().available);
    };
    const acquire = budget.acquire.bind(budget);
    budget.acquire = async (amount, options) => {
      const permit = await acquire(amount, options);
      seen();
      return permit;
    };
    const tryAcquire = budget.tryAcquire.bind(budget);
    budget.tryAcquire = (amount) => {
      const permit = tryAcquire(amount);
      seen();
      return permit;
    };
  }
  return peaks;
}
