/**
 * The txn building blocks every engine uses: `checkAppTransaction` refuses what is not `{ appId: non-empty
 * string, version: non-negative integer }` with `invalid_argument`; `txnActions` builds the action with
 * `lastUpdated`; `appTransactionApplied` answers from the snapshot. A txn we commit is read by delta-rs
 * `transaction_version`, also from the checkpoint our post-commit hook writes on the interval (the JSON
 * commits before it deleted), and a txn delta-rs commits is read by our snapshot.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appTransactionApplied,
  checkAppTransaction,
  commitTransaction,
  createTable,
  defaultMaintenanceHooks,
  Snapshot,
  txnActions,
} from "../src/index.js";

let tmp: string;
let oracle: Oracle;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-app-txn-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const schema = {
  type: "struct" as const,
  fields: [{ name: "id", type: "long", nullable: true, metadata: {} }],
};

describe("checkAppTransaction", () => {
  it.each([
    [null, /object/],
    ["x", /object/],
    [[1], /object/],
    [{ version: 1 }, /appId/],
    [{ appId: "", version: 1 }, /appId/],
    [{ appId: 7, version: 1 }, /appId/],
    [{ appId: "a", version: -1 }, /version/],
    [{ appId: "a", version: 1.5 }, /version/],
    [{ appId: "a", version: "1" }, /version/],
    [{ appId: "a", version: Number.NaN }, /version/],
    [{ appId: "a", version: 2 ** 60 }, /version/],
    [{ appId: "a", version: 1, extra: true }, /unknown: extra/],
  ])("refuses %j", (txn, message) => {
    let error: unknown;
    try {
      checkAppTransaction(txn, "t");
    } catch (e) {
      error = e;
    }
    expect(isDeltaLiteError(error) && error.kind).toBe("invalid_argument");
    expect((error as Error).message).toMatch(message);
  });

  it("accepts undefined and valid txns; builds the action with lastUpdated", () => {
    expect(() => checkAppTransaction(undefined, "t")).not.toThrow();
    expect(() => checkAppTransaction({ appId: "a", version: 0 }, "t")).not.toThrow();
    expect(txnActions(undefined)).toEqual([]);
    expect(txnActions({ appId: "a", version: 3 }, 42)).toEqual([
      { txn: { appId: "a", version: 3, lastUpdated: 42 } },
    ]);
  });
});

describe("txn round trips with delta-rs", () => {
  it("delta-rs reads our txn from the commits and from our checkpoint; we read delta-rs's", async () => {
    const root = path.join(tmp, "t");
    const store = new LocalFileStore(root);
    await createTable(store, { schema, configuration: { "delta.checkpointInterval": "3" } });
    let snapshot = await Snapshot.open(store);
    expect(appTransactionApplied(snapshot, { appId: "job", version: 0 })).toBe(false);
    for (let version = 1; version <= 2; version++) {
      const commit = await commitTransaction(snapshot, txnActions({ appId: "job", version }), {
        operation: "WRITE",
        hooks: defaultMaintenanceHooks(),
      });
      snapshot = commit.snapshot;
    }
    // Version 2 is on the interval: our checkpoint holds the txn; drop the JSON commits it covers.
    expect(await fs.readdir(path.join(root, "_delta_log"))).toContain(
      "00000000000000000002.checkpoint.parquet",
    );
    for (const name of [
      "00000000000000000000.json",
      "00000000000000000001.json",
      "00000000000000000002.json",
    ]) {
      await fs.rm(path.join(root, "_delta_log", name));
    }
    const theirs = await oracle.call<{ txnVersion: number | null }>("txn_version", {
      uri: root,
      app_id: "job",
    });
    expect(theirs.txnVersion).toBe(2);
    const reopened = await Snapshot.open(store);
    expect(reopened.txnVersion("job")).toBe(2);
    expect(appTransactionApplied(reopened, { appId: "job", version: 2 })).toBe(true);
    expect(appTransactionApplied(reopened, { appId: "job", version: 3 })).toBe(false);

    const rsRoot = path.join(tmp, "rs");
    await oracle.call("delta_write", { uri: rsRoot, columns: { id: [1] } });
    const ipc = path.join(tmp, "rs.arrow");
    const { tableToIPC, tableFromArrays } = await import("apache-arrow");
    await fs.writeFile(ipc, tableToIPC(tableFromArrays({ id: BigInt64Array.from([2n]) }), "file"));
    await oracle.call("txn_write", { uri: rsRoot, data: ipc, txn: { appId: "rs", version: 9 } });
    expect((await Snapshot.open(new LocalFileStore(rsRoot))).txnVersion("rs")).toBe(9);
  });
});
