/**
 * Crash safety: the upsert runs in a child process (the BUILT package, `pnpm exec tsc -b` first) that is
 * SIGKILLed at the moment it tries to write the commit — after its new data files exist. The table then
 * reads exactly as before (same version, live files and rows, per delta-rs); the unreferenced files are
 * harmless. Re-running the batch converges with one commit, equal to delta-rs MERGE.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Int64, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

// Written next to this file at run time (so bare imports resolve through this package's node_modules) and
// removed afterwards.
const CHILD = `
import { readFileSync } from "node:fs";
import { tableFromIPC } from "apache-arrow";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { upsert } from "../dist/index.js";
const [dir, source, crash] = process.argv.slice(2);
const local = new LocalFileStore(dir);
const store = new Proxy(local, {
  get(target, prop) {
    if (prop === "put" && crash === "1") {
      return async (key, ...rest) => {
        if (key.startsWith("_delta_log/")) process.kill(process.pid, "SIGKILL");
        return target.put(key, ...rest);
      };
    }
    const value = Reflect.get(target, prop);
    return typeof value === "function" ? value.bind(target) : value;
  },
});
const stats = await upsert(await Snapshot.open(store), tableFromIPC(readFileSync(source)), {
  primaryKeys: ["id"],
  partitionKey: "part",
});
process.stdout.write(JSON.stringify({ version: stats.version, filesAdded: stats.filesAdded }));
`;

const schema = new Schema([
  new Field("id", new Int64(), true),
  new Field("name", new Utf8(), true),
  new Field("part", new Utf8(), true),
]);
const tableOf = (ids: number[], tag: string) =>
  new Table(schema, {
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    name: vectorFromArray(
      ids.map((i) => `${tag}-${i}`),
      new Utf8(),
    ),
    part: vectorFromArray(
      ids.map((i) => ["a", "b"][i % 2]!),
      new Utf8(),
    ),
  } as never);

async function parquetFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".parquet")).sort();
}

describe("upsert crash safety", () => {
  let oracle: Oracle;
  let dir: string;
  let child: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-crash-"));
    child = join(here, `.upsert-crash-child-${process.pid}.mjs`);
    await writeFile(child, CHILD);
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
    await rm(child, { force: true });
  });

  it("SIGKILL before the commit leaves the table as it was; re-running converges with one commit", async () => {
    const ours = join(dir, "ours");
    const theirs = join(dir, "theirs");
    const initial = join(dir, "initial.arrow");
    await writeFile(initial, tableToIPC(tableOf([...Array(40).keys()], "old"), "file"));
    await oracle.call("merge_create", {
      uris: [ours, theirs],
      data: initial,
      partition_by: ["part"],
      appends: 2,
    });
    const source = join(dir, "source.arrow");
    await writeFile(source, tableToIPC(tableOf([0, 1, 2, 3, 100, 101], "new"), "file"));

    const before = await Snapshot.open(new LocalFileStore(ours));
    const rowsBefore = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: ours });
    const diskBefore = await parquetFiles(ours);

    const killed = spawnSync(process.execPath, [child, ours, source, "1"], { encoding: "utf8" });
    expect(killed.signal).toBe("SIGKILL");
    // The new data files were written before the kill …
    expect((await parquetFiles(ours)).length).toBeGreaterThan(diskBefore.length);
    // … but the table is unchanged.
    const afterKill = await Snapshot.open(new LocalFileStore(ours));
    expect(afterKill.version).toBe(before.version);
    expect(afterKill.files.map((f) => f.path).sort()).toEqual(before.files.map((f) => f.path).sort());
    expect((await oracle.call<{ rows: unknown[] }>("merge_read", { uri: ours })).rows).toEqual(
      rowsBefore.rows,
    );

    const rerun = spawnSync(process.execPath, [child, ours, source, "0"], { encoding: "utf8" });
    expect(rerun.stderr).toBe("");
    expect(rerun.status).toBe(0);
    expect(JSON.parse(rerun.stdout).version).toBe(before.version + 1);
    await oracle.call("merge_delta_rs", { uri: theirs, source, keys: ["id"], partition_key: "part" });
    const a = await oracle.call<{ rows: unknown[]; version: number }>("merge_read", { uri: ours });
    const b = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
    expect(a.version).toBe(before.version + 1);
    expect(a.rows).toEqual(b.rows);
  });
});
