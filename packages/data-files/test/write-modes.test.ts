/**
 * Write modes as delta-rs's write_deltalake has them: on an existing table `error` fails with
 * `already_exists` and `ignore` returns `committed: false`, both leaving every byte of the table as it was
 * (and not reading the data); on a missing table every mode creates it, naming the mode as delta-rs does.
 * delta-rs reads the results.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Int64, type RecordBatch, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRITE_MODES, type WriteMode, writeExistingTable, writeNewTable } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-write-modes-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const rows = (ids: number[]) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    p: vectorFromArray(
      ids.map((i) => (i % 2 ? "odd" : "even")),
      new Utf8(),
    ),
  });

/** Every file under the table root with its bytes: "the table exactly as it was". */
async function tableBytes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(root, full)] = (await fs.readFile(full)).toString("base64");
  }
  return out;
}

async function firstCommitInfo(root: string, version: number): Promise<Record<string, unknown>> {
  const text = await fs.readFile(
    path.join(root, "_delta_log", `${String(version).padStart(20, "0")}.json`),
    "utf8",
  );
  return JSON.parse(text.split("\n")[0]!).commitInfo;
}

/** A source that fails the test if anything reads it. */
function untouchable(): Iterable<RecordBatch> {
  return {
    [Symbol.iterator]() {
      throw new Error("the data must not be read");
    },
  };
}

let counter = 0;
async function existingTable(): Promise<{ root: string; store: LocalFileStore }> {
  const root = path.join(tmp, `t${counter++}`);
  const store = new LocalFileStore(root);
  await writeNewTable(store, rows([1, 2, 3]), { partitionBy: ["p"] });
  return { root, store };
}

describe("on an existing table", () => {
  it('"error" fails with already_exists, reads no data and changes nothing', async () => {
    const { root, store } = await existingTable();
    const before = await tableBytes(root);
    const error = await writeExistingTable(await Snapshot.open(store), untouchable(), {
      mode: "error",
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "already_exists" });
    expect((error as Error).message).toContain("already exists");
    expect((error as Error).message).toContain('mode "append" or "overwrite"');
    expect(await tableBytes(root)).toEqual(before);
  });

  it('"ignore" commits nothing, reads no data, and says so', async () => {
    const { root, store } = await existingTable();
    const before = await tableBytes(root);
    const result = await writeExistingTable(await Snapshot.open(store), untouchable(), { mode: "ignore" });
    expect(result).toEqual({
      committed: false,
      version: 0,
      filesAdded: 0,
      filesRemoved: 0,
      rowsWritten: 0,
      bytesWritten: 0,
    });
    expect(result.commit).toBeUndefined();
    expect(await tableBytes(root)).toEqual(before);
    const theirs = await oracle.call<{ version: number; rows: unknown[] }>("tw_read_table", { uri: root });
    expect(theirs.version).toBe(0);
    expect(theirs.rows).toHaveLength(3);
  });

  it('"append" and "overwrite" still commit (committed: true)', async () => {
    const { store } = await existingTable();
    const appended = await writeExistingTable(await Snapshot.open(store), rows([4]), { mode: "append" });
    expect(appended).toMatchObject({ committed: true, version: 1, rowsWritten: 1 });
    const overwritten = await writeExistingTable(await Snapshot.open(store), rows([5]), {
      mode: "overwrite",
    });
    expect(overwritten).toMatchObject({ committed: true, version: 2, rowsWritten: 1, filesRemoved: 3 });
  });

  it("an unknown mode is invalid_argument with a did-you-mean, and changes nothing", async () => {
    const { root, store } = await existingTable();
    const before = await tableBytes(root);
    const error = await writeExistingTable(await Snapshot.open(store), untouchable(), {
      mode: "apend" as WriteMode,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "invalid_argument" });
    expect((error as Error).message).toContain('unknown write mode "apend" (did you mean "append"?)');
    expect(await tableBytes(root)).toEqual(before);
  });
});

describe("on a missing table every mode creates it", () => {
  const saveModes: Record<WriteMode, string> = {
    error: "ErrorIfExists",
    append: "Append",
    overwrite: "Overwrite",
    ignore: "Ignore",
  };
  it.each(WRITE_MODES)("%s", async (mode) => {
    const root = path.join(tmp, `new-${mode}`);
    const result = await writeNewTable(new LocalFileStore(root), rows([1, 2]), { mode });
    expect(result).toMatchObject({ committed: true, version: 0, rowsWritten: 2 });
    const info = await firstCommitInfo(root, 0);
    // delta-rs writes the mode's SaveMode name, and partitionBy only for a partitioned table.
    expect(info.operationParameters).toEqual({ mode: saveModes[mode] });
    const theirs = await oracle.call<{ version: number; rows: unknown[] }>("tw_read_table", { uri: root });
    expect(theirs).toMatchObject({ version: 0 });
    expect(theirs.rows).toHaveLength(2);
  });

  it('"ignore" losing the race to create leaves the winner\'s table and deletes its own files', async () => {
    const root = path.join(tmp, "race-ignore");
    const store = new LocalFileStore(root);
    // The table appears between our check and our commit: simulate by creating it, then writing "new".
    await writeNewTable(store, rows([1]), {});
    const before = await tableBytes(root);
    const result = await writeNewTable(store, rows([7, 8, 9]), { mode: "ignore" });
    expect(result).toMatchObject({ committed: false, version: 0, filesAdded: 0 });
    expect(await tableBytes(root)).toEqual(before);
  });
});
