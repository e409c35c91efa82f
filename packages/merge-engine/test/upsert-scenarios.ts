/**
 * Random upsert sequences with a delete flag, shared by the delete parity and change-data suites: rows of
 * (id, k2, name, v, part) plus the boolean `_deleted`, long / string / composite keys, partitioned or not,
 * NULL keys, keys unique per partition (the upsert refuses duplicates), a random prune strategy and read
 * batch size; `tableOf` builds the Arrow table (with or without the flag column).
 */
import { Bool, Field, Float64, Int64, Schema, Table, Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import type { PruneStrategy } from "../src/index.js";

export const FLAG = "_deleted";

export interface Row {
  id: number | null;
  k2: string | null;
  name: string;
  part: string;
  del: boolean | null;
}

export interface Scenario {
  keyShape: "long" | "string" | "composite";
  partitioned: boolean;
  initial: Row[];
  appends: number;
  batches: Row[][];
  strategy: PruneStrategy;
  readBatchSize: number;
}

const rowArb = (parts: readonly string[]) =>
  fc.record({
    id: fc.option(fc.integer({ min: 0, max: 20 }), { freq: 8 }),
    k2: fc.option(fc.constantFrom("x", "y", "zé"), { freq: 8 }),
    name: fc.string({ maxLength: 4 }),
    part: fc.constantFrom(...parts),
    del: fc.option(fc.boolean(), { freq: 4 }),
  });

export const keysOf = (s: Pick<Scenario, "keyShape">) =>
  s.keyShape === "long" ? ["id"] : s.keyShape === "string" ? ["k2"] : ["id", "k2"];

/** Drops rows whose (partition, key) repeats an earlier row's: duplicates are refused (delete rows too). */
function dedupe(rows: Row[], s: Pick<Scenario, "keyShape" | "partitioned">): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = keysOf(s).map((k) => r[k as "id" | "k2"]);
    if (key.some((k) => k === null)) return true;
    const id = JSON.stringify([s.partitioned ? r.part : "", ...key]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Scenarios over the partition values `parts` (a random prefix of them is used). */
export const scenarioArb = (parts: readonly string[]): fc.Arbitrary<Scenario> =>
  fc
    .record({
      keyShape: fc.constantFrom("long" as const, "string" as const, "composite" as const),
      partitioned: fc.boolean(),
      parts: fc.integer({ min: 1, max: parts.length }),
      appends: fc.integer({ min: 1, max: 3 }),
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
        initial: fc
          .array(rowArb(parts.slice(0, c.parts)), { minLength: 1, maxLength: 30 })
          .map((rows) => dedupe(rows, c)),
        batches: fc.array(
          fc
            .array(rowArb(parts.slice(0, c.parts)), { minLength: 1, maxLength: 15 })
            .map((rows) => dedupe(rows, c)),
          { minLength: 2, maxLength: 5 },
        ),
      }),
    );

const TABLE_FIELDS = [
  new Field("id", new Int64(), true),
  new Field("k2", new Utf8(), true),
  new Field("name", new Utf8(), true),
  new Field("v", new Float64(), true),
  new Field("part", new Utf8(), true),
];

export function tableOf(rows: readonly Row[], withFlag: boolean): Table {
  const columns: Record<string, unknown> = {
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
  };
  const fields = [...TABLE_FIELDS];
  if (withFlag) {
    columns[FLAG] = vectorFromArray(
      rows.map((r) => r.del),
      new Bool(),
    );
    fields.push(new Field(FLAG, new Bool(), true));
  }
  return new Table(new Schema(fields), columns as never);
}
