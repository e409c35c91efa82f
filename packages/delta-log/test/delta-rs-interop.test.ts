// Both directions with delta-rs. delta-rs reads our commits (version, files, schema, rows of Parquet files
// pyarrow wrote, our commitInfo in its history). We read delta-rs tables with 0, 1 and 250 commits
// (delta-rs checkpoints at 99 and 199), at many versions, after OPTIMIZE and VACUUM; reload is incremental;
// time travel by timestamp picks the version delta-rs picks; history matches delta-rs's.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore, openStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { goldenTable } from "@deltalite/tools/fixtures";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Action,
  commitKey,
  commitTransaction,
  createTable,
  ENGINE_INFO,
  Snapshot,
} from "../src/index.js";

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

interface TheirSnapshot {
  version: number;
  files: { path: string; size: number; partitionValues: Record<string, unknown> }[];
  schema: unknown;
  configuration: Record<string, string>;
  partitionColumns: string[];
  tableId: string;
  protocol: { minReaderVersion: number; minWriterVersion: number };
  error?: { type: string; message: string };
}

async function theirs(
  uri: string,
  version?: number,
  storageOptions?: Record<string, string>,
): Promise<TheirSnapshot> {
  const s = await oracle.call<TheirSnapshot>("delta_snapshot", {
    uri,
    version: version ?? null,
    storage_options: storageOptions,
  });
  if (s.error) throw new Error(`delta-rs refused ${uri}@${version}: ${s.error.message}`);
  return s;
}

/** Ours vs delta-rs on what both expose: version, file paths + sizes, schema, configuration, table id, protocol. */
function expectSame(ours: Snapshot, their: TheirSnapshot): void {
  expect(ours.version).toBe(their.version);
  expect(ours.files.map((f) => `${f.add.path}:${f.size}`).sort()).toEqual(
    their.files.map((f) => `${f.path}:${f.size}`).sort(),
  );
  expect(JSON.parse(ours.schemaJson)).toEqual(their.schema);
  expect({ ...ours.configuration }).toEqual(their.configuration);
  expect([...ours.partitionColumns]).toEqual(their.partitionColumns);
  expect(ours.tableId).toBe(their.tableId);
  expect(ours.protocol.minReaderVersion).toBe(their.protocol.minReaderVersion);
  expect(ours.protocol.minWriterVersion).toBe(their.protocol.minWriterVersion);
}

describe("delta-rs reads what we commit", () => {
  it("a table we create and append Parquet files to (pyarrow-written) reads the same in delta-rs: version, files, schema, rows, history", async () => {
    const dir = path.join(tmp, "ours");
    const store = new LocalFileStore(dir);
    const created = await createTable(store, {
      schema: {
        type: "struct",
        fields: [
          { name: "id", type: "long", nullable: true, metadata: {} },
          { name: "name", type: "string", nullable: true, metadata: {} },
          { name: "day", type: "string", nullable: true, metadata: {} },
        ],
      },
      partitionColumns: ["day"],
      configuration: { "delta.logRetentionDuration": "interval 7 days" },
    });
    expect(created.version).toBe(0);
    let snapshot = created.snapshot;
    const batches = [
      { day: "2026-01-01", ids: [1, 2] },
      { day: "2026-01-02", ids: [3] },
      { day: "a b%c", ids: [4, 5, 6] },
    ];
    for (const [i, batch] of batches.entries()) {
      // A partition directory with special characters, encoded the way delta-rs does (%-escaped once in the
      // key, once more in add.path).
      const dirName = `day=${encodeURIComponent(batch.day)}`;
      const key = `${dirName}/part-${i}.parquet`;
      const { size } = await oracle.call<{ size: number }>("write_parquet_file", {
        path: path.join(dir, ...key.split("/")),
        columns: { id: batch.ids, name: batch.ids.map((x) => `n${x}`) },
        types: { id: "int64" },
      });
      const add: Action = {
        add: {
          path: key.replace(/%/g, "%25"),
          partitionValues: { day: batch.day },
          size,
          modificationTime: Date.now(),
          dataChange: true,
        },
      };
      const result = await commitTransaction(snapshot, [add], {
        operation: "WRITE",
        operationParameters: { mode: "Append", partitionBy: ["day"] },
        operationMetrics: { num_added_files: 1, num_added_rows: batch.ids.length },
      });
      expect(result.version).toBe(i + 1);
      snapshot = result.snapshot;
    }
    const their = await theirs(dir);
    expectSame(snapshot, their);
    expect(their.files.map((f) => f.partitionValues.day).sort()).toEqual(batches.map((b) => b.day).sort());
    const rows = await oracle.call<{ id: number; name: string; day: string }[]>("delta_read_rows", {
      uri: dir,
      sort_by: ["id"],
    });
    expect(rows).toEqual(
      batches
        .flatMap((b) => b.ids.map((id) => ({ id, name: `n${id}`, day: b.day })))
        .sort((a, b) => a.id - b.id),
    );
    const history = await oracle.call<Record<string, unknown>[]>("delta_history", { uri: dir });
    expect(history.map((h) => h.operation)).toEqual(["WRITE", "WRITE", "WRITE", "CREATE TABLE"]);
    expect(history.every((h) => h.engineInfo === ENGINE_INFO)).toBe(true);
    // And our own history reads the same commits newest first.
    const ours = await snapshot.history();
    expect(ours.map((h) => [h.version, h.operation])).toEqual([
      [3, "WRITE"],
      [2, "WRITE"],
      [1, "WRITE"],
      [0, "CREATE TABLE"],
    ]);
  });
});

