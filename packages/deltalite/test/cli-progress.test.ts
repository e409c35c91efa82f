// The progress line of write, upsert, scan and vacuum: drawn on stderr when it is a terminal (the built bin
// run under `script`, which gives it a pseudo-terminal), with rows, bytes, elapsed time, redrawn in place
// and erased at the end; nothing at all on stderr when stderr is a pipe.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
const hasScript = spawnSync("script", ["--version"]).status === 0;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-progress-"));
  const ids = Array.from({ length: 5000 }, (_, i) => BigInt(i));
  const rows = new Table({
    id: vectorFromArray(ids, new Int64()),
    day: vectorFromArray(
      ids.map((i) => `d${i % 3n}`),
      new Utf8(),
    ),
  });
  await fs.writeFile(path.join(cwd, "in.arrow"), tableToIPC(rows, "file"));
});
afterAll(async () => {
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

const ERASE = "\r\x1b[2K";
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The bin under a pseudo-terminal: everything it printed (stdout and stderr share the terminal). */
function onTerminal(args: string[]): string {
  const command = [process.execPath, cli, ...args].map(quote).join(" ");
  const out = spawnSync("script", ["-qec", command, "/dev/null"], { cwd, encoding: "utf8" });
  expect(out.status, out.stdout).toBe(0);
  return out.stdout;
}

function piped(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  expect(out.status, out.stderr).toBe(0);
  return out;
}

describe.skipIf(!hasScript)("progress on a TTY", () => {
  it.each([
    [
      "write",
      ["write", "t", "--input", "in.arrow", "--mode", "overwrite", "--partition-by", "day"],
      /writing .*5,000 rows {2}\d/,
    ],
    [
      "upsert",
      ["upsert", "t", "--input", "in.arrow", "--primary-keys", "id"],
      /upserting into .*5,000 rows {2}\d/,
    ],
    [
      "scan",
      ["scan", "t", "-o", "out.parquet"],
      /scanning 3 of 3 files {2}5,000 rows {2}[\d.]+ KiB {2}3 files/,
    ],
    [
      "vacuum",
      ["vacuum", "t", "--retention-hours", "0", "--no-retention-check"],
      /vacuuming .* {2}\d+ files/,
    ],
  ])("%s draws rows / bytes / files and elapsed time, then erases the line", (_verb, args, line) => {
    if (_verb === "upsert" || _verb === "scan" || _verb === "vacuum") {
      if (!existsSync(path.join(cwd, "t")))
        piped(["write", "t", "--input", "in.arrow", "--partition-by", "day"]);
    }
    const screen = onTerminal(args as string[]);
    const frames = screen.split(ERASE);
    expect(frames.length, screen).toBeGreaterThan(2);
    expect(screen).toMatch(line as RegExp);
    expect(frames.some((f) => /\d+\.\ds/.test(f))).toBe(true);
    // The result follows the erased line, on its own.
    expect(frames.at(-1)).toMatch(/^(committed|scanned|deleted)/);
  });
});

describe("no progress when stderr is not a terminal", () => {
  it.each([
    [["write", "quiet", "--input", "in.arrow"]],
    [["upsert", "quiet", "--input", "in.arrow", "--primary-keys", "id"]],
    [["scan", "quiet", "-o", "quiet.ndjson"]],
    [["vacuum", "quiet"]],
  ])("%j: stderr is empty", (args) => {
    const out = piped(args);
    expect(out.stderr).toBe("");
    expect(out.stdout).not.toContain("\r");
  });
});
