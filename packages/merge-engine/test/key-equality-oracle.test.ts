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
import { type RecordBatch, Table, tableToIPC } from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeKeys, SourceKeySet } from "../src/index.js";
import { batchOf, column, type KeyTypeName, type KeyValue } from "./arrow-columns.js";

const F32 = {
  zero: 0,
  negZero: 0x80000000,
  nan: 0x7fc00000,
  negNan: 0xffc00000,
  payloadNan: 0x7fc00001,
  inf: 0x7f800000,
  negInf: 0xff800000,
  oneHalf: 0x3fc00000,
  one: 0x3f800000,
};
const F64 = {
  zero: 0n,
  negZero: 0x8000000000000000n,
  nan: 0x7ff8000000000000n,
  negNan: 0xfff8000000000000n,
  payloadNan: 0x7ff8000000000001n,
  inf: 0x7ff0000000000000n,
  negInf: 0xfff0000000000000n,
  oneHalf: 0x3ff8000000000000n,
  one: 0x3ff0000000000000n,
};
const enc = new TextEncoder();

interface Case {
  name: string;
  columns: Array<[string, KeyTypeName, KeyValue[]]>;
}

const singleColumnCases: Case[] = (
  [
    ["byte", [0, 1, -1, 127, -128, null]],
    ["short", [0, -1, 32767, -32768, 255, null]],
    ["integer", [0, -1, 2147483647, -2147483648, 65536, null]],
    ["long", [0n, -1n, 9223372036854775807n, -9223372036854775808n, 4294967296n, 4294967295n, null]],
    [
      "float",
      [F32.zero, F32.negZero, F32.nan, F32.negNan, F32.payloadNan, F32.inf, F32.negInf, F32.oneHalf, null],
    ],
    [
      "double",
      [F64.zero, F64.negZero, F64.nan, F64.negNan, F64.payloadNan, F64.inf, F64.negInf, F64.oneHalf, null],
    ],
    ["decimal(10,2)", [0n, 1n, -1n, 12345n, -12345n, 9999999999n, -9999999999n, null]],
    ["decimal(38,6)", [0n, 10n ** 37n, -(10n ** 37n), 123456789012345678901234567890n, 1n, null]],
    ["string", ["", "a", "a ", "A", "\u00e9", "e\u0301", "a\u0000", "\u{1F600}", "ab", null]],
    [
      "binary",
      [
        new Uint8Array(0),
        new Uint8Array([0]),
        new Uint8Array([0, 0]),
        new Uint8Array([0xff]),
        enc.encode("a"),
        null,
      ],
    ],
    ["boolean", [true, false, null]],
    ["date", [0, -1, 19000, -719162, 2932896, null]],
    ["timestamp", [0n, -1n, 1700000000000000n, -62135596800000000n, 1n, null]],
    ["timestamp_ntz", [0n, -1n, 1700000000123456n, 253402300799999999n, null]],
  ] as Array<[KeyTypeName, KeyValue[]]>
).map(([type, values]) => ({ name: type, columns: [["k", type, values]] }));

const compositeCases: Case[] = [
  {
    name: "long + string with NULLs",
    columns: [
      ["k0", "long", [1n, 1n, 2n, 1n, null, null, 1n, 2n]],
      ["k1", "string", ["a", "b", "a", null, "a", null, "", "b"]],
    ],
  },
  {
    name: "string + string (length prefixes keep 'ab'+'c' apart from 'a'+'bc')",
    columns: [
      ["k0", "string", ["ab", "a", "", "abc", "a", null]],
      ["k1", "string", ["c", "bc", "abc", "", "bc\u0000", "x"]],
    ],
  },
  {
    name: "double + integer with -0.0, NaN and NULLs",
    columns: [
      ["k0", "double", [F64.zero, F64.negZero, F64.nan, F64.zero, F64.negNan, null, F64.inf]],
      ["k1", "integer", [1, 1, 1, null, 1, 1, 2]],
    ],
  },
  {
    name: "decimal + binary + timestamp",
    columns: [
      ["k0", "decimal(10,2)", [1n, 1n, -1n, 1n, null]],
      [
        "k1",
        "binary",
        [
          new Uint8Array([1]),
          new Uint8Array([1, 0]),
          new Uint8Array([1]),
          new Uint8Array([1]),
          new Uint8Array([1]),
        ],
      ],
      ["k2", "timestamp", [5n, 5n, 5n, -5n, 5n]],
    ],
  },
  {
    name: "boolean + date + float",
    columns: [
      ["k0", "boolean", [true, true, false, true, null]],
      ["k1", "date", [1, 1, 1, 2, 1]],
      ["k2", "float", [F32.zero, F32.negZero, F32.zero, F32.nan, F32.zero]],
    ],
  },
];

function batchFor(c: Case): RecordBatch {
  return batchOf(c.columns.map(([name, type, values]) => [name, column(type, values)]));
}

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
