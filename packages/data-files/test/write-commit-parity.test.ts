/**
 * WRITE commits shaped as delta-rs 1.6.6 writes them: the same data written by delta-rs (write_deltalake
 * through the oracle) and by us, version by version (create, append, overwrite; unpartitioned and
 * partitioned), gives the same operationParameters and the same operationMetrics keys, in the same order,
 * all integers, equal wherever the value is deterministic (all but execution_time_ms). num_retries counts
 * the retries a commit really took.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeExistingTable, writeNewTable } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-write-commit-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const columns = { id: [1, 2, 3, 4, 5], p: ["a", "b", "a", "c", "b"] };
const ours = () =>
  new Table({
    id: vectorFromArray(columns.id.map(BigInt), new Int64()),
    p: vectorFromArray(columns.p, new Utf8()),
  });

async function commitInfo(root: string, version: number): Promise<Record<string, unknown>> {
  const file = path.join(root, "_delta_log", `${String(version).padStart(20, "0")}.json`);
  const first = (await fs.readFile(file, "utf8")).split("\n")[0]!;
  return JSON.parse(first).commitInfo;
}

const deterministic = (metrics: Record<string, unknown>) => {
  const { execution_time_ms: _time, ...rest } = metrics;
  return rest;
};

describe.each([
  ["unpartitioned", []],
  ["partitioned by p", ["p"]],
] as const)("%s", (name, partitionBy) => {
  it("create, append and overwrite commit what delta-rs commits", async () => {
    const theirsRoot = path.join(tmp, `theirs-${name.replace(/\W/g, "")}`);
    const oursRoot = path.join(tmp, `ours-${name.replace(/\W/g, "")}`);
    const store = new LocalFileStore(oursRoot);
    const partition = partitionBy.length > 0 ? { partition_by: [...partitionBy] } : {};
    for (const mode of ["error", "append", "overwrite"] as const) {
      await oracle.call("delta_write", { uri: theirsRoot, columns, mode, ...partition });
      if (mode === "error") await writeNewTable(store, ours(), { partitionBy });
      else await writeExistingTable(await Snapshot.open(store), ours(), { mode });
    }
    for (const version of [0, 1, 2]) {
      const theirs = await commitInfo(theirsRoot, version);
      const mine = await commitInfo(oursRoot, version);
      expect(mine.operation).toBe("WRITE");
      expect(mine.operationParameters).toEqual(theirs.operationParameters);
      const theirMetrics = theirs.operationMetrics as Record<string, unknown>;
      const myMetrics = mine.operationMetrics as Record<string, unknown>;
      expect(Object.keys(myMetrics)).toEqual(Object.keys(theirMetrics));
      for (const value of Object.values(myMetrics)) expect(Number.isSafeInteger(value)).toBe(true);
      expect(myMetrics.execution_time_ms as number).toBeGreaterThanOrEqual(0);
      expect(deterministic(myMetrics)).toEqual(deterministic(theirMetrics));
    }
    // The overwrite removed what the two writes before it added, and delta-rs reads the result.
    const last = (await commitInfo(oursRoot, 2)).operationMetrics as Record<string, number>;
    const filesPerWrite = partitionBy.length > 0 ? 3 : 1;
    expect(last).toMatchObject({ num_added_files: filesPerWrite, num_removed_files: 2 * filesPerWrite });
    const read = await oracle.call<{ rows: unknown[]; version: number }>("tw_read_table", { uri: oursRoot });
    expect(read).toMatchObject({ version: 2 });
    expect(read.rows).toHaveLength(columns.id.length);
  });
});

it("num_retries is the number of retries the commit took", async () => {
  const root = path.join(tmp, "retries");
  const store = new LocalFileStore(root);
  await writeNewTable(store, ours(), {});
  const stale = await Snapshot.open(store);
  await writeExistingTable(await Snapshot.open(store), ours(), {}); // takes version 1 behind stale's back
  const result = await writeExistingTable(stale, ours(), {});
  expect(result).toMatchObject({ committed: true, version: 2 });
  expect(result.commit?.attempts).toBe(2);
  expect((await commitInfo(root, 1)).operationMetrics).toMatchObject({ num_retries: 0 });
  expect((await commitInfo(root, 2)).operationMetrics).toMatchObject({ num_retries: 1 });
});
