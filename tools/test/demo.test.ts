/**
 * The demo as a new user runs it: `node apps/demo/dist/main.js` (what `pnpm demo` runs) with no Python on
 * PATH. It must finish, keep its table and print its path, and show the CLI's `info` and `scan` on it; with
 * the oracle's Python it also has delta-rs read the table and agree with our scan.
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, venvBin } from "../src/python.js";

const demo = path.join(repoRoot, "apps/demo/dist/main.js");

function runDemo(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  // PATH holds only node's own folder: no python, no pnpm.
  const result = spawnSync(process.execPath, [demo], {
    encoding: "utf8",
    env: { PATH: path.dirname(process.execPath), HOME: process.env.HOME ?? "/tmp", ...env },
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function tablePath(stdout: string): string {
  const match = /^table: (.+)$/m.exec(stdout);
  if (!match?.[1]) throw new Error(`the demo printed no table path:\n${stdout}`);
  return match[1];
}

describe("pnpm demo", () => {
  it("runs with only Node on PATH, keeps its table and shows the CLI on it", () => {
    const run = runDemo({ DELTALITE_DEMO_PYTHON: "/nonexistent/python" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const table = tablePath(run.stdout);
    try {
      expect(existsSync(path.join(table, "_delta_log", "00000000000000000004.json"))).toBe(true);
      expect(run.stdout).toContain("delta-rs cross-check skipped");
      expect(run.stdout).toContain(`$ npx deltalite info ${table}`);
      expect(run.stdout).toContain(`$ npx deltalite scan ${table}`);
      // The CLI's scan prints three NDJSON rows of the requested columns.
      const scanned = run.stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => Object.keys(JSON.parse(line) as object).join(","));
      expect(scanned).toEqual(["id,day,status", "id,day,status", "id,day,status"]);
      expect(run.stdout).toContain(`the table stays at ${table}`);
    } finally {
      rmSync(path.dirname(table), { recursive: true, force: true });
    }
  });

  it("has delta-rs read the table and agree, when the oracle's Python is there", () => {
    const run = runDemo({ DELTALITE_DEMO_PYTHON: venvBin("python") });
    const table = tablePath(run.stdout);
    try {
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/delta-rs reads v4: 1303 rows — identical to our scan/);
    } finally {
      rmSync(path.dirname(table), { recursive: true, force: true });
    }
  });
});
