// The public surface of `deltalite` as an application uses it: write, scan with a filter and time travel,
// history — all through the package's own exports.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as deltalite from "../src/index.js";

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-api-"));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const rows = (ids: number[], day: string) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    day: vectorFromArray(
      ids.map(() => day),
      new Utf8(),
    ),
  });

async function collect(scan: AsyncIterable<import("apache-arrow").RecordBatch>): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of scan)
    for (const row of deltalite.batchToJsonRows(batch)) out.push(JSON.stringify(row));
  return out.sort();
}

describe("deltalite public API", () => {
  it("exports the table, scan, JSON, store, error and process-level functions", () => {
    for (const name of [
      "DeltaLiteTable",
      "scanTable",
      "TableScan",
      "batchToJsonRows",
      "batchToNdjson",
      "openStore",
      "DeltaLiteError",
      "isDeltaLiteError",
      "probeCacheStats",
      "setProbeCacheMaxBytes",
      "clearProbeCache",
    ]) {
      expect(deltalite, name).toHaveProperty(name);
    }
  });

  it("write, scan with a filter, time travel and history through DeltaLiteTable", async () => {
    const uri = path.join(tmp, "events");
    const { table } = await deltalite.DeltaLiteTable.write(uri, rows([1, 2, 3], "a"), {
      partitionBy: ["day"],
    });
    await table.write(rows([4, 5], "b"));
    expect(await collect(table.scan())).toHaveLength(5);
    expect(
      await collect(table.scan({ filter: [{ column: "day", op: "eq", value: "b" }], columns: ["id"] })),
    ).toEqual(['{"id":4}', '{"id":5}']);
    expect(await collect(table.scan({ version: 0 }))).toHaveLength(3);
    expect((await table.history()).map((h) => h.version)).toEqual([1, 0]);
  });
});
