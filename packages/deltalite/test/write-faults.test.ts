// Failures injected into the store (FaultyStore) during a write or a scan: the write fails with the injected
// error, the table keeps its version and files, and no data file of the failed write is left behind; a
// truncated read never turns into silently wrong rows.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { FaultyStore, LocalFileStore } from "@deltalite/object-store";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable, scanTable } from "../src/index.js";
import { writeExistingTable } from "../src/write/write-table.js";

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
  it.each([
    ["the commit file put", /_delta_log\/\d{20}\.json$/],
    ["a data file upload", /\.parquet$/],
  ])("a failing %s fails the write and leaves the table unchanged", async (_what, key) => {
    const uri = path.join(tmp, `t-${key.source.length}`);
    await DeltaLiteTable.write(uri, rows(0, 30), { partitionBy: ["day"] });
    const before = { version: (await DeltaLiteTable.open(uri)).version, files: await tableFiles(uri) };
    const store = new FaultyStore(new LocalFileStore(uri), [
      {
        method: key.source.includes("json") ? "put" : "*",
        key,
        times: 1,
        fault: {
          type: "error",
          error: () => new DeltaLiteError("generic", "injected: connection reset", { retryable: true }),
        },
      },
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

  it("a truncated data-file read is an error, not fewer rows", async () => {
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