describe("we read what delta-rs writes", () => {
  const columns = { id: [1, 2, 3], day: ["a", "b", "a"], v: [0.5, 1.5, 2.5] };

  it("a table with only version 0 (no commits after creation)", async () => {
    const uri = path.join(tmp, "v0");
    await oracle.call("delta_write", { uri, columns, partition_by: ["day"] });
    expectSame(await Snapshot.open(new LocalFileStore(uri)), await theirs(uri));
  });

  it("a table with one commit after creation", async () => {
    const uri = path.join(tmp, "v1");
    await oracle.call("delta_write", { uri, columns, partition_by: ["day"], repeat: 2 });
    const store = new LocalFileStore(uri);
    expectSame(await Snapshot.open(store), await theirs(uri));
    expectSame(await Snapshot.open(store, { version: 0 }), await theirs(uri, 0));
  });

  describe("a table with 250 commits (delta-rs checkpoints at 99 and 199), then OPTIMIZE and VACUUM", () => {
    const uri = () => path.join(tmp, "v250");
    beforeAll(async () => {
      await oracle.call("delta_write", { uri: uri(), columns, partition_by: ["day"], repeat: 250 });
    }, 120_000);

    it("delta-rs wrote checkpoints at 99 and 199 and _last_checkpoint points at 199", async () => {
      const log = await fs.readdir(path.join(uri(), "_delta_log"));
      expect(log.filter((n) => n.endsWith(".checkpoint.parquet")).sort()).toEqual([
        "00000000000000000099.checkpoint.parquet",
        "00000000000000000199.checkpoint.parquet",
      ]);
      const hint = JSON.parse(await fs.readFile(path.join(uri(), "_delta_log", "_last_checkpoint"), "utf8"));
      expect(hint.version).toBe(199);
    });

    it.each([undefined, 0, 1, 98, 99, 100, 150, 199, 200, 249])(
      "version %s equals delta-rs's",
      async (version) => {
        expectSame(await Snapshot.open(new LocalFileStore(uri()), { version }), await theirs(uri(), version));
      },
    );

    it("reload() from version 240 reads only the 9 newer commits and equals a fresh open", async () => {
      const store = new CountingStore(new LocalFileStore(uri()));
      const old = await Snapshot.open(store, { version: 240 });
      store.reset();
      const latest = await old.reload();
      expect(store.counts.list.calls).toBe(1);
      expect(
        store.log
          .filter((r) => r.method === "get")
          .map((r) => r.key)
          .sort(),
      ).toEqual(Array.from({ length: 9 }, (_, i) => commitKey(241 + i)));
      expect(latest.version).toBe(249);
      expectSame(latest, await theirs(uri()));
      // Nothing new: the same snapshot back, after one LIST.
      store.reset();
      expect(await latest.reload()).toBe(latest);
      expect(store.totalCalls).toBe(1);
    });

    it("history(limit) lists the newest commits first, as delta-rs does", async () => {
      const ours = await (await Snapshot.open(new LocalFileStore(uri()))).history(5);
      const their = await oracle.call<{ version: number; operation: string; timestamp: number }[]>(
        "delta_history",
        {
          uri: uri(),
          limit: 5,
        },
      );
      expect(ours.map((h) => [h.version, h.operation, h.timestamp])).toEqual(
        their.map((h) => [h.version, h.operation, h.timestamp]),
      );
    });

    it("after delta-rs OPTIMIZE and VACUUM we read the same files as delta-rs", async () => {
      const optimized = await oracle.call<{ version: number }>("delta_optimize", { uri: uri() });
      expect(optimized.version).toBe(250);
      const afterOptimize = await Snapshot.open(new LocalFileStore(uri()));
      expectSame(afterOptimize, await theirs(uri()));
      expect(afterOptimize.numFiles).toBe(2);
      const vacuumed = await oracle.call<{ version: number; deleted: string[] }>("delta_vacuum", {
        uri: uri(),
        retention_hours: 0,
      });
      expect(vacuumed.deleted.length).toBeGreaterThan(0);
      const afterVacuum = await Snapshot.open(new LocalFileStore(uri()));
      expectSame(afterVacuum, await theirs(uri()));
      // Every live file still exists on disk.
      for (const f of afterVacuum.files)
        await expect(fs.stat(path.join(uri(), f.path))).resolves.toBeTruthy();
    });
  });

  it("time travel by timestamp picks the version delta-rs picks (commit file modification times)", async () => {
    const uri = path.join(tmp, "tt");
    await oracle.call("delta_write", { uri, columns, repeat: 5 });
    const base = Date.UTC(2026, 0, 1);
    for (let v = 0; v < 5; v++) {
      const when = new Date(base + v * 60_000);
      await fs.utimes(path.join(uri, commitKey(v)), when, when);
    }
    const store = new LocalFileStore(uri);
    for (const at of [base - 1000, base, base + 30_000, base + 60_000, base + 119_999, base + 10 * 60_000]) {
      const expected = await oracle.call<{ version?: number; error?: unknown }>("delta_version_at", {
        uri,
        timestamp_ms: at,
      });
      const ours = await Snapshot.open(store, { timestamp: at });
      if (expected.error) {
        // delta-rs refuses a timestamp before the first commit; we clamp to the oldest version (its rule for
        // tables whose early commits were cleaned up). Record it as the one allowed difference.
        expect(at).toBeLessThan(base);
        expect(ours.version).toBe(0);
        continue;
      }
      expect(ours.version, `timestamp ${new Date(at).toISOString()}`).toBe(expected.version);
    }
    expect((await Snapshot.open(store, { timestamp: new Date(base + 90_000).toISOString() })).version).toBe(
      1,
    );
  });

  it("a missing table is DeltaLiteTableNotFoundError", async () => {
    const error = await Snapshot.open(new LocalFileStore(path.join(tmp, "nothing-here"))).catch((e) => e);
    expect(error).toMatchObject({ kind: "not_found", name: "DeltaLiteTableNotFoundError" });
  });
});

