// Spark (the engine that defines Delta, via pyspark + delta-spark) reads what we write: the type matrix
// partitioned by hostile strings, after an append and an overwrite, and from our checkpoint alone.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-spark-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Read {
  rows: unknown[];
  names: string[];
  count: number;
}

describe("Spark reads our tables", () => {
  it("type matrix partitioned by hostile strings, overwritten, then read from our checkpoint alone", {
    timeout: 240_000,
  }, async () => {
    const ipc = path.join(tmp, "matrix.arrow");
    const source = await oracle.call<{ rows: unknown[]; names: string[] }>("tw_type_matrix", {
      out: ipc,
      rows: 250,
      seed: 5,
      partition: "hostile",
    });
    const data = tableFromIPC(await fs.readFile(ipc));
    const uri = path.join(tmp, "matrix");
    const { table } = await DeltaLiteTable.write(uri, data, {
      partitionBy: ["part"],
      configuration: { "delta.checkpointInterval": "3" },
    });
    await table.write(data);
    const v2 = await table.write(data, { mode: "overwrite" });
    expect(v2.version).toBe(2);
    expect(v2.maintenanceError).toBeUndefined();
    await fs.access(path.join(uri, "_delta_log", "00000000000000000002.checkpoint.parquet"));

    const latest = await oracle.call<Read>("spark_read_table", { uri });
    expect(latest.names).toEqual(source.names);
    expect(latest.rows).toEqual(source.rows);
    const v1 = await oracle.call<Read>("spark_read_table", { uri, version: 1 });
    expect(v1.count).toBe(500);

    // Only our checkpoint can tell Spark what version 2 holds once the commits before it are gone.
    for (const v of [0, 1]) await fs.rm(path.join(uri, "_delta_log", `${String(v).padStart(20, "0")}.json`));
    const fromCheckpoint = await oracle.call<Read>("spark_read_table", { uri });
    expect(fromCheckpoint.rows).toEqual(source.rows);
  });
});
