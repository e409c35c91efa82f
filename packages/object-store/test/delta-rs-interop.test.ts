// delta-rs writes a small partitioned table (two commits) to local disk and to the S3 server; our stores
// list it and read every file byte-identical to what an independent reader (Python) sees.
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAll, type ObjectStore, openStore } from "../src/index.js";
import { CountingStore } from "../src/testing-entry.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-interop-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const columns = {
  id: [1, 2, 3, 4, 5, 6],
  day: ["2026-01-01", "2026-01-01", "2026-01-02", "sp ace", "üñî/çødé", "a=b"],
  value: [1.5, null, 3.25, -0.0, 1e300, 7],
};

async function writeWithDeltaRs(uri: string, storageOptions?: Record<string, string>): Promise<void> {
  await oracle.call("write_table", { uri, columns, partition_by: ["day"], storage_options: storageOptions });
  await oracle.call("write_table", {
    uri,
    columns,
    partition_by: ["day"],
    mode: "append",
    storage_options: storageOptions,
  });
}

async function compareWithIndependentListing(
  store: ObjectStore,
  uri: string,
  storageOptions?: Record<string, string>,
) {
  const expected = await oracle.call<{ key: string; size: number; sha256: string }[]>("list_objects", {
    uri,
    storage_options: storageOptions,
  });
  const counting = new CountingStore(store);
  const listed = await listAll(counting, "");
  expect(listed.map((m) => m.key)).toEqual(expected.map((e) => e.key));
  expect(listed.map((m) => m.size)).toEqual(expected.map((e) => e.size));
  for (const meta of listed) {
    const data = await counting.get(meta.key);
    expect(createHash("sha256").update(data).digest("hex"), meta.key).toBe(
      expected.find((e) => e.key === meta.key)?.sha256,
    );
  }
  // One listing, one GET per object, nothing else.
  expect(counting.counts.list.calls).toBe(1);
  expect(counting.counts.get.calls).toBe(expected.length);
  expect(counting.counts.head.calls).toBe(0);
  // Two commits, at least one data file per partition value per commit.
  expect(
    expected.filter((e) => e.key.startsWith("_delta_log/") && e.key.endsWith(".json")).map((e) => e.key),
  ).toEqual(["_delta_log/00000000000000000000.json", "_delta_log/00000000000000000001.json"]);
  expect(expected.filter((e) => e.key.endsWith(".parquet")).length).toBeGreaterThanOrEqual(10);
  return listed;
}

describe("delta-rs writes, our stores read byte-identical", () => {
  it("local file system", async () => {
    const dir = path.join(tmp, "local-table");
    await writeWithDeltaRs(dir);
    const listed = await compareWithIndependentListing(openStore(dir), dir);
    // Partition directories are listed as delta-rs encoded them (e.g. the '/' in a value is %2F).
    expect(
      listed.some((m) => m.key.startsWith("day=%C3%BC%C3%B1%C3%AE%2F") || m.key.startsWith("day=üñî%2F")),
    ).toBe(true);
  });

  it("S3 (moto_server)", async () => {
    const s3 = testS3();
    const bucket = await s3.createBucket(`interop-${randomBytes(4).toString("hex")}`);
    const uri = `s3://${bucket}/tables/events`;
    await writeWithDeltaRs(uri, s3.storageOptions);
    await compareWithIndependentListing(
      openStore(uri, { storageOptions: s3.storageOptions }),
      uri,
      s3.storageOptions,
    );
  });
});
