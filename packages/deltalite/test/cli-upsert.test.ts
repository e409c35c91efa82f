// `deltalite upsert` conventions (built bin, temporary working directory): a row's identity is
// (partition value, primary key) — a key arriving with another partition value inserts a second row, as
// delta-rs MERGE on the partition predicate does; `--partition-key` checks that say what the table's
// partition column is (with "did you mean"), exit 2, before the input is read; an upsert on a missing
// table says how to create it (CLI and API); byte knobs with units.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Float64, Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-upsert-"));
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const events = (ids: number[], days: string[], amount: number) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    day: vectorFromArray(days, new Utf8()),
    amount: vectorFromArray(
      ids.map((i) => i * amount),
      new Float64(),
    ),
  });

async function ipcFile(name: string, table: Table): Promise<string> {
  await fs.writeFile(path.join(cwd, name), tableToIPC(table, "file"));
  return name;
}

interface Read {
  rows: { id: unknown; day: string; amount: number }[];
  version: number;
}

describe("row identity is (partition value, primary key)", () => {
  it("a key arriving with another partition value inserts a second row, as delta-rs MERGE does", async () => {
    const seed = await ipcFile("seed.arrow", events([1, 2], ["a", "a"], 1));
    await oracle.call("merge_create", {
      uris: [path.join(cwd, "ours"), path.join(cwd, "theirs")],
      data: path.join(cwd, seed),
      partition_by: ["day"],
    });
    const moved = await ipcFile("moved.arrow", events([1], ["b"], 10));
    const r = run([
      "upsert",
      "ours",
      "--input",
      moved,
      "--primary-keys",
      "id",
      "--partition-key",
      "day",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rowsInserted: 1, rowsUpdated: 0 });
    await oracle.call("merge_delta_rs", {
      uri: path.join(cwd, "theirs"),
      source: path.join(cwd, moved),
      keys: ["id"],
      partition_key: "day",
    });
    const ours = await oracle.call<Read>("merge_read", { uri: path.join(cwd, "ours") });
    const theirs = await oracle.call<Read>("merge_read", { uri: path.join(cwd, "theirs") });
    expect(ours.rows).toEqual(theirs.rows);
    expect(
      ours.rows
        .filter((row) => String(row.id) === "1")
        .map((row) => row.day)
        .sort(),
    ).toEqual(["a", "b"]);
  });
});

describe("--partition-key checks (exit 2, invalid_argument, before the input is read)", () => {
  it.each([
    ["dayy", /--partition-key dayy: the table is partitioned by day \(did you mean "day"\?\)/],
    ["amount", /--partition-key amount: the table is partitioned by day$/],
  ])("on a table partitioned by day: %s", async (key, message) => {
    const seed = await ipcFile("pk-seed.arrow", events([1], ["a"], 1));
    if (!existsSync(path.join(cwd, "pk"))) run(["write", "pk", "--input", seed, "--partition-by", "day"]);
    // stdin is never read: the check comes first (spawnSync's stdin is empty and would be an error).
    const r = run(["upsert", "pk", "--input", "-", "--primary-keys", "id", "--partition-key", key, "--json"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      kind: "invalid_argument",
      message: expect.stringMatching(message),
    });
  });

  it("on an unpartitioned table", async () => {
    const seed = await ipcFile("flat.arrow", events([1], ["a"], 1));
    run(["write", "flat", "--input", seed]);
    const r = run(["upsert", "flat", "--input", seed, "--primary-keys", "id", "--partition-key", "day"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--partition-key day: the table is not partitioned (leave --partition-key out)",
    );
    expect(JSON.parse(run(["info", "flat", "--json"]).stdout).version).toBe(0);
  });
});

describe("an upsert on a missing table says how to create it", () => {
  it("CLI: not_found (exit 1) naming `deltalite write <uri> --input … --mode error` and DeltaLiteTable.write", async () => {
    const seed = await ipcFile("m.arrow", events([1], ["a"], 1));
    const r = run(["upsert", "missing", "--input", seed, "--primary-keys", "id", "--json"]);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout);
    expect(error.kind).toBe("not_found");
    expect(error.message).toContain(
      `deltalite write ${path.join(cwd, "missing")} --input <file> --mode error`,
    );
    expect(error.message).toContain("DeltaLiteTable.write(uri, data)");
    expect(existsSync(path.join(cwd, "missing"))).toBe(false);
  });

  it("API: DeltaLiteTable.open of a missing table carries the same hint; time travel's error does not", async () => {
    const uri = path.join(cwd, "missing-api");
    await expect(DeltaLiteTable.open(uri)).rejects.toMatchObject({
      kind: "not_found",
      message: expect.stringContaining(
        "a table is created by its first write: DeltaLiteTable.write(uri, data)",
      ),
    });
    await DeltaLiteTable.write(uri, events([1], ["a"], 1));
    await expect(DeltaLiteTable.open(uri, { version: 5 })).rejects.toMatchObject({
      message: expect.not.stringContaining("first write"),
    });
  });
});

describe("--missing-columns", () => {
  it("keep fills a replaced row's missing columns from the target row; error refuses with schema_mismatch", async () => {
    const seed = await ipcFile("mc-seed.arrow", events([1, 2], ["a", "a"], 1));
    const partial = new Table({
      id: vectorFromArray([2n, 3n], new Int64()),
      day: vectorFromArray(["a", "a"], new Utf8()),
    });
    const source = await ipcFile("mc-partial.arrow", partial);
    for (const name of ["mc-keep", "mc-error"])
      run(["write", name, "--input", seed, "--partition-by", "day"]);
    const kept = run([
      "upsert",
      "mc-keep",
      "--input",
      source,
      "--primary-keys",
      "id",
      "--missing-columns",
      "keep",
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    const rows = (await oracle.call<Read>("merge_read", { uri: path.join(cwd, "mc-keep") })).rows;
    expect(rows.map((r) => [String(r.id), r.amount])).toEqual([
      ["1", 1],
      ["2", 2],
      ["3", null],
    ]);
    const refused = run([
      "upsert",
      "mc-error",
      "--input",
      source,
      "--primary-keys",
      "id",
      "--missing-columns",
      "error",
      "--json",
    ]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      kind: "schema_mismatch",
      message: expect.stringContaining("amount"),
    });
    expect(
      run(["upsert", "mc-error", "--input", source, "--primary-keys", "id", "--missing-columns", "drop"])
        .code,
    ).toBe(2);
  });
});

describe("knobs", () => {
  it("byte knobs take units (64MiB); the rows equal the run without them", async () => {
    const seed = await ipcFile("k-seed.arrow", events([1, 2, 3], ["a", "b", "a"], 1));
    const batch = await ipcFile("k-batch.arrow", events([2, 4], ["b", "a"], 7));
    for (const name of ["k1", "k2"]) run(["write", name, "--input", seed, "--partition-by", "day"]);
    const tuned = [
      "--max-fetch-bytes",
      "1KiB",
      "--max-buffered-bytes",
      "0.5KiB",
      "--target-file-size",
      "64MiB",
    ];
    expect(run(["upsert", "k1", "--input", batch, "--primary-keys", "id", ...tuned]).code).toBe(0);
    expect(run(["upsert", "k2", "--input", batch, "--primary-keys", "id"]).code).toBe(0);
    const a = await oracle.call<Read>("merge_read", { uri: path.join(cwd, "k1") });
    const b = await oracle.call<Read>("merge_read", { uri: path.join(cwd, "k2") });
    expect(a.rows).toEqual(b.rows);
    expect(a.rows).toHaveLength(4);
  });
});
