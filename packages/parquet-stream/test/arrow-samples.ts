/**
 * Sample Arrow batches for the kernel tests (takeRows, concatRows): every column kind the writer and the merge
 * engine move — 64-bit integers, floats, booleans, strings, structs, lists of structs, maps, µs timestamps and
 * 128-bit decimals — with nulls sprinkled by a seed.
 */
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

export function sampleBatch(n: number, seed: number): RecordBatch {
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

export const plain = (v: unknown): unknown =>
  JSON.parse(
    JSON.stringify(v, (_k, x) =>
      typeof x === "bigint" ? `${x}n` : x instanceof Map ? Object.fromEntries(x) : x,
    ),
  );
