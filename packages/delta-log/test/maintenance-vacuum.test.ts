// VACUUM against delta-rs: on the same table, our plan equals delta-rs's (lite and full, dry run); a real
// vacuum deletes exactly those files, commits VACUUM START / END, and delta-rs still reads the table.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vacuum } from "../src/maintenance/vacuum.js";
import { Snapshot } from "../src/snapshot.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-vacuum-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

async function tableWithTombstones(name: string): Promise<string> {
  const uri = path.join(tmp, name);
  const columns = { id: [1, 2, 3], day: ["a", "b", "a"] };
  await oracle.call("delta_write", { uri, columns, partition_by: ["day"] });
  await oracle.call("delta_write", { uri, columns, partition_by: ["day"] });
  await oracle.call("delta_write", { uri, columns, partition_by: ["day"], mode: "overwrite" });
  // An untracked file, old enough for a zero retention, that only full mode removes.
  await fs.mkdir(path.join(uri, "day=a"), { recursive: true });
  await fs.writeFile(path.join(uri, "day=a", "stray.parquet"), "not tracked");
  await fs.writeFile(path.join(uri, "_hidden.txt"), "hidden");
  await new Promise((r) => setTimeout(r, 20));
  return uri;
}

const rel = (uri: string, paths: string[]) =>
  paths.map((p) => decodeURIComponent(p.startsWith("/") ? path.relative(uri, p) : p)).sort();

describe("vacuum equals delta-rs's", () => {
  it.each([
    ["lite", false],
    ["full", true],
  ] as const)("%s mode: same files as delta-rs, then a real run", async (mode, full) => {
    const uri = await tableWithTombstones(`t-${mode}`);
    const theirs = await oracle.call<{ deleted: string[] }>("maintenance_vacuum", {
      uri,
      retention_hours: 0,
      full,
      dry_run: true,
    });
    const snapshot = await Snapshot.open(new LocalFileStore(uri));
    const dry = await vacuum(snapshot, {
      retentionHours: 0,
      enforceRetentionDuration: false,
      full,
      dryRun: true,
    });
    expect(dry.files).toEqual(rel(uri, theirs.deleted));
    expect(dry.files.length).toBeGreaterThan(0);
    expect(dry.files.includes("day=a/stray.parquet")).toBe(full);
    expect(dry.files.includes("_hidden.txt")).toBe(false);
    expect(dry.versions).toEqual([]);
    expect((await Snapshot.open(new LocalFileStore(uri))).version).toBe(snapshot.version);

    const done = await vacuum(snapshot, { retentionHours: 0, enforceRetentionDuration: false, full });
    expect(done.files).toEqual(dry.files);
    expect(done.versions).toEqual([snapshot.version + 1, snapshot.version + 2]);
    for (const key of done.files) await expect(fs.stat(path.join(uri, key))).rejects.toThrow();
    const history = await oracle.call<
      { version: number; operation: string; operationMetrics: Record<string, number> }[]
    >("maintenance_history", { uri, limit: 2 });
    expect(history.map((h) => h.operation)).toEqual(["VACUUM END", "VACUUM START"]);
    expect(history[1]!.operationMetrics.numFilesToDelete).toBe(done.files.length);
    expect(history[0]!.operationMetrics.numDeletedFiles).toBe(done.files.length);
    const after = await oracle.call<{ version: number; error?: unknown; files: unknown[] }>(
      "delta_snapshot",
      { uri },
    );
    expect(after.error).toBeUndefined();
    expect(after.version).toBe(snapshot.version + 2);
    expect(after.files.length).toBe(snapshot.numFiles);
    // delta-rs still lists expired tombstones (they stay in the log), but every file it would delete is gone.
    const again = await oracle.call<{ deleted: string[] }>("maintenance_vacuum", {
      uri,
      retention_hours: 0,
      full,
      dry_run: true,
    });
    for (const key of rel(uri, again.deleted)) await expect(fs.stat(path.join(uri, key))).rejects.toThrow();
  });

  it("refuses a retention under the table's 7 days unless the check is disabled, and changes nothing", async () => {
    const uri = await tableWithTombstones("t-guard");
    const snapshot = await Snapshot.open(new LocalFileStore(uri));
    await expect(vacuum(snapshot, { retentionHours: 1 })).rejects.toMatchObject({ kind: "invalid_argument" });
    expect((await Snapshot.open(new LocalFileStore(uri))).version).toBe(snapshot.version);
    // With the default 7-day retention nothing written a moment ago is old enough.
    expect((await vacuum(snapshot, {})).files).toEqual([]);
  });

  it("removes the local store's stale temp files (both modes, never young ones, none in a dry run)", async () => {
    const uri = await tableWithTombstones("t-temp");
    const old = Date.now() / 1000 - 8 * 24 * 3600;
    const stale = [
      path.join(uri, "day=a", ".deltalite-tmp-0123456789abcdef"),
      path.join(uri, "_delta_log", ".deltalite-tmp-aa"),
    ];
    for (const file of stale) {
      await fs.writeFile(file, "left by a writer that died before linking");
      await fs.utimes(file, old, old);
    }
    const young = path.join(uri, "day=b", ".deltalite-tmp-in-progress");
    await fs.mkdir(path.dirname(young), { recursive: true });
    await fs.writeFile(young, "a write in progress");
    const snapshot = await Snapshot.open(new LocalFileStore(uri));
    const dry = await vacuum(snapshot, { dryRun: true });
    expect(dry.tempFiles).toEqual(["_delta_log/.deltalite-tmp-aa", "day=a/.deltalite-tmp-0123456789abcdef"]);
    for (const file of stale) await expect(fs.stat(file)).resolves.toBeDefined();
    const real = await vacuum(snapshot, {});
    expect(real.tempFiles).toEqual(dry.tempFiles);
    expect(real.versions).toEqual([]); // temp files are not table files: no commit records them
    for (const file of stale) await expect(fs.stat(file)).rejects.toThrow();
    await expect(fs.stat(young)).resolves.toBeDefined();
    // A zero retention takes the young one too (the user's choice, as for data files).
    const zero = await vacuum(snapshot, { retentionHours: 0, enforceRetentionDuration: false, dryRun: true });
    expect(zero.tempFiles).toEqual(["day=b/.deltalite-tmp-in-progress"]);
  });
});
