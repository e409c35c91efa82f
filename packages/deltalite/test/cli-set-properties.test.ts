// `deltalite set-properties` as a user runs it (the built bin from a temporary working directory): one SET
// TBLPROPERTIES commit delta-rs reads back (configuration, protocol upgrade for the change data feed), and
// the CLI's contract for bad input — exit 2 with `invalid_argument` and "did you mean" for an unknown key or
// a malformed flag, exit 1 with `unsupported` for a feature we cannot honour — with the table unchanged.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-set-properties-"));
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

interface DeltaRsView {
  version: number;
  configuration: Record<string, string>;
  protocol: { minReaderVersion: number; minWriterVersion: number };
  operation: string;
}
const view = (name: string) => oracle.call<DeltaRsView>("props_read", { uri: path.join(cwd, name) });

let n = 0;
async function table(): Promise<string> {
  const name = `t${n++}`;
  await oracle.call("delta_write", { uri: path.join(cwd, name), columns: { id: [1, 2] } });
  return name;
}

async function logFiles(name: string): Promise<string[]> {
  return (await fs.readdir(path.join(cwd, name, "_delta_log"))).sort();
}

describe("deltalite set-properties", () => {
  it("sets the properties in one commit; --json prints version, properties, configuration, protocol", async () => {
    const t = await table();
    const out = run([
      "set-properties",
      t,
      "--property",
      "delta.checkpointInterval=10",
      "--property",
      "delta.enableChangeDataFeed=true",
      "--json",
    ]);
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result).toEqual({
      version: 1,
      properties: { "delta.checkpointInterval": "10", "delta.enableChangeDataFeed": "true" },
      configuration: { "delta.checkpointInterval": "10", "delta.enableChangeDataFeed": "true" },
      protocol: { minReaderVersion: 1, minWriterVersion: 4 },
      protocolUpgraded: true,
    });
    const theirs = await view(t);
    expect(theirs).toMatchObject({
      version: 1,
      operation: "SET TBLPROPERTIES",
      configuration: result.configuration,
      protocol: { minReaderVersion: 1, minWriterVersion: 4 },
    });
  });

  it("human output names the commit and what was set; a value may hold '='", async () => {
    const t = await table();
    const out = run(["set-properties", t, "--property", "my.note=a=b"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("committed version 1: set my.note=a=b\n");
    const cdf = run(["set-properties", t, "--property", "delta.enableChangeDataFeed=true"]);
    expect(cdf.stdout).toBe(
      "committed version 2: set delta.enableChangeDataFeed=true (protocol upgraded to reader 1, writer 4)\n",
    );
    expect((await view(t)).configuration).toEqual({ "my.note": "a=b", "delta.enableChangeDataFeed": "true" });
  });

  it.each([
    [
      ["--property", "delta.checkpointIntervl=3"],
      2,
      "invalid_argument",
      'did you mean "delta.checkpointInterval"',
    ],
    [["--property", "delta.checkpointInterval=0"], 2, "invalid_argument", "positive integer"],
    [["--property", "noequals"], 2, "invalid_argument", "KEY=VALUE"],
    [[], 2, "invalid_argument", "at least one --property"],
    [
      ["--property", "delta.appendOnly=true", "--property", "delta.appendOnly=false"],
      2,
      "invalid_argument",
      "given twice",
    ],
    [["--property", "delta.enableDeletionVectors=true"], 1, "unsupported", "deletionVectors"],
  ])("%j → exit %i, %s, the table unchanged", async (flags, code, kind, text) => {
    const t = await table();
    const before = await logFiles(t);
    const out = run(["set-properties", t, ...flags, "--json"]);
    expect(out.code, out.stderr).toBe(code);
    const error = JSON.parse(out.stdout).error;
    expect(error.kind).toBe(kind);
    expect(error.message).toContain(text);
    expect(await logFiles(t)).toEqual(before);
    expect((await view(t)).version).toBe(0);
  });

  it("a missing table is not_found (exit 1)", async () => {
    const out = run(["set-properties", "nowhere", "--property", "delta.checkpointInterval=3", "--json"]);
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout).error.kind).toBe("not_found");
  });
});
