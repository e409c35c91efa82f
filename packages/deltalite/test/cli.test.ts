// The `deltalite` CLI as a user runs it (the built bin in a child process): info / history / vacuum on
// delta-rs-written tables, local and on the S3 server, checked against delta-rs; the §3a output contract
// (one JSON document on stdout with --json; exit 0 / 1 / 2; errors as {"error": {kind, message, retryable}}).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { TEST_SECRET_ACCESS_KEY, testS3 } from "@deltalite/tools/s3-server";
import { Float64, Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let tmp: string;

beforeAll(async () => {
  expect(existsSync(cli), "the CLI tests run the built bin: run `pnpm build` first").toBe(true);
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}) {
  const out = spawnSync(process.execPath, [cli, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

function json(args: string[], env?: Record<string, string>) {
  const r = run([...args, "--json"], env);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.trim().split("\n")).toHaveLength(1);
  return JSON.parse(r.stdout);
}

interface DeltaRsSnapshot {
  version: number;
  files: { path: string; size: number }[];
  schema: unknown;
  partitionColumns: string[];
  tableId: string;
}

async function deltaRsTable(uri: string, storageOptions?: Record<string, string>) {
  const columns = { id: [1, 2, 3, 4], day: ["a", "b", "a", "c"], v: [0.5, 1.5, null, 3.5] };
  await oracle.call("delta_write", { uri, columns, partition_by: ["day"], storage_options: storageOptions });
  await oracle.call("delta_write", { uri, columns, partition_by: ["day"], storage_options: storageOptions });
  await oracle.call("delta_write", {
    uri,
    columns,
    partition_by: ["day"],
    mode: "overwrite",
    storage_options: storageOptions,
  });
}

const byPath = <T extends { path: string }>(xs: T[]) => [...xs].sort((a, b) => a.path.localeCompare(b.path));

describe("deltalite CLI", () => {
  it("info and history on a local delta-rs table equal delta-rs's view, at latest and at a version", async () => {
    const uri = path.join(tmp, "local");
    await deltaRsTable(uri);
    for (const version of [undefined, 1]) {
      const expected = await oracle.call<DeltaRsSnapshot>("delta_snapshot", { uri, version });
      const info = json(["info", uri, ...(version === undefined ? [] : ["--version", String(version)])]);
      expect(info.version).toBe(expected.version);
      expect(info.tableId).toBe(expected.tableId);
      expect(info.partitionColumns).toEqual(expected.partitionColumns);
      expect(info.schema).toEqual(expected.schema);
      expect(info.numFiles).toBe(expected.files.length);
      expect(byPath(info.files).map((f: { path: string; size: number }) => [f.path, f.size])).toEqual(
        byPath(expected.files).map((f) => [decodeURIComponent(f.path), f.size]),
      );
      expect(info.files.every((f: { stats: { numRecords: number } }) => f.stats.numRecords > 0)).toBe(true);
    }
    const history = json(["history", uri, "--limit", "2"]);
    expect(history.map((h: { version: number }) => h.version)).toEqual([2, 1]);
    expect(history[0].operation).toBe("WRITE");
    expect(history[0].operationParameters.mode).toBe("Overwrite");
  });

  it("vacuum: dry run lists what delta-rs would delete; the real run deletes it and commits", async () => {
    const uri = path.join(tmp, "vacuum");
    await deltaRsTable(uri);
    const theirs = await oracle.call<{ deleted: string[] }>("maintenance_vacuum", {
      uri,
      retention_hours: 0,
      dry_run: true,
    });
    // A retention below the table's is a bad argument (invalid_argument): exit 2, the JSON error document.
    const refused = run(["vacuum", uri, "--retention-hours", "0", "--json"]);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.kind).toBe("invalid_argument");
    const dry = json(["vacuum", uri, "--retention-hours", "0", "--no-retention-check", "--dry-run"]);
    expect(dry.dryRun).toBe(true);
    expect([...dry.files].sort()).toEqual([...theirs.deleted].sort());
    const done = json(["vacuum", uri, "--retention-hours", "0", "--no-retention-check"]);
    expect(done.files).toEqual(dry.files);
    expect(json(["info", uri]).version).toBe(4);
  });

  it("reads a table on the S3 server with --storage-option flags, and never prints the secret", async () => {
    const s3 = testS3();
    const bucket = await s3.createBucket(`cli-${Date.now().toString(36)}`);
    const uri = `s3://${bucket}/events`;
    await deltaRsTable(uri, s3.storageOptions);
    const flags = Object.entries(s3.storageOptions).flatMap(([k, v]) => ["--storage-option", `${k}=${v}`]);
    const info = json(["info", uri, ...flags]);
    const expected = await oracle.call<DeltaRsSnapshot>("delta_snapshot", {
      uri,
      storage_options: s3.storageOptions,
    });
    expect(info.version).toBe(expected.version);
    expect(info.numFiles).toBe(expected.files.length);
    const missing = run(["info", `s3://${bucket}/nothing-here`, ...flags, "--json"]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.kind).toBe("not_found");
    expect(missing.stdout + missing.stderr).not.toContain(TEST_SECRET_ACCESS_KEY);
  });

  it("write: Parquet, Arrow IPC file and stdin stream inputs; delta-rs reads what was written", async () => {
    const uri = path.join(tmp, "cli-write");
    const columns = { id: [1, 2, 3], day: ["a", "b", "a"], v: [1.5, null, 2.0] };
    const parquet = path.join(tmp, "in.parquet");
    await oracle.call("write_parquet_file", { path: parquet, columns, types: { id: "int64" } });
    const first = json(["write", uri, "--input", parquet, "--partition-by", "day"]);
    expect(first).toMatchObject({ version: 0, rowsWritten: 3, filesAdded: 2 });
    const ipc = path.join(tmp, "in.arrow");
    await oracle.call("tw_type_matrix", { out: ipc, rows: 5, seed: 1 });
    const refused = run(["write", uri, "--input", ipc, "--mode", "append", "--json"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error.kind).toBe("schema_mismatch");
    const empty = spawnSync(
      process.execPath,
      [cli, "write", uri, "--input", "-", "--mode", "overwrite", "--json"],
      {
        input: Buffer.alloc(0),
        encoding: "utf8",
      },
    );
    // Empty stdin is a bad argument (nothing to sniff): exit 2.
    expect(empty.status).toBe(2);
    expect(JSON.parse(empty.stdout).error.kind).toBe("invalid_argument");
    const rows = await oracle.call<{ rows: unknown[]; version: number }>("tw_read_table", { uri });
    expect(rows.version).toBe(0);
    expect(rows.rows).toHaveLength(3);
    const more = new Table({
      id: vectorFromArray([10n, 11n], new Int64()),
      day: vectorFromArray(["c", "a"], new Utf8()),
      v: vectorFromArray([null, 0.25], new Float64()),
    });
    const piped = spawnSync(
      process.execPath,
      [cli, "write", uri, "--input", "-", "--mode", "append", "--json"],
      {
        input: Buffer.from(tableToIPC(more, "stream")),
        encoding: "utf8",
      },
    );
    expect(piped.status, piped.stderr).toBe(0);
    const after = await oracle.call<{ rows: { id: string; day: string }[]; version: number }>(
      "tw_read_table",
      { uri },
    );
    expect(after.version).toBe(1);
    expect(after.rows.map((r) => `${r.id}/${r.day}`).sort()).toEqual(["1/a", "10/c", "11/a", "2/b", "3/a"]);
    expect(run(["write", uri, "--json"]).code).toBe(2);
    expect(run(["write", uri, "--input", parquet, "--mode", "upsert", "--json"]).code).toBe(2);
  });

  it.each([
    [["info"], 2],
    [["nonsense-verb", "/x"], 2],
    [["info", "/x", "--bogus-flag"], 2],
    [["info", "/x", "--version", "-1"], 2],
    [["history", "/x", "--limit", "many"], 2],
    [["info", "/x", "--storage-option", "NOEQUALS"], 2],
    [["vacuum", "/x", "--retention-hours", "soon"], 2],
  ])("usage error %j exits %i and prints nothing on stdout", (args, code) => {
    const r = run(args);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/usage|unknown verb/);
  });

  it("an operational error exits 1 with {error: {kind, message, retryable}} on stdout and one line on stderr", () => {
    const r = run(["info", path.join(tmp, "no-table-here"), "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      error: { kind: "not_found", message: expect.stringContaining("no-table-here"), retryable: false },
    });
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    const unknownOption = run([
      "info",
      "s3://bucket/t",
      "--storage-option",
      "AWS_SECRET_ACESS_KEY=hunter2",
      "--json",
    ]);
    // A misspelt storage option is a bad argument (exit 2, "did you mean"); its value is never printed.
    expect(unknownOption.code).toBe(2);
    expect(JSON.parse(unknownOption.stdout).error).toMatchObject({ kind: "invalid_argument" });
    expect(unknownOption.stdout).toContain("did you mean");
    expect(unknownOption.stdout + unknownOption.stderr).not.toContain("hunter2");
  });
});
