/**
 * `missingColumns` — what a replaced row gets in the columns a partial source lacks:
 * - `"keep"` equals delta-rs 1.6.6 MERGE (`when_matched_update_all` + `when_not_matched_insert_all`) on the
 *   same partial source: a fast-check property over random tables (partitioned or not; long and composite
 *   keys; string, integer, boolean, date, timestamp and decimal columns, all nullable, NULLs included; keys
 *   that update, insert, repeat across partitions, and tables that already hold a key twice), random
 *   subsets of lacking columns, prune strategies and read batch sizes, with a fixed seed; plus a source whose
 *   batches lack different columns, and a NOT NULL column kept through the relax;
 * - `"null"` (the default) is unchanged: it equals delta-rs MERGE of the source padded with NULL columns;
 * - `"error"` refuses with `schema_mismatch` naming the columns, the table exactly as it was; key columns
 *   and the partition column are never reported as missing.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { type Data, Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MissingColumns, type PruneStrategy, type UpsertOptions, upsert } from "../src/index.js";
import { batchOf, column, type KeyTypeName, type KeyValue } from "./arrow-columns.js";
import { oracleWorkspace } from "./oracle-workspace.js";

const RUNS = Number(process.env.DELTALITE_MISSING_COLUMNS_RUNS ?? 40);
const SEED = Number(process.env.DELTALITE_MISSING_COLUMNS_SEED ?? 20261216);

/** The non-key columns a source may lack, with their types. */
const VALUE_COLUMNS = {
  name: "string",
  n: "integer",
  flag: "boolean",
  day: "date",
  ts: "timestamp",
  amount: "decimal(10,2)",
} as const satisfies Record<string, KeyTypeName>;
type ValueColumn = keyof typeof VALUE_COLUMNS;
const VALUE_NAMES = Object.keys(VALUE_COLUMNS) as ValueColumn[];

type Row = { id: number | null; k2: string | null; part: string } & Record<ValueColumn, KeyValue>;

/** A batch of `rows` with the key columns, `present` value columns and the partition column. */
function rowsBatch(rows: readonly Row[], present: readonly ValueColumn[] = VALUE_NAMES): RecordBatch {
  return batchOf([
    [
      "id",
      column(
        "long",
        rows.map((r) => (r.id === null ? null : BigInt(r.id))),
      ),
    ],
    [
      "k2",
      column(
        "string",
        rows.map((r) => r.k2),
      ),
    ],
    ...present.map((c): [string, Data] => [
      c,
      column(
        VALUE_COLUMNS[c],
        rows.map((r) => r[c]),
      ),
    ]),
    [
      "part",
      column(
        "string",
        rows.map((r) => r.part),
      ),
    ],
  ]);
}

/** `batch` without the named columns. */
function withoutColumns(batch: RecordBatch, names: readonly string[]): RecordBatch {
  const kept = batch.schema.fields.flatMap((f, i): [string, Data][] =>
    names.includes(f.name) ? [] : [[f.name, batch.data.children[i] as Data]],
  );
  return batchOf(kept);
}

const rowArb = (parts: number): fc.Arbitrary<Row> =>
  fc.record({
    id: fc.option(fc.integer({ min: 0, max: 12 }), { freq: 10 }),
    k2: fc.option(fc.constantFrom("x", "y"), { freq: 10 }),
    part: fc.constantFrom(...["a", "b", "c/d"].slice(0, parts)),
    name: fc.option(fc.string({ maxLength: 5 }), { freq: 4 }),
    n: fc.option(fc.integer({ min: -1000, max: 1000 }), { freq: 4 }),
    flag: fc.option(fc.boolean(), { freq: 4 }),
    day: fc.option(fc.integer({ min: 0, max: 30000 }), { freq: 4 }),
    ts: fc.option(fc.bigInt({ min: 0n, max: 2n ** 52n }), { freq: 4 }),
    amount: fc.option(fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }), { freq: 4 }),
  });

interface Scenario {
  composite: boolean;
  partitioned: boolean;
  appends: number;
  initial: Row[];
  steps: { rows: Row[]; lacking: ValueColumn[] }[];
  strategy: PruneStrategy;
  readBatchSize: number;
}

const keyColumns = (s: Pick<Scenario, "composite">) => (s.composite ? ["id", "k2"] : ["id"]);

