/**
 * The CI size of `pnpm bench upsert`: runs the benchmark script as a child process at 20k rows (3 partitions ×
 * 4 files) and checks that both contenders ran, that their result tables hold the same rows, that the printed
 * table parses into positive figures, and that both sides report the batch's updates and inserts. The script
 * runs the BUILT `deltalite` package (tools/test.sh builds with `tsc -b` before vitest).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const benchScript = resolve(here, "../../../tools/bench/merge-engine/upsert-bench.mjs");
const callsScript = resolve(here, "../../../tools/bench/merge-engine/warm-calls.mjs");
const deltaliteDist = resolve(here, "../../deltalite/dist/index.js");
const ROWS = 20_000;
const CONTENDERS = ["deltalite upsert", "delta-rs MERGE"] as const;

interface ContenderSummary {
  contender: string;
  peakRssMB: number;
  callMs: number;
  stats: Record<string, number>;
}
interface BenchJson {
  knobs: Record<string, unknown>;
  summary: {
    meta: { rows: number; batchUpdates: number; batchInserts: number; version: number };
    identical: boolean;
    contenders: ContenderSummary[];
  }[];
}

function runBench(
  args: string[],
  script = benchScript,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", fail);
    child.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

describe("pnpm bench upsert at CI size", () => {
  let dir: string;
  let run: { code: number | null; stdout: string; stderr: string };
  let json: BenchJson;

  beforeAll(async () => {
    if (!existsSync(deltaliteDist)) throw new Error(`${deltaliteDist} missing: run pnpm exec tsc -b first`);
    dir = await mkdtemp(join(tmpdir(), "upsert-bench-"));
    run = await runBench([
      "--sizes",
      String(ROWS),
      "--partitions",
      "3",
      "--files-per-partition",
      "4",
      "--dir",
      dir,
      "--json",
      join(dir, "out.json"),
      "--read-batch-size",
      "4096",
    ]);
    if (run.code === 0) json = JSON.parse(await readFile(join(dir, "out.json"), "utf8"));
  }, 120_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("exits 0 and prints that both result tables are identical", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^20000: ours\/MERGE peak RSS \d+\.\d+, call time \d+\.\d+; results identical: yes$/m,
    );
  });

  it.each(CONTENDERS)("prints a parseable row with positive figures for %s", (contender) => {
    const line = run.stdout.split("\n").find((l) => l.startsWith(`${ROWS}  ${contender}`));
    expect(line, run.stdout).toBeDefined();
    const cells = (line ?? "").slice(`${ROWS}  ${contender}`.length).trim().split(/\s+/);
    const [
      rows,
      tableMB,
      files,
      batchRows,
      callS,
      callCpuS,
      processS,
      peakRss,
      preCallRss,
      filesRmAdd,
      mbRw,
    ] = cells;
    expect(Number(rows)).toBe(ROWS);
    expect(Number(files)).toBe(12);
    expect(Number(batchRows)).toBe(ROWS / 100);
    for (const figure of [tableMB, callS, callCpuS, processS, peakRss, preCallRss])
      expect(Number(figure)).toBeGreaterThan(0);
    expect(Number(peakRss)).toBeGreaterThanOrEqual(Number(preCallRss));
    expect(filesRmAdd).toMatch(/^[1-9]\d*\/[1-9]\d*$/);
    expect(mbRw).toMatch(/^\d+\/\d+$/);
  });

  it("passes unknown flags to our upsert as camelCased options", () => {
    expect(json.knobs).toEqual({ readBatchSize: 4096 });
  });

  it("has both contenders update the batch's existing keys and insert its new ones", () => {
    const [size] = json.summary;
    expect(size?.identical).toBe(true);
    const [ours, merge] = size?.contenders ?? [];
    expect(ours?.contender).toBe(CONTENDERS[0]);
    expect(merge?.contender).toBe(CONTENDERS[1]);
    expect(ours?.stats.rowsUpdated).toBe(size?.meta.batchUpdates);
    expect(ours?.stats.rowsInserted).toBe(size?.meta.batchInserts);
    expect(merge?.stats.num_target_rows_updated).toBe(size?.meta.batchUpdates);
    expect(merge?.stats.num_target_rows_inserted).toBe(size?.meta.batchInserts);
    expect(ours?.stats.version).toBe((size?.meta.version ?? 0) + 1);
  });

  it("pnpm bench upsert-calls: two calls in one process on the same table, the same counts each time", async () => {
    const tables = join(dir, `upsert-r${ROWS}-p3-f4-s42`);
    const calls = await runBench(
      [
        "--table",
        join(tables, "pristine"),
        "--batch",
        join(tables, "batch-uniform-b0.01.parquet"),
        "--processes",
        "1",
        "--calls",
        "2",
        "--dir",
        join(dir, "calls"),
      ],
      callsScript,
    );
    expect(calls.code, calls.stderr).toBe(0);
    expect(calls.stdout).toMatch(/^ours +1 +\d+\.\d+ /m);
    expect(calls.stdout).toMatch(/^ours +2 +\d+\.\d+ /m);
    const counts = [json.summary[0]?.meta.batchUpdates, json.summary[0]?.meta.batchInserts];
    expect(calls.stdout).toContain(`in every call: yes [${counts.join(",")},`);
  }, 120_000);
});
