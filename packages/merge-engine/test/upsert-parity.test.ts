/**
 * Upsert parity with delta-rs MERGE: the same starting table (written by delta-rs, copied byte for byte)
 * and the same batches go through our `upsert` and through delta-rs 1.6.6 MERGE with SPEC §7's predicate
 * (`t.part = s.part AND t.<keys> = s.<keys>` on a partitioned table, the keys alone otherwise;
 * update-all / insert-all); delta-rs then reads both tables and their sorted canonical rows and Delta
 * schemas must be identical. Also: the MERGE commit's shape, UpsertStats invariants, and the same content
 * under every prune strategy.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import {
  Field,
  Float64,
  Int64,
  type RecordBatch,
  Schema,
  Table,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PruneStrategy, type UpsertStats, upsert } from "../src/index.js";

interface Row {
  id: bigint | null;
  k2?: string | null;
  name?: string | null;
  v?: number | null;
  part: string | null;
}

const SCHEMA = new Schema([
  new Field("id", new Int64(), true),
  new Field("k2", new Utf8(), true),
  new Field("name", new Utf8(), true),
  new Field("v", new Float64(), true),
  new Field("part", new Utf8(), true),
]);

function tableOf(rows: readonly Row[]): Table {
  const col = <T>(name: string, pick: (r: Row) => T) =>
    vectorFromArray(rows.map(pick), SCHEMA.fields.find((f) => f.name === name)!.type);
  return new Table(SCHEMA, {
    id: col("id", (r) => r.id),
    k2: col("k2", (r) => r.k2 ?? null),
    name: col("name", (r) => r.name ?? null),
    v: col("v", (r) => r.v ?? null),
    part: col("part", (r) => r.part),
  } as never);
}

/** One batch (a Table of ≤ 1 batch; an empty table still yields a zero-row batch of the schema). */
function batchOf(rows: readonly Row[]): RecordBatch {
  const table = tableOf(rows);
  return table.batches[0] ?? emptyBatch();
}

function emptyBatch(): RecordBatch {
  return tableOf([{ id: 1n, part: "x" }]).batches[0]!.slice(0, 0);
}

const parts3 = ["a", "b", "c"];
const initialRows = (n: number, parts = parts3, keyOf = (i: number) => BigInt(i)): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    id: keyOf(i),
    k2: `k${i % 2}`,
    name: `old-${i}`,
    v: i / 4,
    part: parts[i % parts.length]!,
  }));

interface Case {
  name: string;
  partitioned: boolean;
  keys: string[];
  initial: Row[];
  batches: Row[][];
  appends?: number;
}