describe("checkpointed Spark tables on S3 (moto)", () => {
  async function upload(
    source: string,
    put: (key: string, data: Uint8Array) => Promise<unknown>,
    prefix = "",
  ) {
    for (const entry of await fs.readdir(path.join(source, prefix), { withFileTypes: true })) {
      const key = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await upload(source, put, key);
      else await put(key, new Uint8Array(await fs.readFile(path.join(source, key))));
    }
  }

  it.each([
    "checkpoint",
    "multi-part-checkpoint",
    "v2-checkpoint-json",
    "v2-checkpoint-parquet",
    "data-reader-partition-values",
  ])("%s read from S3 equals delta-rs's reading of it", async (name) => {
    const s3 = testS3();
    const bucket = await s3.createBucket(`golden-${randomBytes(4).toString("hex")}`);
    const uri = `s3://${bucket}/${name}`;
    const store = openStore(uri, { storageOptions: s3.storageOptions });
    await upload(goldenTable(name), (key, data) => store.put(key, data));
    const counting = new CountingStore(store);
    const ours = await Snapshot.open(counting);
    expectSame(ours, await theirs(uri, undefined, s3.storageOptions));
    // The _last_checkpoint hint was used: one LIST, no HEAD requests.
    expect(counting.counts.list.calls).toBe(1);
    expect(counting.counts.head.calls).toBe(0);
  });
});
