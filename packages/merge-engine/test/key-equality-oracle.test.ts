/**
 * Key equality = delta-rs MERGE's, proven through the oracle: for every key type (and composite keys with
 * NULLs) a target table and a source batch holding the same edge-case values go through a real delta-rs
 * 1.6.6 MERGE (`t.k = s.k [AND ...]`) — the target once as one file and once as three (so delta-rs's
 * file pruning by per-file min/max stats takes part); the set of (target row, source row) pairs it matched must equal the
 * pairs our canonical encoding calls equal, the source rows it inserted must be those our SourceKeySet
 * does not hold, and our duplicate count must equal the number of source rows MERGE matched to a target
 * row an earlier source row also matched.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Table, tableToIPC } from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeKeys, SourceKeySet } from "../src/index.js";
import { batchFor, type Case, compositeCases, F64, singleColumnCases } from "./key-cases.js";

describe("primary-key equality equals delta-rs MERGE", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-merge-keys-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cases = [...singleColumnCases, ...compositeCases].flatMap((c) => [
    { ...c, targetFiles: 1 },
    { ...c, targetFiles: 3 },
  ]);
  it.each(cases)("$name (target in $targetFiles file(s))", async (c) => {
    await checkAgainstMerge(c, c.targetFiles);
  });

  // Random values beyond the hand-picked edge cases: doubles drawn from random bit patterns mixed with
  // NaN/zero/inf variants, and composite keys over small domains (many equal keys, NULLs).
  const specialDoubles = Object.values(F64);
  const doubleArb = fc.oneof(fc.constantFrom(...specialDoubles), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }));
  const randomCases: Case[] = fc
    .sample(
      fc.record({
        d: fc.array(fc.option(doubleArb, { freq: 6 }), { minLength: 20, maxLength: 20 }),
        id: fc.array(fc.option(fc.bigInt({ min: -3n, max: 3n }), { freq: 6 }), {
          minLength: 20,
          maxLength: 20,
        }),
        s: fc.array(fc.option(fc.constantFrom("", "a", "b", "\u00e9"), { freq: 6 }), {
          minLength: 20,
          maxLength: 20,
        }),
      }),
      { numRuns: 4, seed: 20261130 },
    )
    .flatMap(
      (r, i) =>
        [
          { name: `random doubles #${i}`, columns: [["k", "double", r.d]] },
          {
            name: `random long + string + double #${i}`,
            columns: [
              ["k0", "long", r.id],
              ["k1", "string", r.s],
              ["k2", "double", r.d.map((v, j) => (j % 2 === 0 ? v : F64.one))],
            ],
          },
        ] as Case[],
    );
  it.each(randomCases)("$name", async (c) => {
    await checkAgainstMerge(c, 2);
  });

  async function checkAgainstMerge(c: Case, targetFiles: number): Promise<void> {
    const batch = batchFor(c);
    const keyColumns = c.columns.map(([name]) => name);
    const file = join(dir, `${c.name.replace(/[^a-z0-9]+/gi, "_")}.arrow`);
    await writeFile(file, tableToIPC(new Table(batch), "file"));
    const result = await oracle.call<{
      matches: Array<[number, number]>;
      inserted: number[];
      mode: string;
      target_files: number;
    }>("merge_key_matches", {
      target: file,
      source: file,
      keys: keyColumns,
      target_files: targetFiles,
    });
    expect(result.matches.length + result.inserted.length).toBeGreaterThan(0);
    const perFile = Math.ceil(batch.numRows / targetFiles);
    expect(result.target_files).toBe(Math.ceil(batch.numRows / perFile));

    const keys = encodeKeys(batch, keyColumns);
    const ours: Array<[number, number]> = [];
    for (let t = 0; t < batch.numRows; t++) {
      for (let s = 0; s < batch.numRows; s++) if (keys.sameKey(t, keys, s)) ours.push([t, s]);
    }
    expect(ours).toEqual(result.matches);

    // Equal keys hash equally (the probe cache relies on it).
    for (const [t, s] of ours) {
      expect([keys.hashWords[2 * t], keys.hashWords[2 * t + 1]]).toEqual([
        keys.hashWords[2 * s],
        keys.hashWords[2 * s + 1],
      ]);
    }

    // The set holds exactly the source rows MERGE matched; the rest (NULL keys included) are inserted.
    const set = SourceKeySet.build({ keys });
    const notInSet = [...Array(batch.numRows).keys()].filter((s) => !set.has(keys, s));
    expect(notInSet).toEqual(result.inserted);

    // Duplicates: source rows MERGE matched to a target row that an earlier source row also matched.
    const matchedBy = new Map<number, number[]>();
    for (const [t, s] of result.matches) matchedBy.set(t, [...(matchedBy.get(t) ?? []), s]);
    const duplicates = new Set<number>();
    for (const sources of matchedBy.values()) for (const s of sources.slice(1)) duplicates.add(s);
    expect(set.duplicateRows).toBe(duplicates.size);
    expect(set.nullKeyRows).toBe(keys.nullKeyCount);
  }
});
