// Expired-log cleanup end to end: writes with a 3-commit checkpoint interval and a zero log retention leave
// only what the newest checkpoint needs; delta-rs and we still read the latest version identically, and a
// version whose commits were cleaned up is a typed error.
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
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cleanup-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const batch = (i: number) =>
  new Table({
    id: vectorFromArray([BigInt(i)], new Int64()),
    day: vectorFromArray([`d${i % 2}`], new Utf8()),
  });

describe("expired-log cleanup after checkpoints", () => {
  it("keeps exactly what the newest checkpoint needs; readers agree on the latest version", async () => {
    const uri = path.join(tmp, "t");
    const { table } = await DeltaLiteTable.write(uri, batch(0), {
      partitionBy: ["day"],
      configuration: { "delta.checkpointInterval": "3", "delta.logRetentionDuration": "interval 0 days" },
    });
    for (let i = 1; i < 7; i++) {
      const result = await table.write(batch(i));
      expect(result.maintenanceError).toBeUndefined();
    }
    expect(table.version).toBe(6);
    const log = (await fs.readdir(path.join(uri, "_delta_log"))).sort();
    expect(log).toEqual([
      "00000000000000000005.checkpoint.parquet",
      "00000000000000000005.json",
      "00000000000000000006.json",
      "_last_checkpoint",
    ]);
    const ours = await DeltaLiteTable.open(uri);
    expect(ours.version).toBe(6);
    expect(ours.numFiles).toBe(7);
    const theirs = await oracle.call<{ version: number; rows: { id: string }[] }>("tw_read_table", { uri });
    expect(theirs.version).toBe(6);
    expect(theirs.rows.map((r) => r.id).sort()).toEqual(["0", "1", "2", "3", "4", "5", "6"]);
    await expect(DeltaLiteTable.open(uri, { version: 3 })).rejects.toMatchObject({
      kind: expect.stringMatching(/corrupt_log|not_found/),
    });
  });

  it("deletes nothing while the log retention (default 30 days) has not passed", async () => {
    const uri = path.join(tmp, "default-retention");
    const { table } = await DeltaLiteTable.write(uri, batch(0), {
      configuration: { "delta.checkpointInterval": "2" },
    });
    for (let i = 1; i < 4; i++) await table.write(batch(i));
    const log = (await fs.readdir(path.join(uri, "_delta_log"))).filter((f) => f.endsWith(".json"));
    expect(log).toHaveLength(4);
    expect((await DeltaLiteTable.open(uri, { version: 0 })).numFiles).toBe(1);
  });
});
