// Table properties across engines: a table whose checkpoint interval we set to 3 is checkpointed by delta-rs
// on that interval, and one delta-rs set to 3 (alter.set_table_properties) is checkpointed by our writes on
// it — both at delta-rs's positions, after committing v when (v + 1) % 3 == 0 — each reading the other's
// checkpoints; delta-rs reads our properties back (metadata().configuration). The same properties are
// accepted at create and at the first write; enabling the change data feed with setProperties makes our
// upsert write a feed delta-rs's load_cdf reads.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-properties-interop-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

let n = 0;
const fresh = (name: string) => path.join(tmp, `${name}-${n++}`);

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

/** Versions of the checkpoints in the table's log, ascending. */
async function checkpointVersions(uri: string): Promise<number[]> {
  const names = await fs.readdir(path.join(uri, "_delta_log"));
  return names
    .filter((name) => name.endsWith(".checkpoint.parquet"))
    .map((name) => Number(name.slice(0, 20)))
    .sort((a, b) => a - b);
}

interface DeltaRsView {
  version: number;
  configuration: Record<string, string>;
  protocol: { minReaderVersion: number; minWriterVersion: number };
  operation: string;
  operationParameters: Record<string, string>;
}
const deltaRsView = (uri: string) => oracle.call<DeltaRsView>("props_read", { uri });
const deltaRsRowCount = async (uri: string) =>
  (await oracle.call<{ rows: unknown[] }>("tw_read_table", { uri })).rows.length;

describe("checkpoint interval across engines", () => {
  it("we set delta.checkpointInterval=3: delta-rs's commits checkpoint at versions 2, 5, 8", async () => {
    const uri = fresh("ours-set");
    const { table } = await DeltaLiteTable.write(uri, rows([0], "a"));
    const set = await table.setProperties({ "delta.checkpointInterval": "3" });
    expect(set.version).toBe(1);
    const view = await deltaRsView(uri);
    expect(view.configuration).toEqual({ "delta.checkpointInterval": "3" });
    expect(view.operation).toBe("SET TBLPROPERTIES");
    expect(JSON.parse(view.operationParameters.properties!)).toEqual({ "delta.checkpointInterval": "3" });
    for (let i = 1; i <= 7; i++) {
      await oracle.call("delta_write", { uri, columns: { id: [i], tag: ["b"] } });
    }
    expect(await checkpointVersions(uri)).toEqual([2, 5, 8]);
    // We read delta-rs's checkpoints.
    const reopened = await DeltaLiteTable.open(uri);
    expect(reopened.version).toBe(8);
    expect(reopened.configuration).toEqual({ "delta.checkpointInterval": "3" });
    expect(reopened.numFiles).toBe(8);
  });

  it("delta-rs sets delta.checkpointInterval=3: our writes checkpoint at versions 2, 5, 8", async () => {
    const uri = fresh("theirs-set");
    await oracle.call("delta_write", { uri, columns: { id: [0], tag: ["a"] } });
    await oracle.call("props_set", { uri, properties: { "delta.checkpointInterval": "3" } });
    const table = await DeltaLiteTable.open(uri);
    expect(table.configuration).toEqual({ "delta.checkpointInterval": "3" });
    for (let i = 1; i <= 7; i++) {
      await DeltaLiteTable.write(uri, rows([i], "b"));
    }
    expect(await checkpointVersions(uri)).toEqual([2, 5, 8]);
    // delta-rs reads our checkpoints.
    expect((await deltaRsView(uri)).version).toBe(8);
    expect(await deltaRsRowCount(uri)).toBe(8);
  });
});

describe("properties at create and at the first write", () => {
  const configuration = { "delta.checkpointInterval": "2", "delta.enableChangeDataFeed": "true" };

  it("the first write creates the table with them (CDF upgrades the protocol to writer 4, as delta-rs)", async () => {
    const ours = fresh("first-write");
    const theirs = fresh("first-write-theirs");
    await DeltaLiteTable.write(ours, rows([1], "a"), { configuration });
    await oracle.call("delta_write", { uri: theirs, columns: { id: [1], tag: ["a"] }, configuration });
    const [o, t] = await Promise.all([deltaRsView(ours), deltaRsView(theirs)]);
    expect(o.configuration).toEqual(configuration);
    expect(o.configuration).toEqual(t.configuration);
    expect(o.protocol).toEqual(t.protocol);
    await DeltaLiteTable.write(ours, rows([2], "b"));
    expect(await checkpointVersions(ours)).toEqual([1]);
  });

  it("create takes them too; an unknown delta.* key is refused at create and write, leaving nothing", async () => {
    const created = fresh("create");
    const table = await DeltaLiteTable.create(created, rows([1], "a").schema, { configuration });
    expect(table.configuration).toEqual(configuration);
    expect((await deltaRsView(created)).configuration).toEqual(configuration);

    for (const attempt of [
      (uri: string) =>
        DeltaLiteTable.create(uri, rows([1], "a").schema, {
          configuration: { "delta.checkpointIntervl": "2" },
        }),
      (uri: string) =>
        DeltaLiteTable.write(uri, rows([1], "a"), { configuration: { "delta.checkpointIntervl": "2" } }),
    ]) {
      const uri = fresh("refused");
      const outcome = attempt(uri);
      await expect(outcome).rejects.toMatchObject({ kind: "invalid_argument" });
      await expect(outcome).rejects.toThrow('did you mean "delta.checkpointInterval"');
      expect(await fs.readdir(uri).catch(() => [])).toEqual([]);
    }
  });
});

describe("the change data feed enabled by setProperties", () => {
  it("our upsert then writes a feed delta-rs's load_cdf reads: pre/post images and inserts", async () => {
    const uri = fresh("cdf");
    const { table } = await DeltaLiteTable.write(uri, rows([1, 2], "old"));
    const set = await table.setProperties({ "delta.enableChangeDataFeed": "true" });
    expect(set.protocolUpgraded).toBe(true);
    expect(set.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 4 });
    const upsert = await table.upsert(rows([2, 3], "new"), { primaryKeys: ["id"] });
    const cdf = await oracle.call<{ rows: { id: number; tag: string; _change_type: string }[] }>("cdf_rows", {
      uri,
      starting_version: upsert.version,
    });
    const changes = cdf.rows.map((r) => `${r.id}:${r.tag}:${r._change_type}`).sort();
    expect(changes).toEqual(["2:new:update_postimage", "2:old:update_preimage", "3:new:insert"]);
  });
});
