/**
 * Property: random sequences of 3–8 batches upserted into a random starting table give exactly what
 * delta-rs 1.6.6 MERGE gives for the same batches (sorted canonical rows and Delta schema), for random key
 * shapes (long, string, composite long+string), partitioned or not (hostile partition values included),
 * random batch sizes (empty batches included), NULL keys, keys that move partition, and a random prune
 * strategy and read batch size. Runs: DELTALITE_UPSERT_PROPERTY_RUNS (default 200, the minimum; `pnpm
 * upsert-property --sequences 2000` is the long mode).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Float64, Int64, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PruneStrategy, upsert } from "../src/index.js";

const RUNS = Number(process.env.DELTALITE_UPSERT_PROPERTY_RUNS ?? 200);
const PARTS = ["a", "b", 'quote"dq', "a/b", "sp ace", "üñîçødé", ".."];

interface Row {
  id: number | null;
  k2: string | null;
  name: string;
  part: string;
}

interface Scenario {
  keyShape: "long" | "string" | "composite";
  partitioned: boolean;
  initial: Row[];
  appends: number;
  batches: Row[][];
  strategy: PruneStrategy;
  readBatchSize: number;
}

const rowArb = (parts: number) =>
  fc.record({
    id: fc.option(fc.integer({ min: 0, max: 30 }), { freq: 8 }),
    k2: fc.option(fc.constantFrom("x", "y", "z\u00e9", "long-".repeat(8)), { freq: 8 }),
    name: fc.string({ maxLength: 6 }),
    part: fc.constantFrom(...PARTS.slice(0, parts)),
  });

/** Drops rows whose (partition, key) repeats an earlier row's (the seed rejects duplicates; MERGE too). */
function dedupe(rows: Row[], s: Pick<Scenario, "keyShape" | "partitioned">): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = s.keyShape === "long" ? [r.id] : s.keyShape === "string" ? [r.k2] : [r.id, r.k2];
    if (key.some((k) => k === null)) return true; // NULL keys never collide
    const id = JSON.stringify([s.partitioned ? r.part : "", ...key]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    keyShape: fc.constantFrom("long" as const, "string" as const, "composite" as const),
    partitioned: fc.boolean(),
    parts: fc.integer({ min: 1, max: PARTS.length }),
    appends: fc.integer({ min: 1, max: 4 }),
    strategy: fc.constantFrom("probe" as const, "stats" as const, "none" as const),
    readBatchSize: fc.constantFrom(1, 3, 8192),
  })
  .chain((c) =>
    fc.record({
      keyShape: fc.constant(c.keyShape),
      partitioned: fc.constant(c.partitioned),
      appends: fc.constant(c.appends),
      strategy: fc.constant(c.strategy),
      readBatchSize: fc.constant(c.readBatchSize),
      initial: fc.array(rowArb(c.parts), { minLength: 1, maxLength: 40 }).map((rows) => dedupe(rows, c)),
      batches: fc.array(
        fc.array(rowArb(c.parts), { maxLength: 20 }).map((rows) => dedupe(rows, c)),
        { minLength: 3, maxLength: 8 },
      ),
    }),
  );

const keysOf = (s: Scenario) =>
  s.keyShape === "long" ? ["id"] : s.keyShape === "string" ? ["k2"] : ["id", "k2"];

const SCHEMA = new Schema([
  new Field("id", new Int64(), true),
  new Field("k2", new Utf8(), true),
  new Field("name", new Utf8(), true),
  new Field("v", new Float64(), true),
  new Field("part", new Utf8(), true),
]);

function tableOf(rows: readonly Row[]): Table {
  return new Table(SCHEMA, {
    id: vectorFromArray(
      rows.map((r) => (r.id === null ? null : BigInt(r.id))),
      new Int64(),
    ),
    k2: vectorFromArray(
      rows.map((r) => r.k2),
      new Utf8(),
    ),
    name: vectorFromArray(
      rows.map((r) => r.name),
      new Utf8(),
    ),
    v: vectorFromArray(
      rows.map((_, i) => i / 3),
      new Float64(),
    ),
    part: vectorFromArray(
      rows.map((r) => r.part),
      new Utf8(),
    ),
  } as never);
}

describe("upsert = delta-rs MERGE on random batch sequences", () => {
  let oracle: Oracle;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-prop-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function ipc(rows: readonly Row[]): Promise<string> {
    const path = join(dir, `data-${n++}.arrow`);
    await writeFile(path, tableToIPC(tableOf(rows), "file"));
    return path;
  }

  it(
    `${RUNS} random sequences`,
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async (s) => {
          const ours = join(dir, `ours-${n}`);
          const theirs = join(dir, `theirs-${n++}`);
          await oracle.call("merge_create", {
            uris: [ours, theirs],
            data: await ipc(s.initial),
            partition_by: s.partitioned ? ["part"] : null,
            appends: s.appends,
          });
          const keys = keysOf(s);
          const store = new LocalFileStore(ours);
          for (const rows of s.batches) {
            const stats = await upsert(await Snapshot.open(store), tableOf(rows), {
              primaryKeys: keys,
              ...(s.partitioned ? { partitionKey: "part" } : {}),
              pruneStrategy: s.strategy,
              readBatchSize: s.readBatchSize,
            });
            expect(stats.rowsInserted + stats.rowsUpdated).toBe(rows.length);
            expect(stats.filesCarriedOver + stats.filesRemoved).toBe(stats.filesCandidates);
            await oracle.call("merge_delta_rs", {
              uri: theirs,
              source: await ipc(rows),
              keys,
              partition_key: s.partitioned ? "part" : null,
            });
          }
          const a = await oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: ours });
          const b = await oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: theirs });
          expect(a.rows).toEqual(b.rows);
          expect(a.schema).toEqual(b.schema);
          await rm(ours, { recursive: true, force: true });
          await rm(theirs, { recursive: true, force: true });
        }),
        { numRuns: RUNS, seed: Number(process.env.DELTALITE_UPSERT_PROPERTY_SEED ?? 20261130) },
      );
    },
    Math.max(120_000, RUNS * 6_000),
  );
});
