// `deltalite changes` as a user runs it (the built bin from a temporary working directory) on a table with
// the change data feed, changed by our upsert (with deletes) and delete: NDJSON on stdout, Arrow IPC and
// Parquet files with --json, --columns and --filter — each checked against delta-rs `load_cdf` — and the
// errors: usage mistakes exit 2, versions beyond the latest exit 1 with kind not_found.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Bool, Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

interface Canonical {
  rows: Record<string, unknown>[];
  count: number;
  error?: unknown;
}

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-changes-"));
  await oracle.call("write_table", {
    uri: path.join(cwd, "t"),
    columns: { id: [1, 2, 3], tag: ["a", "b", "c"] },
    configuration: { "delta.enableChangeDataFeed": "true" },
  });
  const table = await DeltaLiteTable.open(path.join(cwd, "t"));
  const batch = new Table({
    id: vectorFromArray([1n, 2n, 4n], new Int64()),
    tag: vectorFromArray(["A", "", "d"], new Utf8()),
    _deleted: vectorFromArray([false, true, null], new Bool()),
  });
  await table.upsert(batch, { primaryKeys: ["id"], deleteColumn: "_deleted" }); // v1
  await table.delete([{ column: "id", op: "eq", value: 3 }]); // v2
  await oracle.call("write_table", { uri: path.join(cwd, "plain"), columns: { id: [1] } });
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const loadCdf = (args: Record<string, unknown>) =>
  oracle.call<Canonical>("changes_load_cdf", { uri: path.join(cwd, "t"), ...args });
const triples = (rows: Record<string, unknown>[]) =>
  rows.map((r) => `${r.id}:${r._change_type}:${r._commit_version}`).sort();

describe("deltalite changes", () => {
  it("prints the feed as NDJSON on stdout, the summary on stderr; equal to delta-rs load_cdf", async () => {
    const out = run(["changes", "t", "--starting-version", "0"]);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(Object.keys(lines[0])).toEqual([
      "id",
      "tag",
      "_change_type",
      "_commit_version",
      "_commit_timestamp",
    ]);
    expect(lines[0]._commit_timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    const reference = await loadCdf({ starting_version: 0 });
    expect(triples(lines)).toEqual(triples(reference.rows));
    expect(triples(lines)).toEqual([
      "1:insert:0",
      "1:update_postimage:1",
      "1:update_preimage:1",
      "2:delete:1",
      "2:insert:0",
      "3:delete:2",
      "3:insert:0",
      "4:insert:1",
    ]);
    expect(out.stderr).toMatch(/8 change rows of versions 0\.\.2 \(3 commits/);
  });

  it("--format arrow / parquet --output FILE --json: the result document, files equal to load_cdf", async () => {
    const arrow = run([
      "changes",
      "t",
      "--starting-version",
      "1",
      "--ending-version",
      "1",
      "--format",
      "arrow",
      "-o",
      "c.arrow",
      "--json",
    ]);
    expect(arrow.code, arrow.stderr).toBe(0);
    const result = JSON.parse(arrow.stdout);
    expect(result).toMatchObject({
      startingVersion: 1,
      endingVersion: 1,
      commits: 1,
      format: "arrow",
      rows: 4,
    });
    const file = await oracle.call<Canonical>("changes_canonical", { ipc: path.join(cwd, "c.arrow") });
    expect(file.rows).toEqual((await loadCdf({ starting_version: 1, ending_version: 1 })).rows);

    const parquet = run(["changes", "t", "--starting-version", "0", "-o", "c.parquet", "--json"]);
    expect(parquet.code, parquet.stderr).toBe(0);
    expect(JSON.parse(parquet.stdout)).toMatchObject({ format: "parquet", rows: 8 });
    const read = await oracle.call<{ rows: unknown[] }>("parquet_canonical", {
      files: [path.join(cwd, "c.parquet")],
    });
    expect(read.rows.length).toBe(8);
  });

  it("--columns and --filter on change columns", async () => {
    const filter = JSON.stringify([
      { column: "_change_type", op: "in", value: ["delete", "update_postimage"] },
    ]);
    const out = run(["changes", "t", "--starting-version", "0", "--columns", "tag", "--filter", filter]);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => `${l.tag}:${l._change_type}`).sort()).toEqual([
      "A:update_postimage",
      "b:delete",
      "c:delete",
    ]);
    expect(Object.keys(lines[0])).toEqual(["tag", "_change_type", "_commit_version", "_commit_timestamp"]);
  });

  it("--starting-timestamp selects commits by their timestamps", async () => {
    const out = run(["changes", "t", "--starting-timestamp", "2000-01-01", "--json", "-o", "all.ndjson"]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ startingVersion: 0, endingVersion: 2, rows: 8 });
  });

  it("table.changes() reads to the table's latest version, not only the handle's", async () => {
    const uri = path.join(cwd, "handles");
    await oracle.call("write_table", {
      uri,
      columns: { id: [1], tag: ["a"] },
      configuration: { "delta.enableChangeDataFeed": "true" },
    });
    const reader = await DeltaLiteTable.open(uri);
    const writer = await DeltaLiteTable.open(uri);
    await writer.delete([{ column: "id", op: "eq", value: 1 }]); // v1, unseen by `reader`
    const feed = reader.changes({ startingVersion: 1 }, { columns: ["id"] });
    const rows: string[] = [];
    for await (const batch of feed) {
      for (const r of batch.toArray()) rows.push(`${r.id}:${r._change_type}:${r._commit_version}`);
    }
    expect(rows).toEqual(["1:delete:1"]);
    expect(reader.version).toBe(0); // the handle itself did not move
    await expect(reader.changes({ startingVersion: 2 }).plan()).rejects.toMatchObject({ kind: "not_found" });
    expect(() => reader.changes({ startingVersion: -1 })).toThrow(
      expect.objectContaining({ kind: "invalid_argument" }),
    );
  });

  it("errors: usage mistakes exit 2; a version beyond the latest is not_found; a table without the feed refused", {
    timeout: 180_000,
  }, () => {
    const usage: [string[], RegExp][] = [
      [["changes", "t"], /needs --starting-version/],
      [["changes", "t", "--starting-version", "x"], /--starting-version/],
      [["changes", "t", "--starting-version", "0", "--starting-timestamp", "2026-01-01"], /not both/],
      [["changes", "t", "--ending-timestamp", "2026-01-01"], /needs --starting-timestamp/],
      [["changes", "t", "--starting-version", "2", "--ending-version", "1"], /is before startingVersion/],
      [["changes", "t", "--starting-version", "0", "--columns", "tagg"], /did you mean "tag"/i],
      [["changes", "t", "--starting-version", "0", "--format", "xml"], /--format/],
      [["changes", "plain", "--starting-version", "0"], /not recorded/],
    ];
    for (const [args, message] of usage) {
      const out = run(args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr).toMatch(message);
    }
    const beyond = run(["changes", "t", "--starting-version", "9", "--json", "-o", "x.ndjson"]);
    expect(beyond.code).toBe(1);
    expect(JSON.parse(beyond.stdout).error).toMatchObject({ kind: "not_found" });
    expect(beyond.stderr).toMatch(/latest version is 2/);
    expect(existsSync(path.join(cwd, "x.ndjson"))).toBe(false);
  });
});
