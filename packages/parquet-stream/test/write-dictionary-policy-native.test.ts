/**
 * The native engine's dictionary policy (parquet-native `NativeBatch.plainColumns`, which the encoder worker
 * asks of a passed-through file's first decoded batch) against the JavaScript policy it stands in for
 * (dictionary-policy.ts `plainColumns`, the reference): for random batches of every judged kind of column,
 * with NULLs, repeated values and sliced rows, the two name the same columns. Long strings and binary values
 * put the projected dictionary on both sides of its limit.
 */
import { createRequire } from "node:module";
import {
  Binary,
  DateDay,
  Decimal,
  Field,
  Float64,
  Int8,
  Int32,
  Int64,
  type RecordBatch,
  Schema,
  Table,
  TimestampMicrosecond,
  tableToIPC,
  Utf8,
} from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parquetEngineEntry, parquetEngineName } from "../src/engine.js";
import {
  DICTIONARY_PAGE_LIMIT_BYTES,
  DICTIONARY_SAMPLE_ROWS,
  judgedFields,
  MAX_DICTIONARY_DISTINCT_SHARE,
  MIN_SAMPLED_VALUES,
  plainColumns,
} from "../src/write/dictionary-policy.js";
import { batchOf } from "./write-helpers.js";

const require = createRequire(import.meta.url);

const schema = new Schema([
  new Field("i8", new Int8(), true),
  new Field("i32", new Int32(), true),
  new Field("i64", new Int64(), true),
  new Field("f64", new Float64(), true),
  new Field("day", new DateDay(), true),
  new Field("ts", new TimestampMicrosecond(), true),
  new Field("dec", new Decimal(2, 18, 128), true),
  new Field("text", new Utf8(), true),
  new Field("long", new Utf8(), true),
  new Field("blob", new Binary(), true),
]);

/** A value of 0–1,999 bytes (mean ~1,000): ~1,050 distinct ones project a dictionary past parquet-rs's 1 MiB. */
function longValue(k: number): string {
  return `${k}`.padStart(k % 2000, "x");
}

/** One column's values: drawn from a domain of `distinct` values (so repeats are common when it is small). */
function column(rows: number, distinct: number, nullEvery: number, make: (k: number) => unknown): unknown[] {
  return Array.from({ length: rows }, (_, i) => {
    if (nullEvery > 0 && i % nullEvery === 0) return null;
    return make(((i * 2_654_435_761) >>> 0) % distinct);
  });
}

function randomBatch(rows: number, distinct: number, nullEvery: number): RecordBatch {
  return batchOf(schema, {
    i8: column(rows, Math.min(distinct, 200), nullEvery, (k) => (k % 256) - 128),
    i32: column(rows, distinct, nullEvery, (k) => k * 7 - 1000),
    i64: column(rows, distinct, nullEvery, (k) => BigInt(k) * 1_000_003n),
    f64: column(rows, distinct, nullEvery, (k) => k * 0.25),
    day: column(rows, distinct, nullEvery, (k) => new Date(Date.UTC(2020, 0, 1) + k * 86_400_000)),
    ts: column(rows, distinct, nullEvery, (k) => 1_600_000_000_000 + k * 1000),
    dec: column(rows, distinct, 0, (k) => new Uint32Array([k, 0, 0, 0])),
    text: column(rows, distinct, nullEvery, (k) => `v${k}`),
    long: column(rows, distinct, nullEvery, longValue),
    blob: column(rows, distinct, nullEvery, (k) => new TextEncoder().encode(longValue(k * 7))),
  });
}

describe.skipIf(parquetEngineName() !== "native")("dictionary policy, natively", () => {
  const engine = parquetEngineName() === "native" ? require(parquetEngineEntry()) : undefined;

  /** The native judgement of `batch` (sliced to [offset, offset + length) on the native side). */
  function nativePlain(batch: RecordBatch, offset: number, length: number): string[] {
    const table = engine.Table.fromIPCStream(tableToIPC(new Table([batch]), "stream"));
    const [whole] = table.recordBatches();
    const sliced = whole.slice(offset, length);
    try {
      return sliced.plainColumns(
        judgedFields(batch.schema).map((field) => field.name),
        DICTIONARY_SAMPLE_ROWS,
        MAX_DICTIONARY_DISTINCT_SHARE,
        MIN_SAMPLED_VALUES,
        DICTIONARY_PAGE_LIMIT_BYTES,
      );
    } finally {
      sliced.free();
      whole.free();
      table.free();
    }
  }

  it("names the columns the JavaScript policy names, on random batches and slices of them", () => {
    // How often each long column came out PLAIN and not: the draws must put both sides of the limit.
    const long = { plain: 0, dictionary: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: 7 }),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rows, distinct, nullEvery, whole, from, share) => {
          const batch = randomBatch(rows, distinct, nullEvery);
          // Whole: the built batch as it is (its buffers padded past the last value); else a slice of it.
          const offset = whole ? 0 : Math.floor(from * rows);
          const length = whole ? rows : Math.floor(share * (rows - offset));
          const expected = plainColumns(whole ? batch : batch.slice(offset, offset + length));
          expect(nativePlain(batch, offset, length)).toEqual(expected);
          for (const name of ["long", "blob"]) {
            if (expected.includes(name)) long.plain++;
            else long.dictionary++;
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(long.plain).toBeGreaterThan(10);
    expect(long.dictionary).toBeGreaterThan(10);
  });

  it("judges a batch of mostly distinct values PLAIN and one of few values not, as the reference does", () => {
    const distinct = randomBatch(4000, 4000, 0);
    const repeated = randomBatch(4000, 10, 0);
    // i8 holds 200 values: 200 distinct of 256 sampled is mostly distinct too.
    // `text` fits a dictionary (4,000 short values); `long` and `blob` would pass its limit.
    const all = ["i8", "i32", "i64", "f64", "day", "ts", "dec", "long", "blob"];
    expect(nativePlain(distinct, 0, 4000)).toEqual(all);
    expect(plainColumns(distinct)).toEqual(all);
    expect(nativePlain(repeated, 0, 4000)).toEqual([]);
  });

  it("counts parquet-rs's 4-byte prefix in a string column's projected dictionary, up to the limit exactly", () => {
    // 4,096 distinct values of 252 bytes: 4,096 × (252 + 4) = 1 MiB, the limit itself.
    const strings = (length: number) =>
      batchOf(new Schema([new Field("s", new Utf8(), true)]), {
        s: Array.from({ length: 4096 }, (_, i) => `${i}`.padStart(length, "s")),
      });
    expect(nativePlain(strings(252), 0, 4096)).toEqual(["s"]);
    expect(nativePlain(strings(251), 0, 4096)).toEqual([]);
  });
});
