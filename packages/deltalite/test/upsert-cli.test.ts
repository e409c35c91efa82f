// The upsert as users reach it: DeltaLiteTable.upsert and `deltalite upsert` (built bin, child process) on
// a partitioned delta-rs table give the same rows as delta-rs MERGE on a copy of the same table, print the
// stats as one JSON document, and record --commit-metadata flat in commitInfo.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Float64, Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm build` first").toBe(true);
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-upsert-cli-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const events = (ids: number[], days: string[], amount: number) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    day: vectorFromArray(days, new Utf8()),
    amount: vectorFromArray(
      ids.map((i) => i * amount),
      new Float64(),
    ),
  });

interface Read {
  rows: unknown[];
  version: number;
  commitInfo?: Record<string, unknown>;
}

async function ipcFile(name: string, table: Table): Promise<string> {
  const file = path.join(tmp, `${name}.arrow`);
  await fs.writeFile(file, tableToIPC(table, "file"));
  return file;
}

describe("upsert through DeltaLiteTable and the CLI equals delta-rs MERGE", () => {
  it("CLI: updates, inserts, a new partition and a NULL-less batch; stats JSON; commit metadata", async () => {
    const seed = await ipcFile("seed", events([1, 2, 3, 4, 5, 6], ["a", "a", "b", "b", "c", "c"], 1));
    const ours = path.join(tmp, "cli-ours");
    const theirs = path.join(tmp, "cli-theirs");
    await oracle.call("merge_create", {
      uris: [ours, theirs],
      data: seed,
      partition_by: ["day"],
      appends: 2,
    });
    const batch = await ipcFile("batch", events([2, 3, 7, 8], ["a", "b", "b", "d"], 10));
    const out = spawnSync(
      process.execPath,
      [
        cli,
        "upsert",
        ours,
        "--input",
        batch,
        "--primary-keys",
        "id",
        "--partition-key",
        "day",
        "--commit-metadata",
        "source=test-sync",
        "--commit-metadata",
        "batch=7",
        // Tiny budgets and a deadline: the same rows, only slower.
        "--max-fetch-bytes",
        "1024",
        "--max-buffered-bytes",
        "1024",
        "--max-parallel-files",
        "1",
        "--timeout-ms",
        "60000",
        "--json",
      ],
      { encoding: "utf8" },
    );
    expect(out.status, out.stderr).toBe(0);
    const stats = JSON.parse(out.stdout);
    expect(stats).toMatchObject({ sourceRows: 4, rowsInserted: 2, rowsUpdated: 2, nullPkRows: 0 });
    expect(stats.rowsInserted + stats.sourceRowsMatched).toBe(stats.sourceRows);
    await oracle.call("merge_delta_rs", { uri: theirs, source: batch, keys: ["id"], partition_key: "day" });
    const a = await oracle.call<Read>("merge_read", { uri: ours });
    const b = await oracle.call<Read>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.version).toBe(stats.version);
    expect(a.commitInfo).toMatchObject({ operation: "MERGE", source: "test-sync", batch: "7" });
  });

  it("CLI: a malformed knob is a usage error (exit 2) naming the flag", () => {
    const args = [
      "upsert",
      "/x",
      "--input",
      "/nope.parquet",
      "--primary-keys",
      "id",
      "--max-fetch-bytes",
      "lots",
    ];
    const out = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain("--max-fetch-bytes");
  });

  it("API: DeltaLiteTable.upsert moves the handle to the new version; errors are typed and change nothing", async () => {
    const seed = await ipcFile("seed2", events([1, 2, 3], ["a", "a", "b"], 1));
    const ours = path.join(tmp, "api-ours");
    const theirs = path.join(tmp, "api-theirs");
    await oracle.call("merge_create", { uris: [ours, theirs], data: seed, partition_by: ["day"] });
    const table = await DeltaLiteTable.open(ours);
    const before = table.version;
    const batch = events([3, 4], ["b", "b"], 5);
    const stats = await table.upsert(batch, { primaryKeys: ["id"], partitionKey: "day" });
    expect(table.version).toBe(stats.version);
    expect(stats.version).toBe(before + 1);
    await oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ipcFile("b2", batch),
      keys: ["id"],
      partition_key: "day",
    });
    expect((await oracle.call<Read>("merge_read", { uri: ours })).rows).toEqual(
      (await oracle.call<Read>("merge_read", { uri: theirs })).rows,
    );
    const duplicate = events([9, 9], ["a", "a"], 1);
    await expect(table.upsert(duplicate, { primaryKeys: ["id"] })).rejects.toMatchObject({ kind: "generic" });
    const extra = new Table({
      id: vectorFromArray([1n], new Int64()),
      day: vectorFromArray(["a"], new Utf8()),
      nope: vectorFromArray(["x"], new Utf8()),
    });
    await expect(table.upsert(extra, { primaryKeys: ["id"] })).rejects.toMatchObject({
      kind: "schema_mismatch",
    });
    await expect(table.upsert(batch, { primaryKeys: ["id"], partitionKey: "id" })).rejects.toBeInstanceOf(
      Error,
    );
    expect((await DeltaLiteTable.open(ours)).version).toBe(stats.version);
  });

  it.each([
    [["upsert", "/x", "--input", "/nope.parquet", "--primary-keys", "id"]],
    [["upsert", "/x", "--primary-keys", "id"]],
    [["upsert", "/x", "--input", "/nope.parquet"]],
    [["upsert", "/x", "--input", "/nope.parquet", "--primary-keys", "id", "--prune-strategy", "magic"]],
  ])("usage error %j exits 2", (args) => {
    const out = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
    expect(out.status).toBe(2);
    expect(out.stdout).toBe("");
  });
});