const cases: Case[] = [
  {
    name: "partitioned: updates and inserts",
    partitioned: true,
    keys: ["id"],
    initial: initialRows(60),
    appends: 3,
    batches: [
      [
        { id: 0n, name: "new-0", v: 100, part: "a" },
        { id: 4n, name: "new-4", v: 104, part: "b" },
        { id: 1000n, name: "ins", v: -1, part: "c" },
      ],
    ],
  },
  {
    name: "unpartitioned: updates and inserts",
    partitioned: false,
    keys: ["id"],
    initial: initialRows(60),
    appends: 3,
    batches: [
      [
        { id: 0n, name: "new-0", part: "z" },
        { id: 59n, name: "new-59", part: "a" },
        { id: 61n, name: "ins", part: "b" },
      ],
    ],
  },
  {
    name: "composite keys (id, k2)",
    partitioned: true,
    keys: ["id", "k2"],
    initial: initialRows(30),
    appends: 2,
    batches: [
      [
        { id: 0n, k2: "k0", name: "upd", part: "a" },
        { id: 0n, k2: "k1", name: "ins-other-k2", part: "a" },
        { id: 3n, k2: "k1", name: "upd-3", part: "a" },
      ],
    ],
  },
  {
    name: "primary keys that include the partition column",
    partitioned: true,
    keys: ["part", "id"],
    initial: initialRows(30),
    appends: 2,
    batches: [
      [
        { id: 0n, name: "upd-0", part: "a" },
        { id: 1n, name: "moved-1", part: "a" },
        { id: 77n, name: "ins", part: "c" },
      ],
    ],
  },
  {
    name: "null keys, single column (table already holds NULL ids)",
    partitioned: true,
    keys: ["id"],
    initial: [...initialRows(12), { id: null, name: "old-null", part: "a" }],
    batches: [
      [
        { id: null, name: "src-null-1", part: "a" },
        { id: null, name: "src-null-2", part: "a" },
        { id: 0n, name: "upd-0", part: "a" },
      ],
    ],
  },
  {
    name: "null keys, composite",
    partitioned: false,
    keys: ["id", "k2"],
    initial: [...initialRows(12), { id: 1n, k2: null, name: "old-null-k2", part: "b" }],
    batches: [
      [
        { id: 1n, k2: null, name: "src-null-k2", part: "b" },
        { id: null, k2: "k0", name: "src-null-id", part: "b" },
        { id: null, k2: null, name: "src-null-both", part: "b" },
        { id: 1n, k2: "k1", name: "upd-1", part: "b" },
      ],
    ],
  },
  {
    name: "a key that moves partition leaves its old row",
    partitioned: true,
    keys: ["id"],
    initial: initialRows(9),
    batches: [[{ id: 0n, name: "moved", part: "b" }]],
  },
  {
    name: "new partition",
    partitioned: true,
    keys: ["id"],
    initial: initialRows(9),
    batches: [
      [
        { id: 100n, name: "fresh", part: "d" },
        { id: 101n, name: "fresh", part: "d" },
      ],
    ],
  },
  {
    name: "empty batch",
    partitioned: true,
    keys: ["id"],
    initial: initialRows(9),
    batches: [[]],
  },
  {
    name: "all rows replaced",
    partitioned: true,
    keys: ["id"],
    initial: initialRows(30),
    appends: 3,
    batches: [initialRows(30).map((r) => ({ ...r, name: `all-${String(r.id)}`, v: -1 }))],
  },
  {
    name: "hostile partition values",
    partitioned: true,
    keys: ["id"],
    initial: initialRows(32, ['quote"dq', "o'brien", "üñîçødé", "sp ace", "back\\slash", "a,b", "a/b", ".."]),
    appends: 2,
    batches: [
      [
        { id: 0n, name: "upd", part: 'quote"dq' },
        { id: 1n, name: "upd", part: "o'brien" },
        { id: 2n, name: "upd", part: "üñîçødé" },
        { id: 3n, name: "upd", part: "sp ace" },
        { id: 4n, name: "upd", part: "back\\slash" },
        { id: 5n, name: "upd", part: "a,b" },
        { id: 6n, name: "upd", part: "a/b" },
        { id: 7n, name: "upd", part: ".." },
        { id: 8n, name: "moved-to-=", part: "a=b" },
        { id: 500n, name: "ins", part: "%" },
      ],
    ],
  },
  {
    // Not made by upserts (write_deltalake appends), but a MERGE updates every matching target row.
    name: "a table that already holds a key twice",
    partitioned: true,
    keys: ["id"],
    initial: [...initialRows(9), { id: 0n, name: "dup-0", part: "a" }, { id: 1n, name: "dup-1", part: "c" }],
    batches: [
      [
        { id: 0n, name: "upd-0", part: "a" },
        { id: 1n, name: "upd-1", part: "b" },
        { id: 50n, name: "ins", part: "a" },
      ],
    ],
  },
  {
    name: "a sequence of batches",
    partitioned: true,
    keys: ["id"],
    initial: initialRows(40),
    appends: 4,
    batches: [
      [
        { id: 1n, name: "b1", part: "b" },
        { id: 200n, name: "b1-ins", part: "a" },
      ],
      [
        { id: 200n, name: "b2-upd", part: "a" },
        { id: 2n, name: "b2", part: "c" },
        { id: null, name: "b2-null", part: "c" },
      ],
      [
        { id: 1n, name: "b3", part: "b" },
        { id: 300n, name: "b3-new-part", part: "e" },
      ],
    ],
  },
];

interface ReadBack {
  rows: unknown[];
  schema: unknown;
  version: number;
  files: string[];
  commitInfo: Record<string, unknown>;
}

