// `deltalite write` as a user runs it (the built bin from a temporary working directory), checked by what
// delta-rs reads: delta-rs write_deltalake's modes with its default `error` (already_exists, nothing
// written; `ignore` writes nothing and says so; append; overwrite), several --input files in one commit
// (and a typed error before anything is written when their schemas differ), --commit-metadata in the
// commitInfo, Parquet on stdin (sniffed and buffered) as well as an Arrow IPC stream; and the API's
// DeltaLiteTable.write with the same modes (its default stays append).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-write-"));
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[], input?: Uint8Array) {
  const out = spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: "utf8",
    ...(input ? { input } : {}),
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const rows = (ids: number[], tag: string) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    tag: vectorFromArray(
      ids.map(() => tag),
      new Utf8(),
    ),
  });

async function arrowFile(name: string, table: Table): Promise<string> {
  await fs.writeFile(path.join(cwd, name), tableToIPC(table, "file"));
  return name;
}

interface DeltaRsRead {
  rows: { id: string | number; tag: string }[];
  version: number;
  numFiles: number;
}
const read = (uri: string) => oracle.call<DeltaRsRead>("tw_read_table", { uri: path.join(cwd, uri) });
const ids = (r: DeltaRsRead) => r.rows.map((row) => `${row.id}:${row.tag}`).sort();
const dataFiles = async (uri: string) =>
  (await fs.readdir(path.join(cwd, uri), { recursive: true })).filter((f) => String(f).endsWith(".parquet"));

describe("deltalite write --mode (delta-rs's modes, default error)", () => {
  it("error (default) creates, then refuses with already_exists writing nothing; ignore says so; append; overwrite", async () => {
    const a = await arrowFile("a.arrow", rows([1, 2], "a"));
    const b = await arrowFile("b.arrow", rows([3], "b"));
    expect(JSON.parse(run(["write", "t", "--input", a, "--json"]).stdout)).toMatchObject({
      committed: true,
      mode: "error",
      version: 0,
      rowsWritten: 2,
    });
    const files = await dataFiles("t");

    const refused = run(["write", "t", "--input", b, "--json"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ kind: "already_exists" });
    expect(refused.stderr).toMatch(/already_exists: .*"append" or "overwrite"/);
    expect(await dataFiles("t")).toEqual(files);

    const ignored = run(["write", "t", "--input", b, "--mode", "ignore"]);
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(ignored.stdout).toBe("a table exists at version 0: --mode ignore wrote nothing\n");
    expect(JSON.parse(run(["write", "t", "--input", b, "--mode", "ignore", "--json"]).stdout)).toMatchObject({
      committed: false,
      version: 0,
      rowsWritten: 0,
    });
    expect(await dataFiles("t")).toEqual(files);
    const afterIgnore = await read("t");
    expect([afterIgnore.version, ids(afterIgnore)]).toEqual([0, ["1:a", "2:a"]]);

    const appended = run(["write", "t", "--input", b, "--mode", "append"]);
    expect(appended.stdout).toMatch(/^committed version 1: 1 rows in 1 files/);
    expect(ids(await read("t"))).toEqual(["1:a", "2:a", "3:b"]);
    run(["write", "t", "--input", b, "--mode", "overwrite"]);
    const overwritten = await read("t");
    expect([overwritten.version, ids(overwritten)]).toEqual([2, ["3:b"]]);
  });

  it("a missing table is created by every mode", async () => {
    const a = await arrowFile("c.arrow", rows([7], "c"));
    for (const mode of ["error", "append", "overwrite", "ignore"]) {
      const r = run(["write", `new-${mode}`, "--input", a, "--mode", mode, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ committed: true, version: 0 });
      expect(ids(await read(`new-${mode}`))).toEqual(["7:c"]);
    }
  });
});

