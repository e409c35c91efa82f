/**
 * Owns `keyBuckets`: a bucket id in [0, n) for every row, from the null-safe canonical key and its XXH64
 * under the fixed seed, reduced modulo n — for splitting a source too large for one upsert into calls on
 * disjoint keys. Ids are the same in every process running the same deltalite build, for keys of the same
 * Arrow types; do not persist them (the canonical encoding may change between releases). The table-level
 * `DeltaLiteTable.keyBuckets` casts the key columns to the table's types first, so source values that
 * become one table key share a bucket.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { RecordBatch, Table } from "apache-arrow";
import { encodeKeys } from "./encode-keys.js";
import { defaultKeyHasher } from "./key-hasher.js";

const TWO32 = 0x1_0000_0000;

/** (hi * 2^32 + lo) mod n, exactly. */
function mod64(hi: number, lo: number, n: number): number {
  if (n <= 0x3ffffff) {
    // (hi mod n) * (2^32 mod n) < 2^52: exact in doubles.
    return ((((hi % n) * (TWO32 % n)) % n) + (lo % n)) % n;
  }
  return Number(((BigInt(hi) << 32n) | BigInt(lo)) % BigInt(n));
}

/**
 * Bucket ids (0 ≤ id < n) of every row of `data` by its primary key in `keyColumns`. Rows are compared
 * null-safely: rows with NULL in the same key columns and equal other values share a bucket. The data must
 * already have the table's key types (the table method casts).
 */
export function keyBuckets(data: RecordBatch | Table, keyColumns: readonly string[], n: number): Uint32Array {
  if (!Number.isInteger(n) || n < 1 || n > 0xffffffff) {
    throw new DeltaLiteError(
      "generic",
      `keyBuckets: n must be an integer between 1 and 4294967295, got ${n}`,
    );
  }
  const batches = "batches" in data ? data.batches : [data];
  const total = batches.reduce((sum, b) => sum + b.numRows, 0);
  const out = new Uint32Array(total);
  let at = 0;
  for (const batch of batches) {
    const keys = encodeKeys(batch, keyColumns, { hasher: defaultKeyHasher });
    const words = keys.hashWords;
    for (let i = 0; i < keys.length; i++) {
      out[at + i] = mod64(words[2 * i + 1] as number, words[2 * i] as number, n);
    }
    at += keys.length;
  }
  return out;
}
