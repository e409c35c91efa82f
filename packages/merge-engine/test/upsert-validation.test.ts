/**
 * Upsert validation runs before anything is written: a source that lacks a primary-key column (the
 * partition column counts only when primaryKeys lists it) is `schema_mismatch` naming the table and the
 * missing columns; every invalid numeric knob, codec, prune strategy and missingColumns mode is kind
 * `invalid_argument` naming the option and the value (an invalid DELTALITE_PROBE_CACHE_BYTES, found when the
 * process-wide cache is first sized, stays `generic`: probe-cache owns it). Each failure is checked on a source that would need the nullability-relax commit (a NULL in a
 * NOT NULL column): the log's version, live files, schema and the data files on disk stay as they were. Valid
 * non-default knobs, and the edge values today's consumers accept, still upsert.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { ProbeCache } from "@deltalite/probe-cache";
import {
  type DataType,
  Field,
  Int32,
  Int64,
  type RecordBatch,
  Schema,
  Table,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { describe, expect, it } from "vitest";
import { type UpsertOptions, upsert } from "../src/index.js";
import { oracleWorkspace } from "./oracle-workspace.js";

interface Column {
  type: DataType;
  nullable: boolean;
  values: unknown[];
}

function tableOf(columns: Record<string, Column>): Table {
  const fields = Object.entries(columns).map(([name, c]) => new Field(name, c.type, c.nullable));
  const vectors = Object.fromEntries(
    Object.entries(columns).map(([name, c]) => [name, vectorFromArray(c.values, c.type)]),
  );
  return new Table(new Schema(fields), vectors as never);
}

const partOf = (id: number) => ["a", "b"][id % 2]!;

/** The table: `id` and `name` NOT NULL, `seq` and `part` nullable; 12 rows in 2 appends (4 files). */
const initial = tableOf({
  id: { type: new Int64(), nullable: false, values: Array.from({ length: 12 }, (_, i) => BigInt(i)) },
  seq: { type: new Int32(), nullable: true, values: Array.from({ length: 12 }, (_, i) => i % 3) },
  name: { type: new Utf8(), nullable: false, values: Array.from({ length: 12 }, (_, i) => `old-${i}`) },
  part: { type: new Utf8(), nullable: true, values: Array.from({ length: 12 }, (_, i) => partOf(i)) },
});

/** Source columns; a NULL name means the upsert would first relax `name` by a metadata commit. */
const sourceColumns = {
  id: (ids: number[]): Column => ({ type: new Int64(), nullable: true, values: ids.map((i) => BigInt(i)) }),
  seq: (ids: number[]): Column => ({ type: new Int32(), nullable: true, values: ids.map((i) => i % 3) }),
  name: (ids: number[]): Column => ({
    type: new Utf8(),
    nullable: true,
    values: ids.map((i, k) => (k === 0 ? null : `new-${i}`)),
  }),
  part: (ids: number[]): Column => ({ type: new Utf8(), nullable: true, values: ids.map(partOf) }),
};
type SourceColumn = keyof typeof sourceColumns;

/** A source of `ids` with only the named columns; its first row has a NULL name (a relax would be needed). */
function source(ids: number[], columns: SourceColumn[] = ["id", "seq", "name", "part"]): Table {
  return tableOf(Object.fromEntries(columns.map((c) => [c, sourceColumns[c](ids)])));
}

/** Ids 1 and 2 exist (so the probe and the rewrite read target files), 100 is new. */
const RELAXING_IDS = [1, 2, 100];

async function filesOnDisk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((e) => e.endsWith(".parquet")).sort();
}

async function failure(run: Promise<unknown>): Promise<Error & { kind?: string }> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isDeltaLiteError(error), `expected a DeltaLiteError, got ${String(error)}`).toBe(true);
  return error as Error & { kind?: string };
}

