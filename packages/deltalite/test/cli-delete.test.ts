// `deltalite delete`, the exactly-once flags `--txn-app-id` / `--txn-version` (write, upsert, delete) and
// `upsert --delete-column`, as a user runs them (the built bin from a temporary working directory),
// checked by what delta-rs reads: its rows and its `transaction_version(appId)`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Bool, Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-delete-"));
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const ids = (values: number[]) =>
  vectorFromArray(
    values.map((i) => BigInt(i)),
    new Int64(),
  );
const strings = (values: string[]) => vectorFromArray(values, new Utf8());

async function input(name: string, table: Table): Promise<string> {
  await fs.writeFile(path.join(cwd, name), tableToIPC(table, "file"));
  return name;
}

interface DeltaRsRead {
  rows: { id: string | number; day: string; tag: string }[];
  version: number;
}
const read = (uri: string) => oracle.call<DeltaRsRead>("tw_read_table", { uri: path.join(cwd, uri) });
const content = (r: DeltaRsRead) => r.rows.map((row) => `${row.id}:${row.day}:${row.tag}`).sort();
const txnVersion = async (uri: string, appId: string) =>
  (
    await oracle.call<{ txnVersion: number | null }>("txn_version", {
      uri: path.join(cwd, uri),
      app_id: appId,
    })
  ).txnVersion;

describe("deltalite delete and --txn", () => {
  it("delete --filter removes the matching rows in a DELETE commit; nothing matching commits nothing", async () => {
    const rows = new Table({
      id: ids([1, 2, 3, 4]),
      day: strings(["a", "a", "b", "b"]),
      tag: strings(["x", "y", "x", "y"]),
    });
    expect(run(["write", "d", "--input", await input("d.arrow", rows), "--partition-by", "day"]).code).toBe(
      0,
    );
    const deleted = run(["delete", "d", "--filter", '[{"column":"tag","op":"eq","value":"x"}]', "--json"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ committed: true, rowsDeleted: 2 });
    expect(content(await read("d"))).toEqual(["2:a:y", "4:b:y"]);
    const history = JSON.parse(run(["history", "d", "--limit", "1", "--json"]).stdout) as {
      operation: string;
    }[];
    expect(history[0]?.operation).toBe("DELETE");

    const none = run(["delete", "d", "--filter", '[{"column":"tag","op":"eq","value":"zzz"}]']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(/^no row matches: nothing deleted \(table stays at version 1\)\n$/);
    expect(run(["delete", "d"]).code).toBe(2);
    const typo = run(["delete", "d", "--filter", '[{"column":"tga","op":"eq","value":"x"}]', "--json"]);
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.stdout).error.message).toContain('did you mean "tag"');
    expect((await read("d")).version).toBe(1);
  });

  it("a batch redelivered with the same --txn-app-id / --txn-version is skipped, and delta-rs sees the txn", async () => {
    const batch = new Table({ id: ids([1]), day: strings(["a"]), tag: strings(["v1"]) });
    const file = await input("t1.arrow", batch);
    const txn = ["--txn-app-id", "sync", "--txn-version", "1"];
    expect(run(["write", "t", "--input", file, "--partition-by", "day", ...txn]).code).toBe(0);
    const again = run(["write", "t", "--input", file, "--mode", "append", ...txn]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^skipped: that --txn batch was already applied \(table at version 0\)\n$/);
    expect(await txnVersion("t", "sync")).toBe(1);

    const update = await input(
      "t2.arrow",
      new Table({ id: ids([1, 2]), day: strings(["a", "a"]), tag: strings(["v2", "n"]) }),
    );
    const upsert = [
      "upsert",
      "t",
      "--input",
      update,
      "--primary-keys",
      "id",
      "--txn-app-id",
      "sync",
      "--txn-version",
      "2",
      "--json",
    ];
    expect(JSON.parse(run(upsert).stdout)).toMatchObject({
      committed: true,
      rowsUpdated: 1,
      rowsInserted: 1,
    });
    expect(JSON.parse(run(upsert).stdout)).toMatchObject({ committed: false, skipped: true });
    expect(content(await read("t"))).toEqual(["1:a:v2", "2:a:n"]);
    expect(await txnVersion("t", "sync")).toBe(2);

    expect(run(["write", "t", "--input", file, "--mode", "append", "--txn-app-id", "sync"]).code).toBe(2);
  });

  it("upsert --delete-column deletes the rows flagged true and never writes the flag", async () => {
    const base = new Table({
      id: ids([1, 2, 3]),
      day: strings(["a", "a", "a"]),
      tag: strings(["x", "y", "z"]),
    });
    expect(run(["write", "u", "--input", await input("u.arrow", base)]).code).toBe(0);
    const flagged = new Table({
      id: ids([1, 2, 9]),
      day: strings(["a", "a", "a"]),
      tag: strings(["-", "y2", "-"]),
      _deleted: vectorFromArray([true, false, true], new Bool()),
    });
    const result = run([
      "upsert",
      "u",
      "--input",
      await input("uf.arrow", flagged),
      "--primary-keys",
      "id",
      "--delete-column",
      "_deleted",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/1 updated, 1 deleted/);
    const after = await read("u");
    expect(content(after)).toEqual(["2:a:y2", "3:a:z"]);
    expect(Object.keys(after.rows[0] ?? {})).not.toContain("_deleted");
  });
});
