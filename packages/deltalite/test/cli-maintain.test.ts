// `deltalite compact` and `deltalite restore` as a user runs them (the built bin from a temporary working
// directory), checked by what delta-rs reads: compact turns many small files of a partition into one with
// the same rows (an OPTIMIZE commit), --dry-run and a --partition filter write nothing beyond their plan,
// restore --version brings back an earlier version's rows (a RESTORE commit), and usage mistakes exit 2.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-maintain-"));
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const rows = (ids: number[], day: string) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    day: vectorFromArray(
      ids.map(() => day),
      new Utf8(),
    ),
  });

interface DeltaRsRead {
  rows: { id: string | number; day: string }[];
  version: number;
  numFiles: number;
}
const read = (uri: string, version?: number) =>
  oracle.call<DeltaRsRead>("tw_read_table", {
    uri: path.join(cwd, uri),
    ...(version === undefined ? {} : { version }),
  });
const content = (r: DeltaRsRead) => r.rows.map((row) => `${row.id}:${row.day}`).sort();

/** A table of `appends` one-row writes into day=a and two into day=b, each its own small file. */
async function smallFiles(uri: string, appends: number): Promise<void> {
  for (let i = 0; i < appends; i++) {
    const file = path.join(cwd, `in-${uri}-${i}.arrow`);
    await fs.writeFile(file, tableToIPC(rows([i], "a"), "file"));
    const mode = i === 0 ? ["--partition-by", "day"] : ["--mode", "append"];
    expect(run(["write", uri, "--input", path.basename(file), ...mode]).code).toBe(0);
  }
  for (let i = 0; i < 2; i++) {
    await fs.writeFile(path.join(cwd, `b-${uri}-${i}.arrow`), tableToIPC(rows([100 + i], "b"), "file"));
    expect(run(["write", uri, "--input", `b-${uri}-${i}.arrow`, "--mode", "append"]).code).toBe(0);
  }
}

describe("deltalite compact", () => {
  it("compacts small files into one per partition with unchanged rows; --dry-run and --partition", async () => {
    await smallFiles("t", 5);
    const before = await read("t");
    expect(before.numFiles).toBe(7);

    const dry = run(["compact", "t", "--dry-run", "--json"]);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { numFilesRemoved: number; commits: number };
    expect(plan).toMatchObject({ numFilesRemoved: 7, commits: 0 });
    expect((await read("t")).version).toBe(before.version);

    const onlyA = run(["compact", "t", "--partition", "day=a", "--json"]);
    expect(onlyA.code, onlyA.stderr).toBe(0);
    expect(JSON.parse(onlyA.stdout)).toMatchObject({ numFilesRemoved: 5, numFilesAdded: 1, commits: 1 });
    const afterA = await read("t");
    expect(afterA.numFiles).toBe(3);
    expect(content(afterA)).toEqual(content(before));

    const rest = run(["compact", "t"]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toMatch(/^compacted 2 files into 1 in 1 partitions \(.+\): version \d+\n$/);
    const after = await read("t");
    expect(after.numFiles).toBe(2);
    expect(content(after)).toEqual(content(before));

    const again = run(["compact", "t"]);
    expect(again.stdout).toMatch(/^nothing to compact \(table stays at version \d+\)\n$/);
    const history = JSON.parse(run(["history", "t", "--limit", "1", "--json"]).stdout) as {
      operation: string;
    }[];
    expect(history[0]?.operation).toBe("OPTIMIZE");
  });

  it("refuses a bad option value with exit 2 and changes nothing", async () => {
    await smallFiles("u", 2);
    const before = await read("u");
    const bad = run(["compact", "u", "--target-file-size", "lots", "--json"]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.kind).toBe("invalid_argument");
    const unknownColumn = run(["compact", "u", "--partition", "dya=a", "--json"]);
    expect(unknownColumn.code).toBe(2);
    expect(JSON.parse(unknownColumn.stdout).error.message).toContain('did you mean "day"');
    expect((await read("u")).version).toBe(before.version);
  });
});

describe("deltalite z-order", () => {
  it("rewrites a partition's files sorted by the curve with unchanged rows; refuses a partition column", async () => {
    await smallFiles("z", 4);
    const before = await read("z");
    const sorted = run(["z-order", "z", "--columns", "id", "--json"]);
    expect(sorted.code, sorted.stderr).toBe(0);
    const result = JSON.parse(sorted.stdout) as {
      numFilesRemoved: number;
      commits: number;
      columns: string[];
    };
    expect(result).toMatchObject({ numFilesRemoved: 6, commits: 1, columns: ["id"] });
    const after = await read("z");
    expect(after.numFiles).toBe(2);
    expect(content(after)).toEqual(content(before));
    const history = JSON.parse(run(["history", "z", "--limit", "1", "--json"]).stdout) as {
      operation: string;
      operationParameters: { zOrderBy?: string };
    }[];
    expect(history[0]?.operation).toBe("OPTIMIZE");
    expect(history[0]?.operationParameters.zOrderBy).toBe('["id"]');

    const refused = run(["z-order", "z", "--columns", "day", "--json"]);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.kind).toBe("invalid_argument");
    expect(run(["z-order", "z"]).code).toBe(2);
    expect((await read("z")).version).toBe(after.version);
  });
});

describe("deltalite restore", () => {
  it("restores an earlier version's rows in a RESTORE commit; needs exactly one target", async () => {
    await smallFiles("r", 3);
    const v1 = await read("r", 1);
    const restored = run(["restore", "r", "--version", "1", "--json"]);
    expect(restored.code, restored.stderr).toBe(0);
    const result = JSON.parse(restored.stdout) as { version: number; restoredVersion: number };
    expect(result.restoredVersion).toBe(1);
    const now = await read("r");
    expect(now.version).toBe(result.version);
    expect(content(now)).toEqual(content(v1));
    const history = JSON.parse(run(["history", "r", "--limit", "1", "--json"]).stdout) as {
      operation: string;
    }[];
    expect(history[0]?.operation).toBe("RESTORE");

    expect(run(["restore", "r"]).code).toBe(2);
    expect(run(["restore", "r", "--version", "1", "--timestamp", "2026-01-01"]).code).toBe(2);
    const human = run(["restore", "r", "--version", "0"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^restored version 0 as version \d+: \d+ files re-added, \d+ removed\n$/);
  });
});
