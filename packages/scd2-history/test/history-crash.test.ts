/**
 * Crash safety: the history upsert runs in a child process (the BUILT package: `pnpm exec tsc -b` first)
 * that is SIGKILLed when it tries to write the commit, after its data files exist. The table then reads as
 * before (delta-rs); re-running the batch converges to exactly what one clean run gives on a twin table,
 * and a further re-run keeps nothing and returns `committed: false`.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyUpsert } from "../src/index.js";
import {
  createHistoryTable,
  historyOptions,
  latest,
  microsOf,
  readWithDeltaRs,
  type SourceRow,
  sortRows,
  sourceTable,
  type TableLayout,
} from "./history-fixtures.js";

const here = dirname(fileURLToPath(import.meta.url));

// Written next to this file at run time (bare imports resolve through this package's node_modules).
const CHILD = `
import { readFileSync } from "node:fs";
import { tableFromIPC } from "apache-arrow";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { historyUpsert } from "../dist/index.js";
const [dir, source, options, crash] = process.argv.slice(2);
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
const stats = await historyUpsert(await Snapshot.open(store), tableFromIPC(readFileSync(source)), JSON.parse(options));
process.stdout.write(JSON.stringify({ version: stats.version, committed: stats.committed }));
`;

const layout: TableLayout = { keyColumns: ["k1", "k2"], tieBreak: "table" };
const row = (k1: number | null, ord: number, vf: string, tb: number | null = null): SourceRow => ({
  k1,
  k2: "k",
  ord,
  tb,
  vf: microsOf(vf),
  pay: `p${ord}`,
});
const SEED = [
  row(1, 1, "2024-01-01T00:00:00Z"),
  row(2, 1, "2024-01-01T00:00:00Z"),
  row(null, 1, "2024-01-01T00:00:00Z"),
];
const BATCH = [
  row(1, 2, "2024-01-31T23:30:00-02:00"),
  row(1, 3, "2024-03-01T00:00:00Z", 1),
  row(1, 3, "2024-03-02T00:00:00Z", 0),
  row(2, 1, "2024-02-01T00:00:00Z"),
  row(null, 4, "2024-12-31T23:59:59Z"),
  row(3, 1, "2025-01-01T00:00:00Z"),
];

async function parquetFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".parquet")).sort();
}

describe("historyUpsert crash safety", () => {
  let oracle: Oracle;
  let dir: string;
  let child: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-scd2-crash-"));
    child = join(here, `.history-crash-child-${process.pid}.mjs`);
    await writeFile(child, CHILD);
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
    await rm(child, { force: true });
  });

  it("SIGKILL before the commit leaves the table as it was; a re-run equals one clean run", async () => {
    const tables = [await createHistoryTable(dir, layout), await createHistoryTable(dir, layout)];
    for (const { snapshot } of tables) {
      await historyUpsert(snapshot, sourceTable(SEED, layout, "UTC"), historyOptions(layout));
    }
    const [ours, twin] = tables.map((t) => t.uri) as [string, string];
    const source = join(dir, "batch.arrow");
    await writeFile(source, tableToIPC(sourceTable(BATCH, layout, "-02:00"), "file"));
    const options = JSON.stringify(historyOptions(layout));
    const before = await latest(ours);
    const rowsBefore = await readWithDeltaRs(oracle, ours);
    const diskBefore = await parquetFiles(ours);

    const killed = spawnSync(process.execPath, [child, ours, source, options, "1"], { encoding: "utf8" });
    expect(killed.signal).toBe("SIGKILL");
    expect((await parquetFiles(ours)).length).toBeGreaterThan(diskBefore.length);
    const afterKill = await latest(ours);
    expect(afterKill.version).toBe(before.version);
    expect(sortRows(await readWithDeltaRs(oracle, ours))).toEqual(sortRows(rowsBefore));

    const rerun = spawnSync(process.execPath, [child, ours, source, options, "0"], { encoding: "utf8" });
    expect(rerun.stderr).toBe("");
    expect(JSON.parse(rerun.stdout)).toEqual({ version: before.version + 1, committed: true });
    await historyUpsert(await latest(twin), sourceTable(BATCH, layout, "-02:00"), historyOptions(layout));
    expect(sortRows(await readWithDeltaRs(oracle, ours))).toEqual(
      sortRows(await readWithDeltaRs(oracle, twin)),
    );

    const again = spawnSync(process.execPath, [child, ours, source, options, "0"], { encoding: "utf8" });
    expect(JSON.parse(again.stdout)).toEqual({ version: before.version + 1, committed: false });
  });
});
