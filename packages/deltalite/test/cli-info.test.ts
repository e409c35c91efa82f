// `deltalite info` and `vacuum` as a user reads them (built bin, temporary working directory): the human
// info — schema with types and nullability, partition columns, files, rows and bytes from the Add actions,
// properties — equal to delta-rs's view of the same table, saying when some files lack stats; `info --json`
// printing each file's stats exactly as the log holds them (an int64 of 2^53 + 1 keeps its last digit);
// vacuum reporting the bytes it deleted (the deleted files' sizes), in JSON and in its human line.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { venvBin } from "@deltalite/tools/python";
import { Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-info-"));
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

interface DeltaRsSnapshot {
  version: number;
  files: { path: string; size: number }[];
  configuration: Record<string, string>;
}

/** The `stats` strings of every add in the table's commit files. */
async function loggedStats(table: string): Promise<string[]> {
  const log = path.join(cwd, table, "_delta_log");
  const out: string[] = [];
  for (const name of (await fs.readdir(log)).filter((f) => f.endsWith(".json")).sort()) {
    for (const line of (await fs.readFile(path.join(log, name), "utf8")).split("\n")) {
      if (line.includes('"add"')) out.push(JSON.parse(line).add.stats);
    }
  }
  return out;
}

describe("deltalite info", () => {
  it("the human info equals delta-rs's view: schema, partition columns, files, rows, bytes, properties", async () => {
    const uri = path.join(cwd, "people");
    const columns = { id: [1, 2, 3, 4, 5], city: ["x", "y", "x", "z", "x"], score: [0.5, null, 1, 2, 3] };
    await oracle.call("delta_write", {
      uri,
      columns,
      types: { id: "int64" },
      partition_by: ["city"],
      configuration: { "delta.logRetentionDuration": "interval 30 days" },
    });
    await oracle.call("delta_write", { uri, columns, types: { id: "int64" }, partition_by: ["city"] });
    const theirs = await oracle.call<DeltaRsSnapshot>("delta_snapshot", { uri });
    const r = run(["info", "people"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const bytes = theirs.files.reduce((sum, f) => sum + f.size, 0);
    expect(r.stdout).toContain(`table      ${uri}\nversion    ${theirs.version}\n`);
    expect(r.stdout).toMatch(
      /schema:\n {2}id\s+long\s+nullable\n {2}city\s+string\s+nullable\n {2}score\s+double\s+nullable\n/,
    );
    expect(r.stdout).toContain("partition columns: city\n");
    expect(r.stdout).toContain(`files      ${theirs.files.length}\n`);
    expect(r.stdout).toContain("rows       10\n");
    expect(r.stdout).toMatch(new RegExp(`bytes      ${bytes} \\(\\d+\\.\\d KiB\\)\n`));
    expect(r.stdout).toContain("properties:\n  delta.logRetentionDuration = interval 30 days\n");
    expect(theirs.configuration).toEqual({ "delta.logRetentionDuration": "interval 30 days" });
    const json = JSON.parse(run(["info", "people", "--json"]).stdout);
    expect(json).toMatchObject({
      numFiles: theirs.files.length,
      sizeBytes: bytes,
      numRows: 10,
      filesWithoutStats: 0,
    });
  });

  it("says when some files lack stats (rows then count only the files with stats)", async () => {
    await fs.writeFile(
      path.join(cwd, "in.arrow"),
      tableToIPC(
        new Table({ id: vectorFromArray([1n, 2n], new Int64()), s: vectorFromArray(["a", "b"], new Utf8()) }),
        "file",
      ),
    );
    run(["write", "nostats", "--input", "in.arrow"]);
    run(["write", "nostats", "--input", "in.arrow", "--mode", "append"]);
    // A writer that records no stats (allowed by the protocol): drop them from version 1's add.
    const commit = path.join(cwd, "nostats", "_delta_log", "00000000000000000001.json");
    const lines = (await fs.readFile(commit, "utf8")).split("\n").map((line) => {
      if (!line.includes('"add"')) return line;
      const action = JSON.parse(line);
      delete action.add.stats;
      return JSON.stringify(action);
    });
    await fs.writeFile(commit, lines.join("\n"));
    const r = run(["info", "nostats"]);
    expect(r.stdout).toContain("rows       2 in the 1 files with stats (1 of 2 files have no stats)\n");
    const json = JSON.parse(run(["info", "nostats", "--json"]).stdout);
    expect(json).toMatchObject({ numRows: 2, filesWithoutStats: 1 });
    expect(json.files.map((f: { stats: unknown }) => f.stats === null).sort()).toEqual([false, true]);
  });

  it("info --json prints stats exactly as the log holds them: 9007199254740993 keeps its last digit", async () => {
    const big = new Table({
      id: vectorFromArray([9007199254740993n, -9007199254740993n, 5n], new Int64()),
      s: vectorFromArray(["a", "b", "c"], new Utf8()),
    });
    await fs.writeFile(path.join(cwd, "big.arrow"), tableToIPC(big, "file"));
    expect(run(["write", "big", "--input", "big.arrow"]).code).toBe(0);
    const [stats] = await loggedStats("big");
    expect(stats).toContain('"maxValues":{"id":9007199254740993');
    const out = run(["info", "big", "--json"]).stdout;
    expect(out.trim().split("\n")).toHaveLength(1);
    expect(out).toContain(`"stats":${stats}`);
    // A reader with exact integers (Python's json) sees the log's values.
    const py = spawnSync(
      venvBin("python"),
      [
        "-c",
        "import json,sys; s=json.load(sys.stdin)['files'][0]['stats']; print(s['maxValues']['id'], s['minValues']['id'])",
      ],
      { input: out, encoding: "utf8" },
    );
    expect(py.stdout.trim()).toBe("9007199254740993 -9007199254740993");
  });
});

describe("deltalite vacuum reports the bytes it deleted", () => {
  it("--json bytes equal the deleted files' sizes; the human line says files and bytes", async () => {
    const uri = path.join(cwd, "vac");
    const columns = { id: [1, 2, 3, 4], day: ["a", "b", "a", "c"] };
    await oracle.call("delta_write", { uri, columns, partition_by: ["day"] });
    await oracle.call("delta_write", { uri, columns, partition_by: ["day"], mode: "overwrite" });
    const dry = JSON.parse(
      run(["vacuum", "vac", "--retention-hours", "0", "--no-retention-check", "--dry-run", "--json"]).stdout,
    );
    expect(dry.files.length).toBeGreaterThan(0);
    let sizes = 0;
    for (const file of dry.files as string[]) sizes += (await fs.stat(path.join(uri, file))).size;
    expect(dry.bytes).toBe(sizes);
    const human = run(["vacuum", "vac", "--retention-hours", "0", "--no-retention-check"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^deleted ${dry.files.length} files, ${sizes} bytes \\(\\d+(\\.\\d)? (B|KiB)\\)\n`),
    );
    for (const file of dry.files as string[]) expect(existsSync(path.join(uri, file))).toBe(false);
  });
});
