/**
 * Every upsert error path: the right typed error (branch on `kind`), and the table unchanged — same version,
 * same live files, and no new files on disk (validation runs before any write; files written before a
 * failed commit are deleted). Also: a commit that loses to a concurrent MERGE in the same partition
 * re-plans against the new version and converges to what delta-rs gives for the two MERGEs in order.
 */
import { readdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { type ErrorKind, isDeltaLiteError } from "@deltalite/errors";
import {
  LOCAL_TEMP_PREFIX,
  LocalFileStore,
  type LocalFileTarget,
  type PutOptions,
} from "@deltalite/object-store";
import { copyFixture, goldenTable } from "@deltalite/tools/fixtures";
import { type DataType, Field, Float64, Int64, Schema, Table, Utf8, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { type UpsertOptions, upsert } from "../src/index.js";
import { oracleWorkspace } from "./oracle-workspace.js";

type Columns = Record<string, { type: DataType; values: unknown[] }>;

function tableOf(columns: Columns): Table {
  const fields = Object.entries(columns).map(([name, c]) => new Field(name, c.type, true));
  const vectors = Object.fromEntries(
    Object.entries(columns).map(([name, c]) => [name, vectorFromArray(c.values, c.type)]),
  );
  return new Table(new Schema(fields), vectors as never);
}

const base = (n: number): Columns => ({
  id: { type: new Int64(), values: Array.from({ length: n }, (_, i) => BigInt(i)) },
  name: { type: new Utf8(), values: Array.from({ length: n }, (_, i) => `old-${i}`) },
  part: { type: new Utf8(), values: Array.from({ length: n }, (_, i) => ["a", "b"][i % 2]) },
});

async function filesOnDisk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((e) => e.endsWith(".parquet")).sort();
}

describe("upsert errors leave the table unchanged", () => {
  const ws = oracleWorkspace("deltalite-upsert-errors-");
  /** Numbers the table folders of this suite. */
  let n = 0;

  async function createTable(columns: Columns, partitionBy: string[] | null, copies = 1): Promise<string[]> {
    const uris = Array.from({ length: copies }, (_, i) => join(ws.dir, `t-${n}-${i}`));
    n++;
    await ws.oracle.call("merge_create", {
      uris,
      data: await ws.ipc(tableOf(columns)),
      partition_by: partitionBy,
      appends: 2,
    });
    return uris;
  }

  interface ErrorCase {
    name: string;
    kind: ErrorKind;
    errorName?: string;
    partitionBy: string[] | null;
    source: Columns;
    options: UpsertOptions;
    message?: RegExp;
  }

  const src = (ids: (bigint | null)[], parts: (string | null)[], extra: Columns = {}): Columns => ({
    id: { type: new Int64(), values: ids },
    name: { type: new Utf8(), values: ids.map((i) => `new-${String(i)}`) },
    part: { type: new Utf8(), values: parts },
    ...extra,
  });

  const errorCases: ErrorCase[] = [
    {
      name: "a source column the table lacks",
      kind: "schema_mismatch",
      errorName: "DeltaLiteSchemaMismatchError",
      partitionBy: ["part"],
      source: src([1n], ["b"], { extra: { type: new Utf8(), values: ["x"] } }),
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /extra/,
    },
    {
      name: "an empty source batch with a column the table lacks",
      kind: "schema_mismatch",
      partitionBy: ["part"],
      source: src([], [], { extra: { type: new Utf8(), values: [] } }),
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /extra/,
    },
    {
      name: "a source column of another type",
      kind: "schema_mismatch",
      errorName: "DeltaLiteSchemaMismatchError",
      partitionBy: ["part"],
      // Int32 → Int64 is now an exact cast (SPEC §7 "Source casts"); a string id has none.
      source: { id: { type: new Utf8(), values: ["1"] }, part: { type: new Utf8(), values: ["b"] } },
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /column id/,
    },
    {
      name: "a source value that does not cast exactly",
      kind: "schema_mismatch",
      errorName: "DeltaLiteSchemaMismatchError",
      partitionBy: ["part"],
      source: {
        id: { type: new Float64(), values: [1, 2.5] },
        part: { type: new Utf8(), values: ["b", "b"] },
      },
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /column id: row 1 of the source batch holds 2\.5/,
    },
    {
      name: "a primary key that is not a table column",
      kind: "invalid_argument",
      errorName: "DeltaLiteInvalidArgumentError",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["nope"], partitionKey: "part" },
      message: /primary-key column nope is not a table column; the table's columns are id, name, part$/,
    },
    {
      name: "a misspelt primary key",
      kind: "invalid_argument",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["Id"], partitionKey: "part" },
      message: /primary-key column Id is not a table column \(did you mean "id"\?\)/,
    },
    {
      name: "no primary keys",
      kind: "invalid_argument",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: [], partitionKey: "part" },
      message: /primaryKeys must be a non-empty list of column names \(got \[\]\)/,
    },
    {
      name: "primary keys given as a string",
      kind: "invalid_argument",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: "id" as never, partitionKey: "part" },
      message: /primaryKeys must be a non-empty list of column names \(got "id"\)/,
    },
    {
      name: "a primary key listed twice",
      kind: "invalid_argument",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["id", "id"], partitionKey: "part" },
      message: /primaryKeys must be a list of distinct column names/,
    },
    {
      name: "primary keys that are only the partition column",
      kind: "invalid_argument",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["part"], partitionKey: "part" },
      message: /besides the partition column part/,
    },
    {
      name: "a partition key that is not the table's",
      kind: "invalid_argument",
      errorName: "DeltaLiteInvalidArgumentError",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["id"], partitionKey: "name" },
      message: /is partitioned by part, not by partitionKey name; pass partitionKey part or leave it out$/,
    },
    {
      name: "a misspelt partition key",
      kind: "invalid_argument",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["id"], partitionKey: "parts" },
      message: /is partitioned by part, not by partitionKey parts \(did you mean "part"\?\)/,
    },
    {
      name: "a partition key on an unpartitioned table",
      kind: "invalid_argument",
      partitionBy: null,
      source: src([1n], ["b"]),
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /is not partitioned \(it has no partition column\), but partitionKey part was given/,
    },
    {
      name: "more than one partition column",
      kind: "unsupported",
      errorName: "DeltaLiteUnsupportedTableError",
      partitionBy: ["part", "name"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /2 columns/,
    },
    {
      name: "a NULL partition value",
      kind: "generic",
      partitionBy: ["part"],
      source: src([1n, 2n], ["a", null]),
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /NULL value in partition column part/,
    },
    {
      // Partition a is valid and comes first: still nothing may be written.
      name: "duplicate keys in one partition",
      kind: "generic",
      partitionBy: ["part"],
      source: src([0n, 100n, 1n, 1n, 1n], ["a", "a", "b", "b", "b"]),
      options: { primaryKeys: ["id"], partitionKey: "part" },
      message: /2 duplicate primary-key rows in partition part=b/,
    },
    {
      name: "duplicate keys, unpartitioned",
      kind: "generic",
      partitionBy: null,
      source: src([7n, 7n], ["a", "b"]),
      options: { primaryKeys: ["id"] },
      message: /1 duplicate primary-key row in partition \(unpartitioned\)/,
    },
    {
      name: "a source larger than maxSourceBytes",
      kind: "source_too_large",
      errorName: "DeltaLiteSourceTooLargeError",
      partitionBy: ["part"],
      source: src([1n, 2n], ["b", "a"]),
      options: { primaryKeys: ["id"], partitionKey: "part", maxSourceBytes: 1 },
      message: /maxSourceBytes \(1 bytes\)/,
    },
    {
      name: "an unknown prune strategy",
      kind: "invalid_argument",
      partitionBy: ["part"],
      source: src([1n], ["b"]),
      options: { primaryKeys: ["id"], partitionKey: "part", pruneStrategy: "fast" as never },
    },
  ];

  it.each(errorCases)("$name → $kind, table unchanged", async (c) => {
    const [uri] = await createTable(base(20), c.partitionBy);
    const store = new LocalFileStore(uri!);
    const before = await Snapshot.open(store);
    const diskBefore = await filesOnDisk(uri!);
    const error = await upsert(before, tableOf(c.source).batches, c.options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDeltaLiteError(error)).toBe(true);
    expect((error as { kind: string }).kind).toBe(c.kind);
    if (c.errorName) expect((error as Error).name).toBe(c.errorName);
    if (c.message) expect((error as Error).message).toMatch(c.message);
    const after = await Snapshot.open(store);
    expect(after.version).toBe(before.version);
    expect(after.files.map((f) => f.path).sort()).toEqual(before.files.map((f) => f.path).sort());
    expect(await filesOnDisk(uri!)).toEqual(diskBefore);
  });

  it("maxSourceBytes 0 disables the source guard", async () => {
    const [uri] = await createTable(base(4), ["part"]);
    const store = new LocalFileStore(uri!);
    const before = await Snapshot.open(store);
    const stats = await upsert(before, tableOf(src([1n], ["b"])), {
      primaryKeys: ["id"],
      partitionKey: "part",
      maxSourceBytes: 0,
    });
    expect(stats.version).toBe(before.version + 1);
  });

  it("an already aborted signal → aborted, table unchanged", async () => {
    const [uri] = await createTable(base(20), ["part"]);
    const store = new LocalFileStore(uri!);
    const before = await Snapshot.open(store);
    const controller = new AbortController();
    controller.abort(new Error("caller gave up"));
    const error = await upsert(before, tableOf(src([1n], ["b"])).batches, {
      primaryKeys: ["id"],
      partitionKey: "part",
      signal: controller.signal,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as { kind?: string }).kind).toBe("aborted");
    expect((await Snapshot.open(store)).version).toBe(before.version);
  });

  it("an abort once the first new data file is being written → aborted, table unchanged, the file deleted", async () => {
    const [uri] = await createTable(base(40), ["part"]);
    const local = new LocalFileStore(uri!);
    const controller = new AbortController();
    let parquetPuts = 0;
    // The real local store; only a data file's write is observed so the abort lands mid-upsert: as its `put`
    // starts, or on the native engine (which writes the file into its `localTarget`) as it is put in place.
    const store = new Proxy(local, {
      get(target, prop, receiver) {
        if (prop === "put" || prop === "localTarget") {
          return async (key: string, ...rest: unknown[]) => {
            const method = Reflect.get(target, prop, receiver) as (...a: unknown[]) => Promise<unknown>;
            if (!key.endsWith(".parquet")) return method.call(target, key, ...rest);
            parquetPuts++;
            if (prop === "put") {
              controller.abort(new Error("stop"));
              return method.call(target, key, ...rest);
            }
            // The worker writes the file into the target; the abort lands as the file is put in place.
            const written = (await method.call(target, key, ...rest)) as LocalFileTarget;
            return {
              path: written.path,
              discard: () => written.discard(),
              commit: (options?: PutOptions) => {
                controller.abort(new Error("stop"));
                return written.commit(options);
              },
            };
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const before = await Snapshot.open(store);
    const diskBefore = await filesOnDisk(uri!);
    const error = await upsert(
      before,
      tableOf(src([0n, 1n, 2n, 3n, 500n], ["a", "b", "a", "b", "a"])).batches,
      {
        primaryKeys: ["id"],
        partitionKey: "part",
        signal: controller.signal,
      },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(parquetPuts).toBeGreaterThan(0);
    expect((error as { kind?: string }).kind).toBe("aborted");
    const after = await Snapshot.open(local);
    expect(after.version).toBe(before.version);
    expect(await filesOnDisk(uri!)).toEqual(diskBefore);
    // Nor a temp file of the one being written (the store's or the worker's in place).
    const left = await readdir(uri!, { recursive: true });
    expect(left.filter((entry) => entry.includes(LOCAL_TEMP_PREFIX))).toEqual([]);
  });

  it.each(["dv-partitioned-with-checkpoint", "dv-with-columnmapping", "table-with-columnmapping-mode-name"])(
    "a table with features the upsert cannot honour (%s) → unsupported before anything is written",
    async (name) => {
      const uri = await copyFixture(goldenTable(name));
      try {
        const store = new LocalFileStore(uri);
        // The snapshot is opened without the read gate so that the upsert's own gate is what refuses.
        const before = await Snapshot.open(store, { checkReadSupport: false });
        const diskBefore = await filesOnDisk(uri);
        const error = await upsert(before, [], { primaryKeys: [before.schema.fields[0]!.name] }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect((error as { kind?: string }).kind).toBe("unsupported");
        expect((error as Error).name).toBe("DeltaLiteUnsupportedTableError");
        expect((await Snapshot.open(store, { checkReadSupport: false })).version).toBe(before.version);
        expect(await filesOnDisk(uri)).toEqual(diskBefore);
      } finally {
        await rm(dirname(uri), { recursive: true, force: true });
      }
    },
  );

  it("a commit that loses to a concurrent MERGE and may not re-plan: conflict error, no orphan files", async () => {
    const [ours] = await createTable(base(20), ["part"]);
    const store = new LocalFileStore(ours!);
    const stale = await Snapshot.open(store);
    await ws.oracle.call("merge_delta_rs", {
      uri: ours,
      source: await ws.ipc(tableOf(src([0n], ["a"]))),
      keys: ["id"],
      partition_key: "part",
    });
    const winner = await Snapshot.open(store);
    const diskBefore = await filesOnDisk(ours!);
    const error = await upsert(stale, tableOf(src([2n], ["a"])).batches, {
      primaryKeys: ["id"],
      partitionKey: "part",
      maxReplans: 0,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as { kind?: string }).kind).toBe("conflict");
    expect((error as Error).name).toBe("DeltaLiteCommitConflictError");
    const after = await Snapshot.open(store);
    expect(after.version).toBe(winner.version);
    expect(await filesOnDisk(ours!)).toEqual(diskBefore);
  });

  it("a commit that loses to a concurrent MERGE re-plans and equals delta-rs's two MERGEs in order", async () => {
    const [ours, theirs] = await createTable(base(20), ["part"], 2);
    const first = await ws.ipc(tableOf(src([0n, 2n], ["a", "a"])));
    const second = tableOf({
      id: { type: new Int64(), values: [2n, 4n, 99n] },
      name: { type: new Utf8(), values: ["second-2", "second-4", "second-99"] },
      part: { type: new Utf8(), values: ["a", "a", "a"] },
    });
    const store = new LocalFileStore(ours!);
    const stale = await Snapshot.open(store);
    await ws.oracle.call("merge_delta_rs", { uri: ours, source: first, keys: ["id"], partition_key: "part" });
    const stats = await upsert(stale, second.batches, { primaryKeys: ["id"], partitionKey: "part" });
    expect(stats.planAttempts).toBe(2);
    expect(stats.rowsUpdated).toBe(2);
    expect(stats.rowsInserted).toBe(1);
    await ws.oracle.call("merge_delta_rs", {
      uri: theirs,
      source: first,
      keys: ["id"],
      partition_key: "part",
    });
    await ws.oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ws.ipc(second),
      keys: ["id"],
      partition_key: "part",
    });
    const a = await ws.oracle.call<{ rows: unknown[]; version: number }>("merge_read", { uri: ours });
    const b = await ws.oracle.call<{ rows: unknown[]; version: number }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.version).toBe(stale.version + 2);
  });

  it("the probe rewrites exactly the files that hold a source key (random UUID keys: stats prune ~nothing)", async () => {
    // Deterministic UUID-shaped keys (a seeded LCG), 20 appends of 40 rows → 20 files whose min/max overlap.
    let seed = 20261130n;
    const hex = () => {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
      return seed.toString(16).padStart(16, "0");
    };
    const uuid = () => {
      const h = hex() + hex();
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
    };
    const ids = Array.from({ length: 800 }, uuid);
    const columns: Columns = {
      id: { type: new Utf8(), values: ids },
      v: { type: new Float64(), values: ids.map((_, i) => i) },
    };
    const uris = Array.from({ length: 4 }, (_, i) => join(ws.dir, `uuid-${n}-${i}`));
    n++;
    await ws.oracle.call("merge_create", {
      uris,
      data: await ws.ipc(tableOf(columns)),
      partition_by: null,
      appends: 20,
    });
    const hitIds = [ids[45]!, ids[47]!, ids[410]!, ids[799]!]; // files 1, 10 and 19
    const source = tableOf({
      id: { type: new Utf8(), values: [...hitIds, uuid(), uuid()] },
      v: { type: new Float64(), values: [-1, -2, -3, -4, -5, -6] },
    });
    const before = await Snapshot.open(new LocalFileStore(uris[0]!));
    expect(before.numFiles).toBe(20);
    // Which files hold which ids, read independently of the probe (delta-rs's add actions + pyarrow).
    const holders = await ws.oracle.call<string[]>("merge_files_holding", {
      uri: uris[0],
      column: "id",
      values: hitIds,
    });
    expect(holders.length).toBe(3);
    const removedBy: Record<string, string[]> = {};
    const statsBy: Record<string, { filesPrunedByStats: number; filesProbed: number; filesRemoved: number }> =
      {};
    for (const [i, strategy] of (["probe", "stats", "none"] as const).entries()) {
      const store = new LocalFileStore(uris[i]!);
      const snap = await Snapshot.open(store);
      const stats = await upsert(snap, source.batches, { primaryKeys: ["id"], pruneStrategy: strategy });
      const after = await Snapshot.open(store);
      const live = new Set(after.files.map((f) => f.add.path));
      removedBy[strategy] = snap.files
        .filter((f) => !live.has(f.add.path))
        .map((f) => f.add.path)
        .sort();
      statsBy[strategy] = stats;
    }
    expect(removedBy.probe).toEqual([...holders].sort());
    expect(statsBy.probe!.filesRemoved).toBe(3);
    expect(statsBy.probe!.filesProbed + statsBy.probe!.filesPrunedByStats).toBe(20);
    expect(statsBy.stats!.filesRemoved).toBeGreaterThan(10); // truncation-safe string stats rule out few files
    expect(statsBy.none!.filesRemoved).toBe(20);
    await ws.oracle.call("merge_delta_rs", {
      uri: uris[3],
      source: await ws.ipc(source),
      keys: ["id"],
      partition_key: null,
    });
    const expected = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: uris[3] });
    for (const uri of uris.slice(0, 3)) {
      expect((await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri })).rows).toEqual(expected.rows);
    }
  });
});
