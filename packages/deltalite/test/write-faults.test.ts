// Failures injected into the store (FaultyStore) during a write or a scan: a failed data-file upload fails
// the write with the injected error, the table keeps its version and files, and no data file of the failed
// write is left behind; an inconclusive commit put is settled (the write lands once), or, when it cannot be,
// reported as unknown with the files kept; a truncated read never turns into silently wrong rows.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { writeExistingTable } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { FaultyStore } from "@deltalite/object-store/testing";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { DeltaLiteTable, scanTable } from "../src/index.js";

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-faults-"));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const rows = (from: number, n: number) =>
  new Table({
    id: vectorFromArray(
      Array.from({ length: n }, (_, i) => BigInt(from + i)),
      new Int64(),
    ),
    day: vectorFromArray(
      Array.from({ length: n }, (_, i) => `d${i % 3}`),
      new Utf8(),
    ),
  });

async function tableFiles(uri: string): Promise<string[]> {
  return (await fs.readdir(uri, { recursive: true })).filter((f) => f.endsWith(".parquet")).sort();
}

describe("injected store faults", () => {
  const connectionReset = () =>
    new DeltaLiteError("generic", "injected: connection reset", { retryable: true });

  it("a failing data file upload fails the write and leaves the table unchanged", async () => {
    const uri = path.join(tmp, "t-data-upload");
    await DeltaLiteTable.write(uri, rows(0, 30), { partitionBy: ["day"] });
    const before = { version: (await DeltaLiteTable.open(uri)).version, files: await tableFiles(uri) };
    const store = new FaultyStore(new LocalFileStore(uri), [
      { method: "*", key: /\.parquet$/, times: 1, fault: { type: "error", error: connectionReset } },
    ]);
    const snapshot = await Snapshot.open(store);
    await expect(writeExistingTable(snapshot, rows(100, 30), {})).rejects.toMatchObject({
      kind: "generic",
      message: "injected: connection reset",
    });
    expect(store.fired).toBe(1);
    const after = await DeltaLiteTable.open(uri);
    expect(after.version).toBe(before.version);
    expect(after.numFiles).toBe(3);
    expect(await tableFiles(uri)).toEqual(before.files);
  });

  it("a commit put that failed inconclusively once is settled: the write lands exactly once", async () => {
    const uri = path.join(tmp, "t-commit-once");
    await DeltaLiteTable.write(uri, rows(0, 30), { partitionBy: ["day"] });
    const before = await DeltaLiteTable.open(uri);
    const store = new FaultyStore(new LocalFileStore(uri), [
      {
        method: "put",
        key: /_delta_log\/\d{20}\.json$/,
        times: 1,
        fault: { type: "error", error: connectionReset },
      },
    ]);
    const result = await writeExistingTable(await Snapshot.open(store), rows(100, 30), {});
    expect(store.fired).toBe(1);
    expect(result.version).toBe(before.version + 1);
    const after = await DeltaLiteTable.open(uri);
    expect(after.version).toBe(before.version + 1);
    expect(after.numFiles).toBe(6);
    expect((await tableFiles(uri)).length).toBe(6);
  });

  it("a commit put that never settles keeps the written files and says the outcome is unknown", async () => {
    const uri = path.join(tmp, "t-commit-unknown");
    await DeltaLiteTable.write(uri, rows(0, 30), { partitionBy: ["day"] });
    const before = { version: (await DeltaLiteTable.open(uri)).version, files: await tableFiles(uri) };
    const commitFile = /_delta_log\/\d{20}\.json$/;
    const store = new FaultyStore(new LocalFileStore(uri), [
      { method: "put", key: commitFile, fault: { type: "error", error: connectionReset } },
    ]);
    const error = await writeExistingTable(await Snapshot.open(store), rows(100, 30), {}).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: "generic", retryable: false, commitOutcome: "unknown" });
    const after = await DeltaLiteTable.open(uri);
    expect(after.version).toBe(before.version);
    // The three new files stay (a live version might have named them); vacuum takes them later.
    expect((await tableFiles(uri)).length).toBe(before.files.length + 3);
  });

  it("a truncated whole-file read of a small file is read again by ranges: all rows, never fewer", async () => {
    const uri = path.join(tmp, "t-truncated-small");
    await DeltaLiteTable.write(uri, rows(0, 50));
    const store = new FaultyStore(new LocalFileStore(uri), [
      { method: "get", key: /\.parquet$/, call: 1, fault: { type: "truncate", bytes: 10 } },
    ]);
    const snapshot = await Snapshot.open(store);
    let n = 0;
    for await (const batch of scanTable(snapshot)) n += batch.numRows;
    expect(store.fired).toBe(1);
    expect(n).toBe(50);
  });

  it("a truncated data-file read is an error, not fewer rows", async () => {
    // The range reads themselves (the small-file single GET, which checks the length it got, switched off).
    process.env.DELTALITE_SMALL_FILE_SINGLE_GET = "off";
    onTestFinished(() => {
      delete process.env.DELTALITE_SMALL_FILE_SINGLE_GET;
    });
    const uri = path.join(tmp, "t-truncated");
    await DeltaLiteTable.write(uri, rows(0, 50));
    const store = new FaultyStore(new LocalFileStore(uri), [
      { method: "get", key: /\.parquet$/, call: 1, fault: { type: "truncate", bytes: 10 } },
    ]);
    const snapshot = await Snapshot.open(store);
    const read = async () => {
      let n = 0;
      for await (const batch of scanTable(snapshot)) n += batch.numRows;
      return n;
    };
    const error = await read().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: expect.stringMatching(/corrupt_log|generic/) });
    expect(store.fired).toBe(1);
    expect(await read()).toBe(50);
  });
});
