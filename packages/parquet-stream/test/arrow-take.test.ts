import {
  Bool,
  Decimal,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  Map_,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMicrosecond,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { takeRows } from "../src/arrow/index.js";

const structType = new Struct([new Field("a", new Int32(), true), new Field("s", new Utf8(), true)]);
const listType = new List(new Field("item", structType, true));
const mapType = new Map_(
  new Field(
    "entries",
    new Struct<{ key: Utf8; value: Int64 }>([
      new Field("key", new Utf8(), false),
      new Field("value", new Int64(), true),
    ]),
    false,
  ),
);

function sampleBatch(n: number, seed: number): RecordBatch {
  const rnd = (i: number) => ((i * 2654435761 + seed) >>> 0) % 1000;
  const nullish = <T>(i: number, v: T) => (rnd(i) % 7 === 0 ? null : v);
  const ts = new BigInt64Array(n).map((_, i) => BigInt(rnd(i)) * 1_000_001n + 9_007_199_254_740_993n);
  const decWords = new Uint32Array(n * 4).map((_, k) => (k % 4 === 0 ? rnd(k) : k % 4 === 1 ? 7 : 0));
  const table = new Table({
    i64: vectorFromArray(
      Array.from({ length: n }, (_, i) => nullish(i, BigInt(rnd(i)) * 10_000_000_007n)),
      new Int64(),
    ),
    f: vectorFromArray(
      Array.from({ length: n }, (_, i) => nullish(i + 1, rnd(i) / 7)),
      new Float64(),
    ),
    b: vectorFromArray(
      Array.from({ length: n }, (_, i) => nullish(i + 2, rnd(i) % 2 === 0)),
      new Bool(),
    ),
    s: vectorFromArray(
      Array.from({ length: n }, (_, i) => nullish(i + 3, `v${rnd(i)}ü`.repeat(rnd(i) % 4))),
      new Utf8(),
    ),
    st: vectorFromArray(
      Array.from({ length: n }, (_, i) => nullish(i + 4, { a: rnd(i), s: `x${i}` })),
      structType,
    ),
    l: vectorFromArray(
      Array.from({ length: n }, (_, i) =>
        nullish(
          i + 5,
          Array.from({ length: rnd(i) % 3 }, (_, k) => ({ a: k, s: null })),
        ),
      ),
      listType,
    ),
    m: vectorFromArray(
      Array.from({ length: n }, (_, i) => nullish(i + 6, new Map([[`k${i}`, BigInt(i)]]))),
      mapType,
    ),
  });
  const tsData = makeData({ type: new TimestampMicrosecond("UTC"), length: n, data: ts });
  const decData = makeData({ type: new Decimal(3, 38, 128), length: n, data: decWords });
  const base = table.batches[0]!;
  const schema = new Schema([
    ...base.schema.fields,
    new Field("ts", new TimestampMicrosecond("UTC"), true),
    new Field("dec", new Decimal(3, 38, 128), true),
  ]);
  const data = makeData({
    type: new Struct(schema.fields),
    length: n,
    children: [...base.data.children, tsData, decData],
    nullCount: 0,
  });
  return new RecordBatch(schema, data as never);
}

const plain = (v: unknown): unknown =>
  JSON.parse(
    JSON.stringify(v, (_k, x) =>
      typeof x === "bigint" ? `${x}n` : x instanceof Map ? Object.fromEntries(x) : x,
    ),
  );

describe("takeRows", () => {
  it("selects rows of every column type exactly, in order, with repeats (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer(),
        fc.array(fc.nat(), { maxLength: 80 }),
        (n, seed, picks) => {
          const batch = sampleBatch(n, seed);
          const indices = Int32Array.from(picks.map((p) => p % n));
          const taken = takeRows(batch, indices);
          expect(taken.numRows).toBe(indices.length);
          expect(taken.schema.fields.map(String)).toEqual(batch.schema.fields.map(String));
          for (let c = 0; c < batch.numCols; c++) {
            const from = batch.getChildAt(c)!;
            const to = taken.getChildAt(c)!;
            for (let i = 0; i < indices.length; i++) {
              expect(plain(to.get(i)?.toJSON?.() ?? to.get(i))).toEqual(
                plain(from.get(indices[i]!)?.toJSON?.() ?? from.get(indices[i]!)),
              );
            }
          }
          // 64-bit and 128-bit physical values are copied exactly (no float round trip).
          const ts = taken.getChild("ts")!.data[0]!.values as BigInt64Array;
          const srcTs = batch.getChild("ts")!.data[0]!.values as BigInt64Array;
          for (const [i, j] of indices.entries()) expect(ts[i]).toBe(srcTs[j]);
          const dec = taken.getChild("dec")!.data[0]!.values as Uint32Array;
          const srcDec = batch.getChild("dec")!.data[0]!.values as Uint32Array;
          for (const [i, j] of indices.entries()) {
            expect([...dec.subarray(i * 4, i * 4 + 4)]).toEqual([...srcDec.subarray(j * 4, j * 4 + 4)]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("works on a sliced batch (non-zero offsets)", () => {
    const batch = sampleBatch(50, 3).slice(10, 40);
    const taken = takeRows(batch, Int32Array.from([0, 29, 5]));
    for (const name of ["i64", "f", "b", "s", "st", "l", "m", "dec"]) {
      expect(plain(taken.getChild(name)!.get(1)?.toJSON?.() ?? taken.getChild(name)!.get(1))).toEqual(
        plain(batch.getChild(name)!.get(29)?.toJSON?.() ?? batch.getChild(name)!.get(29)),
      );
    }
  });
});