describe("upsert validation before any write", () => {
  const ws = oracleWorkspace("deltalite-upsert-validation-");
  /** Numbers the table folders of this suite. */
  let n = 0;

  /** A fresh table; `unchanged()` asserts the log and the data files are as they were now. */
  async function freshTable(partitioned = true) {
    const uri = join(ws.dir, `t-${n++}`);
    await ws.oracle.call("merge_create", {
      uris: [uri],
      data: await ws.ipc(initial),
      partition_by: partitioned ? ["part"] : null,
      appends: 2,
    });
    const store = new LocalFileStore(uri);
    const before = await Snapshot.open(store);
    expect(before.schema.fields.find((f) => f.name === "name")!.nullable).toBe(false);
    const diskBefore = await filesOnDisk(uri);
    const unchanged = async () => {
      const after = await Snapshot.open(store);
      expect(after.version).toBe(before.version);
      expect(after.schemaJson).toBe(before.schemaJson);
      expect(after.files.map((f) => f.path).sort()).toEqual(before.files.map((f) => f.path).sort());
      expect(await filesOnDisk(uri)).toEqual(diskBefore);
    };
    return { uri, store, before, unchanged };
  }

  describe("a source without a primary-key column → schema_mismatch", () => {
    it.each<{
      name: string;
      data: () => Table | RecordBatch[];
      options: UpsertOptions;
      missing: string[];
    }>([
      {
        name: "the only key column missing",
        data: () => source(RELAXING_IDS, ["seq", "name", "part"]),
        options: { primaryKeys: ["id"], partitionKey: "part" },
        missing: ["id"],
      },
      {
        name: "a nullable key column of a composite key missing",
        data: () => source(RELAXING_IDS, ["id", "name", "part"]),
        options: { primaryKeys: ["id", "seq"], partitionKey: "part" },
        missing: ["seq"],
      },
      {
        name: "every key column of a composite key missing",
        data: () => source(RELAXING_IDS, ["name", "part"]),
        options: { primaryKeys: ["id", "seq"], partitionKey: "part" },
        missing: ["id", "seq"],
      },
      {
        name: "the partition column listed in primaryKeys missing",
        data: () => source(RELAXING_IDS, ["id", "seq", "name"]),
        options: { primaryKeys: ["part", "id"], partitionKey: "part" },
        missing: ["part"],
      },
      {
        name: "a zero-row batch without the key column",
        data: () => source([], ["seq", "name", "part"]).batches,
        options: { primaryKeys: ["id"], partitionKey: "part" },
        missing: ["id"],
      },
      {
        name: "a later batch without the key column",
        data: () => [
          ...source([1], ["id", "name", "part"]).batches,
          ...source([3], ["name", "part"]).batches,
        ],
        options: { primaryKeys: ["id"], partitionKey: "part" },
        missing: ["id"],
      },
    ])("$name → names the table and $missing, nothing written", async (c) => {
      const { before, unchanged } = await freshTable();
      const error = await failure(upsert(before, c.data(), c.options));
      expect(error.kind).toBe("schema_mismatch");
      expect(error.name).toBe("DeltaLiteSchemaMismatchError");
      expect(error.message).toContain(before.table);
      for (const column of c.missing) expect(error.message).toMatch(new RegExp(`\\b${column}\\b`));
      expect(error.message).toMatch(/primary-key/);
      await unchanged();
    });

    it("a missing partition column that is not a key is not a key error (the NULL partition value is)", async () => {
      const { before, unchanged } = await freshTable();
      const error = await failure(
        upsert(before, source(RELAXING_IDS, ["id", "seq", "name"]), {
          primaryKeys: ["id"],
          partitionKey: "part",
        }),
      );
      expect(error.kind).toBe("generic");
      expect(error.message).toMatch(/NULL value in partition column part/);
      expect(error.message).not.toMatch(/primary-key/);
      await unchanged();
    });

    it("an empty source (no batches) still commits", async () => {
      const { store, before } = await freshTable();
      const stats = await upsert(before, [], { primaryKeys: ["id"], partitionKey: "part" });
      expect(stats.version).toBe(before.version + 1);
      expect(stats.sourceRows).toBe(0);
      expect((await Snapshot.open(store)).version).toBe(before.version + 1);
    });
  });

  describe("every option is validated before the relax commit", () => {
    const MIB = 1024 * 1024;
    it.each<[keyof UpsertOptions, unknown]>([
      ["readBatchSize", 0],
      ["readBatchSize", 2.5],
      ["readAheadRowGroups", Number.NaN],
      ["targetFileSize", 0],
      ["targetFileSize", 1.5],
      ["maxRowGroupBytes", 0],
      ["maxRowGroupRows", -1],
      ["multipartThresholdBytes", 0],
      ["multipartPartSizeBytes", 0],
      ["multipartPartSizeBytes", 5 * MIB - 1],
      ["multipartConcurrency", 0],
      ["rangeGetPartSizeBytes", 1.5],
      ["rangeGetPartSizeBytes", Number.NaN],
      ["rangeGetConcurrency", Number.NaN],
      ["probeConcurrency", Number.NaN],
      ["maxParallelPartitions", 0],
      ["maxParallelFiles", 1.5],
      ["maxBufferedBytes", 0],
      ["maxFetchBytes", -1],
      ["maxSourceBytes", Number.NaN],
      ["maxReplans", Number.NaN],
      ["permitWaitTimeoutMs", 0],
      ["timeoutMs", 0],
      ["readBatchSize", "8192"],
      ["codec", "lz4"],
      ["pruneStrategy", "fast"],
      ["missingColumns", "drop"],
      ["partitionKey", ""],
    ])(
      "%s = %s → kind invalid_argument naming the option and the value, table unchanged",
      async (option, value) => {
        const { before, unchanged } = await freshTable();
        const options = { primaryKeys: ["id"], partitionKey: "part", [option]: value } as UpsertOptions;
        const error = await failure(upsert(before, source(RELAXING_IDS), options));
        expect(error.kind).toBe("invalid_argument");
        expect(error.name).toBe("DeltaLiteInvalidArgumentError");
        expect(error.message).toMatch(new RegExp(`\\b${option}\\b`));
        expect(error.message).toContain(`(got ${typeof value === "string" ? JSON.stringify(value) : value})`);
        await unchanged();
      },
    );

    it("names the rule, e.g. `upsert option readBatchSize must be an integer ≥ 1 (got 0)`", async () => {
      const { before } = await freshTable();
      const error = await failure(
        upsert(before, source(RELAXING_IDS), { primaryKeys: ["id"], partitionKey: "part", readBatchSize: 0 }),
      );
      expect(error.message).toBe(
        `${before.table}: upsert option readBatchSize must be an integer ≥ 1 (got 0)`,
      );
      const part = await failure(
        upsert(before, source(RELAXING_IDS), {
          primaryKeys: ["id"],
          partitionKey: "part",
          multipartPartSizeBytes: MIB,
        }),
      );
      expect(part.message).toMatch(/multipartPartSizeBytes must be an integer ≥ 5242880 .*\(got 1048576\)/);
    });

    it("an invalid DELTALITE_PROBE_CACHE_BYTES fails the upsert where the process-wide cache is first sized", async () => {
      const { before, unchanged } = await freshTable();
      const holder = globalThis as Record<symbol, unknown>;
      const key = Symbol.for("deltalite.probeCache");
      const saved = holder[key];
      const savedEnv = process.env.DELTALITE_PROBE_CACHE_BYTES;
      delete holder[key];
      process.env.DELTALITE_PROBE_CACHE_BYTES = "12MB";
      try {
        const error = await failure(
          upsert(before, source(RELAXING_IDS), { primaryKeys: ["id"], partitionKey: "part" }),
        );
        expect(error.kind).toBe("generic");
        expect(error.message).toBe('DELTALITE_PROBE_CACHE_BYTES must be a non-negative integer (got "12MB")');
        await unchanged();
        // An upsert with its own cache does not size the process-wide one.
        const stats = await upsert(before, source(RELAXING_IDS), {
          primaryKeys: ["id"],
          partitionKey: "part",
          probeCache: new ProbeCache(1 << 20),
        });
        expect(stats.version).toBe(before.version + 2);
      } finally {
        if (savedEnv === undefined) delete process.env.DELTALITE_PROBE_CACHE_BYTES;
        else process.env.DELTALITE_PROBE_CACHE_BYTES = savedEnv;
        if (saved === undefined) delete holder[key];
        else holder[key] = saved;
      }
    });

    async function expectRelaxingUpsert(options: Omit<UpsertOptions, "primaryKeys" | "partitionKey">) {
      const { uri, before } = await freshTable();
      const stats = await upsert(before, source(RELAXING_IDS), {
        primaryKeys: ["id"],
        partitionKey: "part",
        ...options,
      });
      expect(stats.columnsRelaxed).toBe(1);
      expect(stats.version).toBe(before.version + 2);
      expect(stats.rowsUpdated).toBe(2);
      expect(stats.rowsInserted).toBe(1);
      const read = await ws.oracle.call<{ rows: Record<string, unknown>[] }>("merge_read", { uri });
      expect(read.rows).toHaveLength(13);
      const names = Object.fromEntries(read.rows.map((r) => [String(r.id), r.name]));
      expect(names).toMatchObject({ "1": null, "2": "new-2", "100": "new-100", "3": "old-3" });
      return stats;
    }

    it("valid non-default values of every knob still upsert", async () => {
      const stats = await expectRelaxingUpsert({
        readBatchSize: 2,
        readAheadRowGroups: 2,
        targetFileSize: 4096,
        maxRowGroupBytes: MIB,
        maxRowGroupRows: 2,
        codec: "zstd",
        multipartThresholdBytes: 1,
        multipartPartSizeBytes: 5 * MIB,
        multipartConcurrency: 2,
        rangeGetPartSizeBytes: 256,
        rangeGetConcurrency: 1,
        probeConcurrency: 1,
        maxParallelPartitions: 1,
        maxParallelFiles: 1,
        maxBufferedBytes: 1,
        maxFetchBytes: 1,
        maxSourceBytes: 1 << 20,
        maxReplans: 1,
        permitWaitTimeoutMs: 60_000,
        timeoutMs: 60_000,
      });
      expect(stats.filesProbed).toBeGreaterThan(0);
      for (const pruneStrategy of ["stats", "none"] as const) {
        await expectRelaxingUpsert({ pruneStrategy, codec: "uncompressed" });
      }
    });

    it("the edge values today's consumers accept stay accepted (0 where they clamp or disable)", async () => {
      await expectRelaxingUpsert({
        readAheadRowGroups: 0,
        rangeGetPartSizeBytes: 0,
        rangeGetConcurrency: 0,
        probeConcurrency: 0,
        maxSourceBytes: 0,
        maxReplans: 0,
        readBatchSize: 1,
        maxRowGroupRows: 1,
        multipartConcurrency: 1,
      });
    });
  });
});
