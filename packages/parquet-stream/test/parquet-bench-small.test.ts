/**
 * The CI size of `pnpm bench parquet` (SPEC: benchmarks are commands; CI runs a small size of each): the
 * benchmark runs as a child process at 20k rows on local disk, every engine reports, the rows it wrote or
 * read are the rows asked for, and the figures parse as positive numbers. The script runs the built
 * packages (tools/test.sh builds with `tsc -b` before vitest).
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const dispatcher = resolve(here, "../../../tools/bench/run.mjs");
const ROWS = 20_000;

interface Result {
  name: string;
  target: string;
  rows: number;
  bytes: number;
  wallSeconds: number;
  peakRssMB: number;
}

describe("pnpm bench parquet at CI size", () => {
  let dir: string;
  let out: ReturnType<typeof spawnSync>;
  let results: Result[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "parquet-bench-"));
    out = spawnSync(
      process.execPath,
      [dispatcher, "parquet", "--sizes", String(ROWS), "--targets", "local", "--json", join(dir, "out.json")],
      { encoding: "utf8", timeout: 120_000 },
    );
    if (out.status === 0) results = JSON.parse(await readFile(join(dir, "out.json"), "utf8")).results;
  }, 150_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("exits 0 and prints the local-disk table", () => {
    expect(out.status, String(out.stderr)).toBe(0);
    expect(String(out.stdout)).toContain("### target: local disk");
  });

  it.each(["deltalite write", "deltalite read", "pyarrow write", "pyarrow read", "delta-rs write"])(
    "%s ran over the asked rows with positive figures",
    (name) => {
      const result = results.find((r) => r.name === name);
      expect(result, JSON.stringify(results.map((r) => r.name))).toBeDefined();
      expect(result?.rows).toBe(ROWS);
      expect(result?.target).toBe("local");
      expect(result?.bytes).toBeGreaterThan(0);
      expect(result?.wallSeconds).toBeGreaterThan(0);
      expect(result?.peakRssMB).toBeGreaterThan(0);
    },
  );
});