describe("upsert = delta-rs MERGE", () => {
  let oracle: Oracle;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function ipcFile(rows: readonly Row[]): Promise<string> {
    const path = join(dir, `data-${n++}.arrow`);
    await writeFile(path, tableToIPC(tableOf(rows), "file"));
    return path;
  }

  async function runBoth(c: Case, strategy: PruneStrategy) {
    const ours = join(dir, `ours-${n}`);
    const theirs = join(dir, `theirs-${n++}`);
    await oracle.call("merge_create", {
      uris: [ours, theirs],
      data: await ipcFile(c.initial),
      partition_by: c.partitioned ? ["part"] : null,
      appends: c.appends ?? 1,
    });
    const stats: UpsertStats[] = [];
    for (const rows of c.batches) {
      const snapshot = await Snapshot.open(new LocalFileStore(ours));
      stats.push(
        await upsert(snapshot, rows.length === 0 ? [emptyBatch()] : [batchOf(rows)], {
          primaryKeys: c.keys,
          ...(c.partitioned ? { partitionKey: "part" } : {}),
          commitMetadata: { source: "parity-test", batch: stats.length },
          pruneStrategy: strategy,
        }),
      );
      await oracle.call("merge_delta_rs", {
        uri: theirs,
        source: await ipcFile(rows),
        keys: c.keys,
        partition_key: c.partitioned ? "part" : null,
      });
    }
    const a = await oracle.call<ReadBack>("merge_read", { uri: ours });
    const b = await oracle.call<ReadBack>("merge_read", { uri: theirs });
    return { a, b, stats };
  }

  it.each(cases)("$name", async (c) => {
    const { a, b, stats } = await runBoth(c, "probe");
    expect(a.rows).toEqual(b.rows);
    expect(a.schema).toEqual(b.schema);
    // Files are placed and named as delta-rs places them (same partition directories, part-…-c000 names).
    const dirs = (files: string[]) =>
      [...new Set(files.map((f) => f.slice(0, f.lastIndexOf("/") + 1)))].sort();
    expect(dirs(a.files)).toEqual(dirs(b.files));
    for (const f of a.files) expect(f).toMatch(/(^|\/)part-\d{5}-[0-9a-f-]{36}-c000\.snappy\.parquet$/);
    for (const s of stats) {
      expect(s.rowsInserted + s.sourceRowsMatched).toBe(s.sourceRows);
      expect(s.filesCarriedOver + s.filesRemoved).toBe(s.filesCandidates);
      expect(s.filesProbed + s.filesProbeCached).toBeLessThanOrEqual(s.filesCandidates);
    }
    // One commit per batch (the empty batch included), recorded as a MERGE with Spark metric names.
    expect(a.version).toBe(stats.at(-1)!.version);
    expect(stats.map((s) => s.version)).toEqual(c.batches.map((_, i) => stats[0]!.version + i));
    const info = a.commitInfo;
    expect(info.operation).toBe("MERGE");
    expect(info.source).toBe("parity-test");
    expect(info.batch).toBe(c.batches.length - 1);
    const params = info.operationParameters as Record<string, string>;
    expect(params.predicate).toContain(
      c.partitioned ? "t.`part` = s.`part` AND t.`id` = s.`id`" : "t.`id` = s.`id`",
    );
    const metrics = info.operationMetrics as Record<string, number>;
    const last = stats.at(-1)!;
    expect(metrics).toMatchObject({
      numSourceRows: last.sourceRows,
      numTargetRowsInserted: last.rowsInserted,
      numTargetRowsUpdated: last.rowsUpdated,
      numTargetRowsCopied: last.rowsCopied,
      numTargetFilesAdded: last.filesAdded,
      numTargetFilesRemoved: last.filesRemoved,
    });
    expect(typeof metrics.executionTimeMs).toBe("number");
  });

  it("counts what happened (partitioned: updates, inserts, NULL keys)", async () => {
    const c: Case = {
      name: "counts",
      partitioned: true,
      keys: ["id"],
      initial: initialRows(30),
      appends: 3,
      batches: [
        [
          { id: 0n, name: "u", part: "a" },
          { id: 1n, name: "u", part: "b" },
          { id: 999n, name: "i", part: "a" },
          { id: null, name: "n", part: "c" },
        ],
      ],
    };
    const { stats } = await runBoth(c, "probe");
    const s = stats[0]!;
    expect(s).toMatchObject({
      sourceRows: 4,
      rowsUpdated: 2,
      rowsInserted: 2,
      nullPkRows: 1,
      partitionsTouched: 3,
      filesCandidates: 9, // 3 appends × 3 partitions
      // Appends hold ids 0–9, 10–19, 20–29: stats keep only the first append's file in a and b; c has only a
      // NULL key, which matches nothing, so all its files are ruled out.
      filesPrunedByStats: 7,
      filesProbed: 2,
      filesRemoved: 2,
      filesCarriedOver: 7,
      rowsCopied: 5, // a: ids 0,3,6,9 minus 0; b: ids 1,4,7 minus 1
    });
  });

  it("20k rows in 20 row groups, half of them updated, read 512 rows at a time", async () => {
    const c: Case = {
      name: "big",
      partitioned: false,
      keys: ["id"],
      initial: [{ id: -1n, part: "a" }],
      batches: [],
    };
    const ours = join(dir, `ours-big-${n}`);
    const theirs = join(dir, `theirs-big-${n++}`);
    await oracle.call("merge_create", { uris: [ours, theirs], data: await ipcFile(c.initial), appends: 1 });
    const store = new LocalFileStore(ours);
    const first = initialRows(20_000);
    const second = first.filter((_, i) => i % 2 === 0).map((r) => ({ ...r, name: "updated", v: -1 }));
    const s1 = await upsert(await Snapshot.open(store), tableOf(first), {
      primaryKeys: ["id"],
      maxRowGroupRows: 1000,
    });
    expect(s1).toMatchObject({ rowsInserted: 20_000, rowsUpdated: 0, filesRemoved: 0, filesAdded: 1 });
    const written = [...(await Snapshot.open(store)).files].sort((x, y) => y.size - x.size)[0]!;
    const reader = await openParquetReader(store, written.path, { size: written.size });
    expect(reader.numRowGroups).toBe(20);
    const s2 = await upsert(await Snapshot.open(store), tableOf(second), {
      primaryKeys: ["id"],
      readBatchSize: 512,
    });
    expect(s2).toMatchObject({ rowsUpdated: 10_000, rowsInserted: 0, rowsCopied: 10_000, filesRemoved: 1 });
    for (const rows of [first, second]) {
      await oracle.call("merge_delta_rs", { uri: theirs, source: await ipcFile(rows), keys: ["id"] });
    }
    const a = await oracle.call<ReadBack>("merge_read", { uri: ours });
    const b = await oracle.call<ReadBack>("merge_read", { uri: theirs });
    expect(a.rows.length).toBe(20_001);
    expect(a.rows).toEqual(b.rows);
  });

  it("a source split over many batches (async iterable) equals one batch; duplicates across batches are caught", async () => {
    const c = cases[0]!;
    const rows = [...c.batches[0]!, { id: 7n, name: "x", part: "b" }, { id: 8n, name: "y", part: "a" }];
    const ours = join(dir, `ours-split-${n}`);
    const theirs = join(dir, `theirs-split-${n++}`);
    await oracle.call("merge_create", {
      uris: [ours, theirs],
      data: await ipcFile(c.initial),
      partition_by: ["part"],
      appends: 3,
    });
    async function* oneRowBatches(list: Row[]) {
      for (const row of list) yield batchOf([row]);
    }
    const snapshot = await Snapshot.open(new LocalFileStore(ours));
    const dup = await upsert(snapshot, oneRowBatches([...rows, { id: 7n, name: "again", part: "b" }]), {
      primaryKeys: ["id"],
      partitionKey: "part",
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(dup?.message).toMatch(/1 duplicate primary-key row in partition part=b/);
    expect((await Snapshot.open(new LocalFileStore(ours))).version).toBe(snapshot.version);
    const stats = await upsert(snapshot, oneRowBatches(rows), { primaryKeys: ["id"], partitionKey: "part" });
    expect(stats.sourceRows).toBe(rows.length);
    await oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ipcFile(rows),
      keys: ["id"],
      partition_key: "part",
    });
    const a = await oracle.call<ReadBack>("merge_read", { uri: ours });
    const b = await oracle.call<ReadBack>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
  });

  it("knobs (forced multipart puts, zstd, 1 KiB ranged GETs, no read-ahead, tiny row groups) keep the content", async () => {
    const c = cases[0]!;
    const ours = join(dir, `ours-knobs-${n}`);
    const theirs = join(dir, `theirs-knobs-${n++}`);
    await oracle.call("merge_create", {
      uris: [ours, theirs],
      data: await ipcFile(c.initial),
      partition_by: ["part"],
      appends: 3,
    });
    const rows = c.batches[0]!;
    const stats = await upsert(await Snapshot.open(new LocalFileStore(ours)), batchOf(rows), {
      primaryKeys: ["id"],
      partitionKey: "part",
      codec: "zstd",
      multipartThresholdBytes: 1,
      multipartPartSizeBytes: 5 * 1024 * 1024,
      multipartConcurrency: 2,
      rangeGetPartSizeBytes: 1024,
      rangeGetConcurrency: 1,
      readAheadRowGroups: 0,
      maxRowGroupRows: 2,
      readBatchSize: 1,
    });
    expect(stats.filesRemoved).toBeGreaterThan(0);
    await oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ipcFile(rows),
      keys: ["id"],
      partition_key: "part",
    });
    const a = await oracle.call<ReadBack>("merge_read", { uri: ours });
    const b = await oracle.call<ReadBack>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.files.filter((f) => f.endsWith(".zstd.parquet")).length).toBe(stats.filesAdded);
  });

  const strategies: PruneStrategy[] = ["probe", "stats", "none"];
  it.each(cases.filter((c) => c.batches.length > 0 && c.name !== "empty batch"))(
    "every prune strategy gives the same content: $name",
    async (c) => {
      const results = [];
      for (const strategy of strategies) results.push(await runBoth(c, strategy));
      for (const r of results) expect(r.a.rows).toEqual(results[0]!.b.rows);
      // "none" rewrites every candidate file of the touched partitions; "probe" never more than "stats".
      const removed = results.map((r) => r.stats.reduce((n, s) => n + s.filesRemoved, 0));
      expect(removed[0]).toBeLessThanOrEqual(removed[1]!);
      expect(removed[1]).toBeLessThanOrEqual(removed[2]!);
      expect(removed[2]).toBe(results[2]!.stats.reduce((n, s) => n + s.filesCandidates, 0));
    },
  );
});