/** Drops rows whose (partition, key) repeats an earlier row's (a source must not repeat a key). */
function dedupe(rows: Row[], s: Pick<Scenario, "composite" | "partitioned">): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = s.composite ? [r.id, r.k2] : [r.id];
    if (key.some((k) => k === null)) return true; // NULL keys never match, never collide
    const id = JSON.stringify([s.partitioned ? r.part : "", ...key]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    composite: fc.boolean(),
    partitioned: fc.boolean(),
    parts: fc.integer({ min: 1, max: 3 }),
    appends: fc.integer({ min: 1, max: 3 }),
    // Appends may repeat a key: a MERGE then updates every matching row, each keeping its own values.
    tableRepeatsKeys: fc.boolean(),
    strategy: fc.constantFrom<PruneStrategy>("probe", "stats", "none"),
    readBatchSize: fc.constantFrom(1, 3, 8192),
  })
  .chain((c) =>
    fc.record({
      composite: fc.constant(c.composite),
      partitioned: fc.constant(c.partitioned),
      appends: fc.constant(c.appends),
      strategy: fc.constant(c.strategy),
      readBatchSize: fc.constant(c.readBatchSize),
      initial: fc
        .array(rowArb(c.parts), { minLength: 1, maxLength: 30 })
        .map((rows) => (c.tableRepeatsKeys ? rows : dedupe(rows, c))),
      steps: fc.array(
        fc.record({
          rows: fc.array(rowArb(c.parts), { maxLength: 15 }).map((rows) => dedupe(rows, c)),
          lacking: fc.subarray(VALUE_NAMES, { minLength: 1 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  );

interface ReadBack {
  rows: unknown[];
  schema: unknown;
  version: number;
  files: string[];
}

interface Metrics {
  num_target_rows_updated: number;
  num_target_rows_inserted: number;
}

async function filesOnDisk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((e) => e.endsWith(".parquet")).sort();
}

describe("missingColumns", () => {
  const ws = oracleWorkspace("deltalite-upsert-missing-");
  let n = 0;

  /** Two byte-equal tables from `initial` (delta-rs writes them): ours and delta-rs's copy. */
  async function twoTables(initial: RecordBatch, partitioned: boolean, appends = 1) {
    const ours = join(ws.dir, `ours-${n}`);
    const theirs = join(ws.dir, `theirs-${n++}`);
    await ws.oracle.call("merge_create", {
      uris: [ours, theirs],
      data: await ws.ipc(initial),
      partition_by: partitioned ? ["part"] : null,
      appends,
    });
    return { ours, theirs, store: new LocalFileStore(ours) };
  }

  const mergeDeltaRs = async (uri: string, source: RecordBatch, keys: string[], partitioned: boolean) =>
    (
      await ws.oracle.call<{ metrics: Metrics }>("merge_delta_rs", {
        uri,
        source: await ws.ipc(source),
        keys,
        partition_key: partitioned ? "part" : null,
      })
    ).metrics;

  const read = (uri: string) => ws.oracle.call<ReadBack>("merge_read", { uri });

  it(
    `"keep" = delta-rs MERGE on a partial source: ${RUNS} random tables and upsert sequences (seed ${SEED})`,
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async (s) => {
          const { ours, theirs, store } = await twoTables(rowsBatch(s.initial), s.partitioned, s.appends);
          const keys = keyColumns(s);
          for (const step of s.steps) {
            const source = rowsBatch(
              step.rows,
              VALUE_NAMES.filter((c) => !step.lacking.includes(c)),
            );
            const stats = await upsert(await Snapshot.open(store), source, {
              primaryKeys: keys,
              ...(s.partitioned ? { partitionKey: "part" } : {}),
              missingColumns: "keep",
              pruneStrategy: s.strategy,
              readBatchSize: s.readBatchSize,
            });
            const metrics = await mergeDeltaRs(theirs, source, keys, s.partitioned);
            expect(stats.rowsUpdated).toBe(metrics.num_target_rows_updated);
            expect(stats.rowsInserted).toBe(metrics.num_target_rows_inserted);
          }
          const [a, b] = [await read(ours), await read(theirs)];
          expect(a.rows).toEqual(b.rows);
          expect(a.schema).toEqual(b.schema);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    },
    Math.max(120_000, RUNS * 4_000),
  );

  /** A fixed table: ids 0–9 over parts a/b, every value column set; id 3 held twice in part b. */
  const fixedRows = (): Row[] => [
    ...Array.from({ length: 10 }, (_, i) => ({
      id: i,
      k2: "x",
      part: ["a", "b"][i % 2]!,
      name: `old-${i}`,
      n: i * 10,
      flag: i % 3 === 0,
      day: 19000 + i,
      ts: BigInt(i) * 1_000_000n,
      amount: BigInt(i) * 100n,
    })),
    { id: 3, k2: "x", part: "b", name: "old-3-twin", n: 333, flag: null, day: 1, ts: 2n, amount: 3n },
  ];
  /** Updates 1 (part b), 3 (held twice in b), 4 moved to part b (a second row), inserts 50 (part a). */
  const PARTIAL_ROWS: Row[] = [
    { id: 1, k2: "x", part: "b", name: "new-1", n: -1, flag: true, day: 5, ts: 5n, amount: 5n },
    { id: 3, k2: "x", part: "b", name: "new-3", n: -3, flag: false, day: 6, ts: 6n, amount: 6n },
    { id: 4, k2: "x", part: "b", name: "new-4", n: -4, flag: true, day: 7, ts: 7n, amount: 7n },
    { id: 50, k2: "x", part: "a", name: "new-50", n: -50, flag: null, day: 8, ts: 8n, amount: 8n },
  ];
  const partialSource = (present: ValueColumn[]) => rowsBatch(PARTIAL_ROWS, present);
  /** The rows of the table as delta-rs reads them whose (part, id) is given (int64 reads back as a string). */
  const rowsAt = (rows: unknown[], part: string, id: number) =>
    (rows as Record<string, unknown>[]).filter((r) => r.part === part && r.id === String(id));

  it('"keep" on the fixed table: replaced rows keep their own values, a moved key and inserts get NULL', async () => {
    const { ours, theirs, store } = await twoTables(rowsBatch(fixedRows()), true, 2);
    const source = partialSource(["name", "flag"]);
    const stats = await upsert(await Snapshot.open(store), source, {
      primaryKeys: ["id"],
      partitionKey: "part",
      missingColumns: "keep",
    });
    expect(stats).toMatchObject({ rowsUpdated: 3, rowsInserted: 2, sourceRowsMatched: 2 });
    await mergeDeltaRs(theirs, source, ["id"], true);
    const a = await read(ours);
    expect(a.rows).toEqual((await read(theirs)).rows);
    const byKey = (part: string, id: number) => rowsAt(a.rows, part, id);
    expect(byKey("b", 1)).toMatchObject([{ name: "new-1", flag: true, n: 10 }]);
    // Both rows of id 3 are updated, each keeping its own n.
    expect(
      byKey("b", 3)
        .map((r) => [r.name, r.n])
        .sort(),
    ).toEqual([
      ["new-3", 30],
      ["new-3", 333],
    ]);
    // Identity is (part, id): id 4 arriving in part b is a new row there; its part-a row stays.
    expect(byKey("a", 4)).toMatchObject([{ name: "old-4", n: 40 }]);
    expect(byKey("b", 4)).toMatchObject([{ name: "new-4", n: null, day: null }]);
    expect(byKey("a", 50)).toMatchObject([{ name: "new-50", n: null }]);
  });

  it('"keep" with batches that lack different columns = delta-rs MERGE of each batch in turn', async () => {
    const { ours, theirs, store } = await twoTables(rowsBatch(fixedRows()), false, 3);
    const first = rowsBatch(
      [
        { id: 0, k2: "x", part: "a", name: "b1-0", n: 1, flag: true, day: 1, ts: 1n, amount: 1n },
        { id: 7, k2: "x", part: "b", name: "b1-7", n: 1, flag: true, day: 1, ts: 1n, amount: 1n },
      ],
      ["name", "flag"],
    );
    const second = rowsBatch(
      [
        { id: 3, k2: "x", part: "b", name: "b2-3", n: 2, flag: false, day: 2, ts: 2n, amount: 2n },
        { id: 70, k2: "x", part: "a", name: "b2-70", n: 2, flag: false, day: 2, ts: 2n, amount: 2n },
      ],
      ["n", "day", "ts"],
    );
    await upsert(await Snapshot.open(store), [first, second], {
      primaryKeys: ["id"],
      missingColumns: "keep",
    });
    for (const batch of [first, second]) await mergeDeltaRs(theirs, batch, ["id"], false);
    expect((await read(ours)).rows).toEqual((await read(theirs)).rows);
  });

  it('"keep" keeps a NOT NULL column\'s values in replaced rows (the column is relaxed for inserted rows)', async () => {
    const fields = rowsBatch(fixedRows()).schema.fields.map((f) =>
      f.name === "n" ? new Field("n", f.type, false) : f,
    );
    const full = rowsBatch(fixedRows());
    const initial = new RecordBatch(
      new Schema(fields),
      makeData({
        type: new Struct(fields),
        length: full.numRows,
        nullCount: 0,
        children: full.data.children,
      }),
    );
    const { ours, store } = await twoTables(initial, true);
    const stats = await upsert(await Snapshot.open(store), partialSource(["name"]), {
      primaryKeys: ["id"],
      partitionKey: "part",
      missingColumns: "keep",
    });
    expect(stats.columnsRelaxed).toBe(1);
    const { rows } = await read(ours);
    const n = (part: string, id: number) => rowsAt(rows, part, id).map((r) => r.n);
    expect(n("b", 1)).toEqual([10]);
    expect(n("b", 3).sort()).toEqual([30, 333]);
    expect(n("a", 50)).toEqual([null]);
  });

  it.each<[string, MissingColumns | undefined]>([
    ["default", undefined],
    ['"null"', "null"],
  ])(
    "%s: replaced rows get NULL = delta-rs MERGE of the source padded with NULL columns",
    async (_, mode) => {
      const { ours, theirs, store } = await twoTables(rowsBatch(fixedRows()), true, 2);
      const present: ValueColumn[] = ["name", "flag"];
      const stats = await upsert(await Snapshot.open(store), partialSource(present), {
        primaryKeys: ["id"],
        partitionKey: "part",
        ...(mode ? { missingColumns: mode } : {}),
      });
      expect(stats).toMatchObject({ rowsUpdated: 3, rowsInserted: 2 });
      const nulls = Object.fromEntries(VALUE_NAMES.map((c) => [c, null]));
      const padded = rowsBatch(PARTIAL_ROWS.map((r) => ({ ...r, ...nulls, name: r.name, flag: r.flag })));
      await mergeDeltaRs(theirs, padded, ["id"], true);
      const a = await read(ours);
      expect(a.rows).toEqual((await read(theirs)).rows);
      expect(rowsAt(a.rows, "b", 1)).toMatchObject([
        { name: "new-1", flag: true, n: null, day: null, ts: null, amount: null },
      ]);
    },
  );

  describe('"error"', () => {
    async function fixedTable() {
      const { ours, store } = await twoTables(rowsBatch(fixedRows()), true, 2);
      const before = await Snapshot.open(store);
      const disk = await filesOnDisk(ours);
      const unchanged = async () => {
        const after = await Snapshot.open(store);
        expect(after.version).toBe(before.version);
        expect(after.schemaJson).toBe(before.schemaJson);
        expect(after.files.map((f) => f.path).sort()).toEqual(before.files.map((f) => f.path).sort());
        expect(await filesOnDisk(ours)).toEqual(disk);
      };
      return { before, unchanged, store };
    }
    const options: UpsertOptions = { primaryKeys: ["id"], partitionKey: "part", missingColumns: "error" };
    const failure = (run: Promise<unknown>) =>
      run.then(
        () => {
          throw new Error("expected the upsert to fail");
        },
        (e: unknown) => {
          expect(isDeltaLiteError(e)).toBe(true);
          return e as Error & { kind: string };
        },
      );

    it("refuses a source that lacks columns with schema_mismatch naming them; the table is unchanged", async () => {
      const { before, unchanged } = await fixedTable();
      const error = await failure(upsert(before, partialSource(["name", "day", "ts", "amount"]), options));
      expect(error.kind).toBe("schema_mismatch");
      expect(error.name).toBe("DeltaLiteSchemaMismatchError");
      expect(error.message).toContain(before.table);
      expect(error.message).toMatch(/lacks the table columns n, flag \(missingColumns "error"\)/);
      await unchanged();
    });

    it("judges every batch, an empty one and a later one too", async () => {
      const { before, unchanged } = await fixedTable();
      const full = partialSource(VALUE_NAMES);
      const error = await failure(
        upsert(before, [full, partialSource(VALUE_NAMES.slice(1)).slice(0, 0)], options),
      );
      expect(error.message).toMatch(/lacks the table column name \(/);
      await unchanged();
    });

    it("a source with every column upserts", async () => {
      const { before, store } = await fixedTable();
      const stats = await upsert(before, partialSource(VALUE_NAMES), options);
      expect(stats.version).toBe(before.version + 1);
      expect((await Snapshot.open(store)).version).toBe(before.version + 1);
    });

    it("key columns and the partition column are never reported as missing (they have their own errors)", async () => {
      const { before, unchanged } = await fixedTable();
      // Every value column but no k2, with k2 a key: the key error, not a missing-columns one.
      const key = await failure(
        upsert(before, withoutColumns(partialSource(VALUE_NAMES), ["k2"]), {
          ...options,
          primaryKeys: ["id", "k2"],
        }),
      );
      expect(key.kind).toBe("schema_mismatch");
      expect(key.message).toMatch(/lacks the primary-key column k2$/);
      // No partition column: every row has a NULL partition value (refused as such).
      const noPart = withoutColumns(partialSource(VALUE_NAMES), ["part"]);
      const part = await failure(upsert(before, noPart, options));
      expect(part.message).toMatch(/NULL value in partition column part/);
      expect(part.message).not.toMatch(/missingColumns/);
      await unchanged();
    });
  });
});
