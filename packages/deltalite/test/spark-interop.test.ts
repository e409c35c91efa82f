// Spark (the engine that defines Delta, via pyspark + delta-spark) reads what we write: the type matrix
// partitioned by hostile strings, after an append and an overwrite, and from our checkpoint alone; and the
// files an upsert rewrites, whose incompressible column is written UNCOMPRESSED beside snappy ones.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { readParquetFooter } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { tableFromArrays, tableFromIPC } from "apache-arrow";
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

  it("an upsert's rewritten files, their incompressible column UNCOMPRESSED beside snappy ones", {
    timeout: 240_000,
  }, async () => {
    const uri = path.join(tmp, "mixed-codecs");
    // 300 pseudo-random bytes a row, as base64: snappy cannot shrink them (xorshift32, seeded per row).
    const noise = (n: number, salt: number) =>
      Array.from({ length: n }, (_, i) => {
        let x = (i + 1) * 2654435761 + salt;
        const bytes = Buffer.alloc(300);
        for (let b = 0; b < bytes.length; b++) {
          x ^= x << 13;
          x ^= x >>> 17;
          x ^= x << 5;
          bytes[b] = x & 0xff;
        }
        return bytes.toString("base64");
      });
    const rows = 3000;
    const { table } = await DeltaLiteTable.write(
      uri,
      tableFromArrays({
        id: Array.from({ length: rows }, (_, i) => `k${i}`),
        day: Array.from({ length: rows }, (_, i) => `d${i % 2}`),
        noise: noise(rows, 1),
        n: Array.from({ length: rows }, (_, i) => i % 10),
      }),
      { partitionBy: ["day"] },
    );
    const updated = [5, 6, 2001];
    const stats = await table.upsert(
      tableFromArrays({
        id: updated.map((i) => `k${i}`),
        day: updated.map((i) => `d${i % 2}`),
        noise: noise(updated.length, 2),
        n: updated.map(() => 99),
      }),
      { primaryKeys: ["id"], partitionKey: "day" },
    );
    expect(stats.filesPassedThrough).toBeGreaterThan(0);
    const log = await fs.readFile(
      path.join(uri, "_delta_log", `${String(stats.version).padStart(20, "0")}.json`),
      "utf8",
    );
    const adds = log
      .split("\n")
      .filter((line) => line.includes('"add"'))
      .map((line) => JSON.parse(line).add as { path: string; size: number });
    const codecs = new Set<string>();
    for (const add of adds) {
      const footer = await readParquetFooter(new LocalFileStore(uri), decodeURIComponent(add.path), {
        size: add.size,
      });
      for (const chunk of footer.row_groups[0]?.columns ?? [])
        codecs.add(`${chunk.meta_data?.path_in_schema[0]}:${chunk.meta_data?.codec}`);
    }
    expect(codecs).toContain("noise:UNCOMPRESSED");
    expect(codecs).toContain("id:SNAPPY");
    const read = await oracle.call<Read>("spark_read_table", { uri });
    expect(read.count).toBe(rows);
    expect(read.rows.filter((r) => (r as { n: unknown }).n === 99)).toHaveLength(updated.length);
    const fromDeltaRs = await oracle.call<{ rows: unknown[] }>("merge_read", { uri });
    const byId = (list: unknown[]) =>
      list.map((r) => JSON.stringify(r, Object.keys(r as object).sort())).sort();
    expect(byId(read.rows)).toEqual(byId(fromDeltaRs.rows));
  });
});
