/**
 * The rewrite's batch match (`matchKeys`) given candidate rows (the native engine's hit rows: a superset of the
 * rows whose key is a source key) against the match of every row: the same rows kept, replaced (with the same
 * source entries, in the same order) and deleted, the same per-entry counts — for candidates that are the
 * matching rows alone or those plus any others, with NULL keys and delete rows in the source.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeKeys, SourceKeySet } from "../src/index.js";
import { matchKeys } from "../src/upsert/rewrite-match.js";
import type { PartitionDeletes } from "../src/upsert/source-batch.js";
import { batchOf, column } from "./arrow-columns.js";

const key = fc.option(fc.constantFrom("", "a", "b", "ab", "é", "k1", "k2", "k3", "k4"), { freq: 6 });

function keysOf(values: readonly (string | null)[]) {
  return encodeKeys(batchOf([["id", column("string", values)]]), ["id"]);
}

describe("matchKeys with candidate rows", () => {
  it("equals the match of every row when the candidates hold every matching row", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom("a", "b", "ab", "é", "k1", "k2", "k3"), { maxLength: 7 }),
        fc.array(key, { maxLength: 40 }),
        fc.array(fc.boolean(), { maxLength: 7 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        (sourceValues, targetValues, deleteFlags, extra, withDeletes) => {
          const set = SourceKeySet.build({ keys: keysOf(sourceValues) });
          const entries = Uint8Array.from(sourceValues, (_, i) => (deleteFlags[i] ? 1 : 0));
          const deletes: PartitionDeletes | undefined = withDeletes
            ? { rows: [entries], entries, count: entries.reduce((a, b) => a + b, 0) }
            : undefined;
          const keys = keysOf(targetValues);
          const everyRow = matchKeys(keys, set, deletes, new Uint32Array(set.size));
          // The candidates: the rows in the set, and any others (rows that only share a hash).
          const inSet = targetValues.flatMap((v, i) => (v !== null && sourceValues.includes(v) ? [i] : []));
          const others = targetValues.length === 0 ? [] : extra.map((e) => e % targetValues.length);
          const candidates = Uint32Array.from(new Set([...inSet, ...others])).sort();
          const matches = new Uint32Array(set.size);
          const fromCandidates = matchKeys(keys, set, deletes, matches, candidates);
          const picked = (m: typeof everyRow) => ({
            kept: m.kept,
            keep: [...m.keep.subarray(0, m.kept)],
            drop: [...m.drop.subarray(0, m.replaced)],
            entries: [...m.entries.subarray(0, m.replaced)],
            gone: [...(m.gone?.subarray(0, m.deleted) ?? [])],
          });
          expect(picked(fromCandidates)).toEqual(picked(everyRow));
          const counts = new Uint32Array(set.size);
          matchKeys(keys, set, deletes, counts);
          expect([...matches]).toEqual([...counts]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
