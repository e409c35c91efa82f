/**
 * VacuumResult.bytes is exact: the sum of the sizes the store lists for the files vacuum deleted, on the
 * local disk and on S3 (moto), in lite and full mode; it equals the VACUUM START commit's
 * sizeOfDataToDelete. A tombstone without `size` is measured with a HEAD; one whose file is already gone is
 * neither deleted nor counted.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { listAll, type ObjectStore, openStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitTransaction, Snapshot, vacuum } from "../src/index.js";

let oracle: Oracle;
let tmp: string;
const s3 = testS3();
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-vacuum-bytes-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const stores = {
  local: async () => ({ uri: path.join(tmp, randomBytes(4).toString("hex")), storageOptions: {} }),
  "S3 (moto)": async () => {
    const bucket = await s3.createBucket(`vacuum-${randomBytes(4).toString("hex")}`);
    return { uri: `s3://${bucket}/t`, storageOptions: s3.storageOptions };
  },
};

/** A table with tombstones: three delta-rs writes (the last an overwrite), partitioned. */
async function tableWithTombstones(
  uri: string,
  storageOptions: Record<string, string>,
): Promise<ObjectStore> {
  const columns = { id: [1, 2, 3, 4], day: ["a", "b", "a", "c"] };
  const common = { uri, columns, partition_by: ["day"], storage_options: storageOptions };
  await oracle.call("delta_write", common);
  await oracle.call("delta_write", { ...common, columns: { id: [5], day: ["b"] } });
  await oracle.call("delta_write", { ...common, mode: "overwrite" });
  return openStore(uri, { storageOptions });
}

async function sizes(store: ObjectStore): Promise<Map<string, number>> {
  return new Map((await listAll(store, "")).map((m) => [m.key, m.size]));
}

async function vacuumStartMetrics(store: ObjectStore, version: number): Promise<Record<string, unknown>> {
  const text = new TextDecoder().decode(
    await store.get(`_delta_log/${String(version).padStart(20, "0")}.json`),
  );
  return JSON.parse(text.split("\n")[0]!).commitInfo.operationMetrics;
}

describe.each(Object.entries(stores))("%s", (_name, location) => {
  it.each([
    ["lite", false],
    ["full", true],
  ] as const)("%s mode: bytes is the sum of the deleted files' listed sizes", async (_mode, full) => {
    const { uri, storageOptions } = await location();
    const store = await tableWithTombstones(uri, storageOptions);
    if (full) await store.put("day=a/stray.parquet", new Uint8Array(123));
    const before = await sizes(store);
    const result = await vacuum(await Snapshot.open(store), {
      retentionHours: 0,
      enforceRetentionDuration: false,
      full,
    });
    // Tombstones: 3 files of the first write and 1 of the second; full mode adds the stray file.
    expect(result.files.length).toBe(full ? 5 : 4);
    const expected = result.files.reduce((sum, key) => sum + before.get(key)!, 0);
    expect(result.bytes).toBe(expected);
    expect(result.bytes).toBeGreaterThan(0);
    const after = await sizes(store);
    for (const key of result.files) expect(after.has(key)).toBe(false);
    expect(await vacuumStartMetrics(store, result.versions[0]!)).toEqual({
      numFilesToDelete: result.files.length,
      sizeOfDataToDelete: expected,
    });
  });

  it("a tombstone without size is measured; one whose file is gone is not counted", async () => {
    const { uri, storageOptions } = await location();
    const store = await tableWithTombstones(uri, storageOptions);
    const snapshot = await Snapshot.open(store);
    const [sized, missing] = snapshot.files;
    await store.delete(missing!.path); // as if someone else deleted it already
    const removes = [sized!, missing!].map((f) => ({
      remove: {
        path: f.add.path,
        deletionTimestamp: 1,
        dataChange: true,
        partitionValues: f.add.partitionValues,
      },
    }));
    await commitTransaction(snapshot, removes, { operation: "DELETE" });
    const before = await sizes(store);
    const dry = await vacuum(await Snapshot.open(store), {
      retentionHours: 0,
      enforceRetentionDuration: false,
      dryRun: true,
    });
    expect(dry.files).toContain(sized!.path);
    expect(dry.files).not.toContain(missing!.path);
    expect(dry.bytes).toBe(dry.files.reduce((sum, key) => sum + before.get(key)!, 0));
    const real = await vacuum(await Snapshot.open(store), {
      retentionHours: 0,
      enforceRetentionDuration: false,
    });
    expect({ files: real.files, bytes: real.bytes }).toEqual({ files: dry.files, bytes: dry.bytes });
  });
});
