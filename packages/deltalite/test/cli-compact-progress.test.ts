// The progress line of compact and z-order on a terminal (the built bin under `script`, as cli-progress.test.ts
// runs it): bins done of bins and the input bytes read of the bins' bytes, redrawn in place and erased before
// the result; nothing on stderr when stderr is a pipe.
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

const ERASE = "\r\x1b[2K";
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const BYTES = String.raw`[\d.]+ (?:B|KiB|MiB)`;

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  expect(out.status, out.stderr).toBe(0);
  return out;
}

/** The bin under a pseudo-terminal: everything it printed (stdout and stderr share the terminal). */
function onTerminal(args: string[]): string {
  const command = [process.execPath, cli, ...args].map(quote).join(" ");
  const out = spawnSync("script", ["-qec", command, "/dev/null"], { cwd, encoding: "utf8" });
  expect(out.status, out.stdout).toBe(0);
  return out.stdout;
}

/** A table of three partitions with four small files each (four appends), at `name`. */
function smallFiles(name: string): void {
  run(["write", name, "--input", "in.arrow", "--partition-by", "day"]);
  for (let i = 0; i < 3; i++) run(["write", name, "--input", "in.arrow", "--mode", "append"]);
}

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-compact-progress-"));
  const ids = Array.from({ length: 3000 }, (_, i) => BigInt(i));
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

describe.skipIf(!hasScript)("compact and z-order progress on a TTY", () => {
  it.each([
    ["compact", ["compact", "tc"], /^compacted 12 files into 3/],
    ["z-order", ["z-order", "tz", "--columns", "id"], /^z-ordered 12 files into 3/],
  ])("%s draws bins done / bins and bytes read / bytes, then erases the line", (verb, args, result) => {
    smallFiles(verb === "compact" ? "tc" : "tz");
    const screen = onTerminal(args as string[]);
    const frames = screen.split(ERASE);
    expect(frames.length, screen).toBeGreaterThan(2);
    // The last drawn frame: every bin done, every input byte read, of the totals the plan gave.
    const last = frames.at(-2) ?? "";
    const full = new RegExp(
      String.raw`ing .* {2}3/3 bins {2}(${BYTES}) of (${BYTES}) {2}12 files {2}\d+\.\ds`,
    );
    const match = full.exec(last);
    expect(match, last).not.toBeNull();
    expect(match?.[1]).toBe(match?.[2]);
    expect(frames.every((f) => !/(\d+)\/(\d+) bins/.test(f) || /[0-3]\/3 bins/.test(f))).toBe(true);
    // The result follows the erased line, on its own.
    expect(frames.at(-1)).toMatch(result as RegExp);
  });
});

describe("no compact / z-order progress when stderr is not a terminal", () => {
  it.each([
    ["compact", ["compact", "qc"]],
    ["z-order", ["z-order", "qz", "--columns", "id"]],
  ])("%s: stderr is empty", (verb, args) => {
    smallFiles(verb === "compact" ? "qc" : "qz");
    const out = run(args as string[]);
    expect(out.stderr).toBe("");
    expect(out.stdout).not.toContain("\r");
    expect(out.stdout).toMatch(/files into 3/);
  });
});
