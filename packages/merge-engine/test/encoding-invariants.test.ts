/**
 * Canonical encoding invariants beyond the oracle's type matrix: a sliced batch (Arrow offsets ≠ 0)
 * encodes its rows exactly like the whole batch; dictionary-encoded and large (64-bit offset) string
 * columns encode like plain ones; timestamps in s/ms/ns compare as microseconds (ns truncated like a cast);
 * Date64 compares as days; unsupported key types are a typed error.
 */
import { DeltaLiteError } from "@deltalite/errors";
import {
  type Data,
  DateMillisecond,
  Dictionary,
  Field,
  Int32,
  LargeUtf8,
  List,
  makeData,
  makeVector,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Utf8,
} from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type EncodedKeys, encodeKeys } from "../src/index.js";
import { batchOf, column, type KeyTypeName, type KeyValue } from "./arrow-columns.js";

function sameRow(a: EncodedKeys, i: number, b: EncodedKeys, j: number): void {
  expect(a.isNullKey(i)).toBe(b.isNullKey(j));
  expect([...a.keyBytes(i)]).toEqual([...b.keyBytes(j)]);
  expect([a.hashWords[2 * i], a.hashWords[2 * i + 1]]).toEqual([b.hashWords[2 * j], b.hashWords[2 * j + 1]]);
  expect(a.sameKeyNullSafe(i, b, j)).toBe(true);
}

const valueArbs: Record<string, fc.Arbitrary<KeyValue>> = {
  long: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  integer: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  byte: fc.integer({ min: -128, max: 127 }),
  double: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  float: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  string: fc.string({ unit: "binary", maxLength: 12 }),
  boolean: fc.boolean(),
  "decimal(38,6)": fc.bigInt({ min: -(10n ** 37n), max: 10n ** 37n }),
  timestamp: fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }),
};

describe("canonical encoding invariants", () => {
  it("encodes a slice's rows exactly like the same rows of the whole batch (single and composite keys)", () => {
    const types = Object.keys(valueArbs) as KeyTypeName[];
    fc.assert(
      fc.property(
        fc.subarray(types, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 40 }),
        fc.nat(),
        fc.nat(),
        (chosen, rows, a, b) => {
          const values = chosen.map((t) =>
            fc.sample(fc.option(valueArbs[t] as fc.Arbitrary<KeyValue>, { freq: 4 }), rows),
          );
          const batch = batchOf(chosen.map((t, j) => [`c${j}`, column(t, values[j] as KeyValue[])]));
          const start = a % rows;
          const end = start + (b % (rows - start + 1));
          const cols = chosen.map((_, j) => `c${j}`);
          const whole = encodeKeys(batch, cols);
          const part = encodeKeys(batch.slice(start, end), cols);
          expect(part.length).toBe(end - start);
          for (let i = start; i < end; i++) sameRow(whole, i, part, i - start);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("encodes dictionary-encoded and large-offset strings like plain strings", () => {
    const strings = ["b", "a", null, "", "a", "ccc", "b"];
    const plain = column("string", strings);
    const dictValues = column("string", ["a", "b", "", "ccc"]);
    const indexOf: Record<string, number> = { a: 0, b: 1, "": 2, ccc: 3 };
    const indices = Int32Array.from(strings, (s) => (s === null ? 0 : (indexOf[s] as number)));
    const nullBitmap = (plain as Data).nullBitmap as Uint8Array;
    const dictType = new Dictionary(new Utf8(), new Int32());
    const dictionary = makeData({
      type: dictType,
      length: strings.length,
      nullCount: 1,
      nullBitmap,
      data: indices,
      dictionary: makeVector(dictValues as Data<Utf8>),
    });
    const large = makeData({
      type: new LargeUtf8(),
      length: strings.length,
      nullCount: 1,
      nullBitmap,
      valueOffsets: BigInt64Array.from((plain as Data).valueOffsets as Int32Array, (o) => BigInt(o)),
      data: (plain as Data).values as Uint8Array,
    });
    const base = encodeKeys(batchOf([["k", plain]]), ["k"]);
    for (const other of [dictionary as Data, large as Data]) {
      const keys = encodeKeys(batchOf([["k", other]]), ["k"]);
      for (let i = 0; i < strings.length; i++) sameRow(base, i, keys, i);
    }
  });

  it.each([
    ["seconds", new TimestampSecond("UTC"), [1n, -2n], [1_000_000n, -2_000_000n]],
    ["milliseconds", new TimestampMillisecond(), [1n, -2n], [1000n, -2000n]],
    [
      "nanoseconds (truncated toward zero)",
      new TimestampNanosecond("UTC"),
      [1999n, -1999n, 5000n],
      [1n, -1n, 5n],
    ],
  ])("compares timestamps in %s as microseconds", (_name, type, values, micros) => {
    const data = makeData({
      type: type as TimestampSecond,
      length: values.length,
      nullCount: 0,
      data: BigInt64Array.from(values),
    });
    const keys = encodeKeys(batchOf([["t", data]]), ["t"]);
    const expected = encodeKeys(batchOf([["t", column("timestamp", micros)]]), ["t"]);
    for (let i = 0; i < values.length; i++) sameRow(keys, i, expected, i);
  });

  it("compares Date64 (milliseconds) as whole days", () => {
    const ms = [0n, 86_400_000n * 3n + 5n, -1n, -86_400_000n];
    const data = makeData({
      type: new DateMillisecond(),
      length: ms.length,
      nullCount: 0,
      data: BigInt64Array.from(ms),
    });
    const keys = encodeKeys(batchOf([["d", data]]), ["d"]);
    const expected = encodeKeys(batchOf([["d", column("date", [0, 3, -1, -1])]]), ["d"]);
    for (let i = 0; i < ms.length; i++) sameRow(keys, i, expected, i);
  });

  it("refuses a list key column with an unsupported DeltaLiteError naming the column", () => {
    const child = column("integer", [1, 2]);
    const list = makeData({
      type: new List(new Field("item", new Int32(), true)),
      length: 1,
      nullCount: 0,
      valueOffsets: Int32Array.of(0, 2),
      child,
    });
    try {
      encodeKeys(batchOf([["l", list as Data]]), ["l"]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DeltaLiteError);
      expect((e as DeltaLiteError).kind).toBe("unsupported");
    }
  });
});

describe("memory accounting", () => {
  it("counts zero-copy int64 and string keys without their Arrow buffers, copies with them", () => {
    const rows = 1000;
    const ids = column(
      "long",
      Array.from({ length: rows }, (_, i) => BigInt(i)),
    );
    const names = column(
      "string",
      Array.from({ length: rows }, (_, i) => `name-${i}`),
    );
    const ints = column(
      "integer",
      Array.from({ length: rows }, (_, i) => i),
    );
    const batch = batchOf([
      ["id", ids],
      ["name", names],
      ["n", ints],
    ]);
    expect(encodeKeys(batch, ["id"]).byteLength).toBe(8 * rows); // hashes only
    expect(encodeKeys(batch, ["name"]).byteLength).toBe(8 * rows);
    expect(encodeKeys(batch, ["n"]).byteLength).toBe(8 * rows + 8 * rows); // hashes + widened words
    const composite = encodeKeys(batch, ["id", "name"]);
    expect(composite.byteLength).toBeGreaterThan(8 * rows + 4 * (rows + 1) + rows * (1 + 8 + 4));
  });
});
