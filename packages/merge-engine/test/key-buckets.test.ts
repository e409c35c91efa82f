/**
 * keyBuckets: every id is XXH64(canonical key, KEY_HASH_SEED) mod n, checked against the native
 * @node-rs/xxhash; ids are equal in another process (the built package in a child process); equal keys —
 * NULL-safe, including rows with NULL keys — share a bucket; a Table gives the concatenated ids of its
 * batches; a bad n is a typed error.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DeltaLiteError } from "@deltalite/errors";
import { xxh64 as nativeXxh64 } from "@node-rs/xxhash";
import { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { encodeKeys, KEY_HASH_SEED, keyBuckets } from "../src/index.js";
import { batchOf, column } from "./arrow-columns.js";
import { keyBucketsBatch, ROWS } from "./fixtures/key-buckets-data.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const keyChoices: Array<[string[], number]> = [
  [["id"], 16],
  [["name"], 7],
  [["id", "name"], 1000],
  [["name", "id"], 3],
  [["id"], 0xffffffff],
];

describe("keyBuckets", () => {
  it.each(keyChoices)("%j into %i buckets = native XXH64(canonical key) mod n", (keys, n) => {
    const batch = keyBucketsBatch();
    const ids = keyBuckets(batch, keys, n);
    const encoded = encodeKeys(batch, keys);
    expect(ids.length).toBe(ROWS);
    for (let i = 0; i < ROWS; i++) {
      const expected = nativeXxh64(encoded.keyBytes(i), KEY_HASH_SEED) % BigInt(n);
      expect(ids[i]).toBe(Number(expected));
    }
    if (n <= 16) expect(new Set(ids).size).toBe(n);
  });

  it.each(keyChoices)(
    "%j into %i buckets gives the same ids in a fresh process (built package)",
    (keys, n) => {
      const child = spawnSync(
        process.execPath,
        [join(here, "fixtures", "key-buckets-child.mjs"), keys.join(","), String(n)],
        {
          encoding: "utf8",
        },
      );
      expect(child.stderr).toBe("");
      expect(JSON.parse(child.stdout)).toEqual([...keyBuckets(keyBucketsBatch(), keys, n)]);
    },
  );

  it("puts equal keys in one bucket, NULL-safely (NULL in the same column and equal other values)", () => {
    const batch = batchOf([
      ["a", column("long", [1n, 1n, null, null, 2n, null])],
      ["b", column("string", ["x", "x", "y", "y", null, null])],
    ]);
    const ids = keyBuckets(batch, ["a", "b"], 1 << 20);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).toBe(ids[3]);
    const single = keyBuckets(batch, ["a"], 1 << 20);
    expect(single[2]).toBe(single[3]);
    expect(single[2]).toBe(single[5]);
  });

  it("gives a Table the ids of its batches in order", () => {
    const batch = keyBucketsBatch();
    const table = new Table([batch.slice(0, 700), batch.slice(700, 701), batch.slice(701)]);
    expect([...keyBuckets(table, ["id", "name"], 97)]).toEqual([...keyBuckets(batch, ["id", "name"], 97)]);
  });

  it.each([0, -1, 1.5, 2 ** 32, Number.NaN])("rejects n = %s with a generic DeltaLiteError", (n) => {
    expect(() => keyBuckets(keyBucketsBatch(), ["id"], n)).toThrowError(DeltaLiteError);
  });
});