describe("deltalite write inputs", () => {
  it("several --input files (Parquet and Arrow) land in one commit; delta-rs reads them all", async () => {
    const parquet = path.join(cwd, "p.parquet");
    await oracle.call("write_parquet_file", {
      path: parquet,
      columns: { id: [10, 11], tag: ["p", "p"] },
      types: { id: "int64" },
    });
    const a = await arrowFile("m1.arrow", rows([12, 13, 14], "m"));
    const r = run(["write", "multi", "--input", "p.parquet", "--input", a, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ version: 0, rowsWritten: 5 });
    const back = await read("multi");
    expect(back.version).toBe(0);
    expect(ids(back)).toEqual(["10:p", "11:p", "12:m", "13:m", "14:m"]);
  });

  it("inputs whose schemas differ: schema_mismatch naming both, before anything is written", async () => {
    const a = await arrowFile("s1.arrow", rows([1], "x"));
    const other = new Table({
      id: vectorFromArray([2n], new Int64()),
      other: vectorFromArray(["y"], new Utf8()),
    });
    const b = await arrowFile("s2.arrow", other);
    const r = run(["write", "mismatch", "--input", a, "--input", b, "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      kind: "schema_mismatch",
      message: expect.stringMatching(
        /--input s2.arrow does not have the schema of --input s1.arrow: it lacks tag: Utf8 and has other: Utf8/,
      ),
    });
    expect(existsSync(path.join(cwd, "mismatch"))).toBe(false);
    run(["write", "mismatch", "--input", a]);
    expect(run(["write", "mismatch", "--input", a, "--input", b, "--mode", "append"]).code).toBe(1);
    const back = await read("mismatch");
    expect([back.version, ids(back)]).toEqual([0, ["1:x"]]);
  });

  it("--commit-metadata k=v (repeatable) is written flat into commitInfo; a malformed entry is a usage error", async () => {
    const a = await arrowFile("cm.arrow", rows([1], "x"));
    const r = run([
      "write",
      "meta",
      "--input",
      a,
      "--commit-metadata",
      "source=nightly",
      "--commit-metadata",
      "run=42",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const history = await oracle.call<Record<string, unknown>[]>("delta_history", {
      uri: path.join(cwd, "meta"),
    });
    expect(history[0]).toMatchObject({ operation: "WRITE", source: "nightly", run: "42" });
    const bad = run(["write", "meta2", "--input", a, "--commit-metadata", "novalue"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--commit-metadata needs KEY=VALUE (got "novalue")');
  });

  it("stdin: Parquet (sniffed by PAR1) and an Arrow IPC stream both write; garbage is a clear error", async () => {
    const parquet = path.join(cwd, "stdin.parquet");
    await oracle.call("write_parquet_file", {
      path: parquet,
      columns: { id: [5, 6], tag: ["q", "q"] },
      types: { id: "int64" },
    });
    const viaParquet = run(["write", "stdin-t", "--input", "-", "--json"], await fs.readFile(parquet));
    expect(viaParquet.code, viaParquet.stderr).toBe(0);
    expect(JSON.parse(viaParquet.stdout)).toMatchObject({ version: 0, rowsWritten: 2 });
    const stream = tableToIPC(rows([8], "s"), "stream");
    const viaStream = run(["write", "stdin-t", "--input", "-", "--mode", "append"], stream);
    expect(viaStream.code, viaStream.stderr).toBe(0);
    expect(ids(await read("stdin-t"))).toEqual(["5:q", "6:q", "8:s"]);
    const garbage = run(["write", "stdin-g", "--input", "-", "--json"], Buffer.from("id,tag\n1,x\n"));
    expect(garbage.code).toBe(1);
    expect(JSON.parse(garbage.stdout).error.message).toMatch(
      /stdin is neither Parquet .* nor an Arrow IPC stream/,
    );
    expect(existsSync(path.join(cwd, "stdin-g"))).toBe(false);
  });
});

describe("deltalite write --property (properties of a table the write creates)", () => {
  it("creates the table with them (delta-rs reads them and the CDF protocol), refuses an unknown delta.* key writing nothing", async () => {
    const a = await arrowFile("p.arrow", rows([1], "a"));
    const created = run([
      "write",
      "props-t",
      "--input",
      a,
      "--property",
      "delta.enableChangeDataFeed=true",
      "--property",
      "delta.checkpointInterval=3",
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const seen = await oracle.call<{
      configuration: Record<string, string>;
      protocol: { minWriterVersion: number };
    }>("props_read", { uri: path.join(cwd, "props-t") });
    expect(seen.configuration).toMatchObject({
      "delta.enableChangeDataFeed": "true",
      "delta.checkpointInterval": "3",
    });
    expect(seen.protocol.minWriterVersion).toBeGreaterThanOrEqual(4);
    const refused = run([
      "write",
      "props-bad",
      "--input",
      a,
      "--property",
      "delta.checkpointInterva=3",
      "--json",
    ]);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ kind: "invalid_argument" });
    expect(JSON.parse(refused.stdout).error.message).toMatch(/did you mean .*delta\.checkpointInterval/);
    expect(existsSync(path.join(cwd, "props-bad"))).toBe(false);
  });
});

describe("DeltaLiteTable.write modes (API; default append)", () => {
  it("error / ignore / append / overwrite on an existing table", async () => {
    const uri = path.join(cwd, "api");
    const { table, result } = await DeltaLiteTable.write(uri, rows([1], "a"));
    expect(result).toMatchObject({ committed: true, version: 0 });
    await expect(DeltaLiteTable.write(uri, rows([2], "b"), { mode: "error" })).rejects.toMatchObject({
      kind: "already_exists",
    });
    const ignored = await DeltaLiteTable.write(uri, rows([2], "b"), { mode: "ignore" });
    expect(ignored.result).toMatchObject({ committed: false, version: 0, rowsWritten: 0 });
    expect(ignored.table.version).toBe(0);
    expect((await DeltaLiteTable.write(uri, rows([2], "b"))).result.version).toBe(1);
    expect((await table.write(rows([3], "c"), { mode: "overwrite" })).version).toBe(2);
    expect(ids(await oracle.call<DeltaRsRead>("tw_read_table", { uri }))).toEqual(["3:c"]);
  });
});
