/**
 * The upsert on the real (moto) S3 server: a delta-rs-written partitioned table uploaded to a bucket,
 * upserted through the S3 store (ranged reads for the probe and rewrite, conditional put for the commit),
 * then read by delta-rs from S3 — identical to delta-rs MERGE on a local copy of the same table.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { openStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { Field, Int64, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";

const schema = new Schema([
  new Field("id", new Int64(), true),
  new Field("name", new Utf8(), true),
  new Field("part", new Utf8(), true),
]);
const tableOf = (ids: number[], tag: string, parts: string[]) =>
  new Table(schema, {
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    name: vectorFromArray(
      ids.map((i) => `${tag}-${i}`),
      new Utf8(),
    ),
    part: vectorFromArray(
      ids.map((i) => parts[i % parts.length]!),
      new Utf8(),
    ),
  } as never);

describe("upsert on S3 (moto)", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-s3-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("equals delta-rs MERGE and delta-rs reads it from S3", async () => {
    const parts = ["a", "a/b", "sp ace"];
    const local = join(dir, "local");
    const theirs = join(dir, "theirs");
    const initial = join(dir, "initial.arrow");
    await writeFile(initial, tableToIPC(tableOf([...Array(60).keys()], "old", parts), "file"));
    await oracle.call("merge_create", {
      uris: [local, theirs],
      data: initial,
      partition_by: ["part"],
      appends: 3,
    });
    const s3 = testS3();
    const bucket = await s3.createBucket(`upsert-${randomBytes(4).toString("hex")}`);
    const uri = `s3://${bucket}/table`;
    const store = openStore(uri, { storageOptions: s3.storageOptions });
    for (const entry of await readdir(local, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      await store.put(path.slice(local.length + 1), new Uint8Array(await readFile(path)));
    }
    const source = tableOf([0, 1, 2, 30, 31, 100, 101, 102], "new", parts);
    const stats = await upsert(await Snapshot.open(store), source, {
      primaryKeys: ["id"],
      partitionKey: "part",
      commitMetadata: { where: "s3" },
    });
    expect(stats).toMatchObject({ rowsUpdated: 5, rowsInserted: 3, partitionsTouched: 3 });
    const sourcePath = join(dir, "source.arrow");
    await writeFile(sourcePath, tableToIPC(source, "file"));
    await oracle.call("merge_delta_rs", {
      uri: theirs,
      source: sourcePath,
      keys: ["id"],
      partition_key: "part",
    });
    const a = await oracle.call<{ rows: unknown[]; version: number; commitInfo: Record<string, unknown> }>(
      "merge_read",
      { uri, storage_options: s3.storageOptions },
    );
    const b = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.version).toBe(stats.version);
    expect(a.commitInfo).toMatchObject({ operation: "MERGE", where: "s3" });
  });
});
