// Alignment of incoming Arrow data to a table schema: by name, reordered, null-filled, and cast where the cast
// is exact for every value (SPEC §7 "Source casts"): one case per rule with an exact and an inexact value,
// zone spellings, nested types (never cast), empty batches, and the relax-nullability analysis.

import {
  Binary,
  type Data,
  type DataType,
  DateDay,
  DateMillisecond,
  Decimal,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  LargeBinary,
  LargeUtf8,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  tableFromArrays,
  Uint8,
  Uint32,
  Uint64,
  Utf8,
  type Vector,
  vectorFromArray,
} from "apache-arrow";
import { describe, expect, it } from "vitest";
import { alignBatch, alignToTable, columnsToRelax, planAlignment, withNullable } from "../src/write/align.js";

type Column = [name: string, values: Vector, nullable?: boolean];

function batchOf(...columns: Column[]): RecordBatch {
  const fields = columns.map(([name, v, nullable]) => new Field(name, v.type, nullable ?? true));
  const children = columns.map(([, v]) => v.data[0] as Data);
  const length = children[0]?.length ?? 0;
  const data = makeData({ type: new Struct(fields), length, nullCount: 0, children } as never);
  return new RecordBatch(new Schema(fields), data as never);
}

const table = (...fields: [string, DataType, boolean?][]) =>
  new Schema(fields.map(([name, type, nullable]) => new Field(name, type, nullable ?? true)));

const WRITE = { noun: "data", extraColumnsHint: 'add them with schemaMode "merge"' } as const;

/** Aligns one batch as the write does (plan once, then the batch). */
const align = (batch: RecordBatch, target: Schema) =>
  alignBatch(batch, planAlignment(batch.schema, target, "t", WRITE));

const column = (batch: RecordBatch, name: string) => [...(batch.getChild(name) as Vector)];

function refusal(run: () => unknown): { kind: string; message: string } {
  try {
    run();
  } catch (error) {
    return error as { kind: string; message: string };
  }
  throw new Error("expected a refusal");
}

const one = (name: string, values: unknown[], type: DataType) =>
  batchOf([name, vectorFromArray(values as never[], type as never)]);

/** A one-column batch of 64-bit values (timestamps, Date64) built from raw bigints; null = NULL. */
function raw64(name: string, values: (bigint | null)[], type: DataType): RecordBatch {
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v !== null) nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  const data = makeData({
    type,
    length: values.length,
    nullCount: values.filter((v) => v === null).length,
    nullBitmap,
    data: BigInt64Array.from(values, (v) => v ?? 0n),
  } as never) as Data;
  const field = new Field(name, type, true);
  const struct = makeData({
    type: new Struct([field]),
    length: values.length,
    nullCount: 0,
    children: [data],
  });
  return new RecordBatch(new Schema([field]), struct as never);
}

describe("matching by name", () => {
  it("reorders to the table's order and null-fills a nullable column the data lacks", () => {
    const batch = batchOf(
      ["b", vectorFromArray(["x", "y"], new Utf8())],
      ["a", vectorFromArray([1n, 2n], new Int64())],
    );
    const out = align(batch, table(["a", new Int64()], ["c", new Float64()], ["b", new Utf8()]));
    expect(out.schema.fields.map((f) => f.name)).toEqual(["a", "c", "b"]);
    expect(column(out, "a")).toEqual([1n, 2n]);
    expect(column(out, "c")).toEqual([null, null]);
    expect(column(out, "b")).toEqual(["x", "y"]);
  });

  it("names columns the table lacks, in each caller's wording", () => {
    const batch = one("extra", ["x"], new Utf8());
    const target = table(["id", new Int64()]);
    expect(refusal(() => align(batch, target))).toMatchObject({
      kind: "schema_mismatch",
      message: 't: the data has columns the table does not: extra (add them with schemaMode "merge")',
    });
    expect(refusal(() => alignToTable(batch, target, "t", { noun: "source" }))).toMatchObject({
      kind: "schema_mismatch",
      message: "t: the source has columns the table does not: extra",
    });
  });

  it("refuses a missing non-nullable column and nulls in a non-nullable one", () => {
    const target = table(["id", new Int64(), false], ["v", new Utf8(), false]);
    expect(refusal(() => align(one("id", [1n], new Int64()), target)).message).toMatch(
      /lacks the non-nullable column v/,
    );
    const nulls = batchOf(
      ["id", vectorFromArray([1n], new Int64())],
      ["v", vectorFromArray([null], new Utf8())],
    );
    expect(refusal(() => align(nulls, target))).toMatchObject({
      kind: "schema_mismatch",
      message: expect.stringMatching(/column v is not nullable/),
    });
  });
});

describe("casts: exact values convert, the first inexact one is refused naming column and row", () => {
  const inexact = (batch: RecordBatch, target: Schema, name: string, row: number) =>
    expect(refusal(() => align(batch, target))).toMatchObject({
      kind: "schema_mismatch",
      message: expect.stringMatching(new RegExp(`column ${name}\\b.*\\brow ${row}\\b`)),
    });

  it("dictionary → its value type (decoded, NULL indices and NULL values kept)", () => {
    const source = tableFromArrays({ v: ["a", "b", "a"] }).batches[0]!;
    expect(String(source.schema.fields[0]!.type)).toBe("Dictionary<Int32, Utf8>");
    const out = align(source, table(["v", new Utf8()]));
    expect(String(out.schema.fields[0]!.type)).toBe("Utf8");
    expect(String((out.getChild("v") as Vector).type)).toBe("Utf8");
    expect(column(out, "v")).toEqual(["a", "b", "a"]);
    const withNulls = one("v", ["x", null, "y", "x"], new Dictionary(new Utf8(), new Int32()));
    expect(column(align(withNulls, table(["v", new Utf8()])), "v")).toEqual(["x", null, "y", "x"]);
    // A dictionary of floats into a long column: decoded, then cast like any float.
    const floats = tableFromArrays({ v: [1, 2, 1] }).batches[0]!;
    const dictFloats = one("v", [1, 2.5], new Dictionary(new Float64(), new Int32()));
    expect(column(align(floats, table(["v", new Int64()])), "v")).toEqual([1n, 2n, 1n]);
    inexact(dictFloats, table(["v", new Int64()]), "v", 1);
  });

  it("integral Float64 → Int64 (NaN, ±Infinity, fractions and out-of-range values are not)", () => {
    const target = table(["id", new Int64()]);
    const out = align(one("id", [1, -2, null, 2 ** 53, -(2 ** 63)], new Float64()), target);
    expect(column(out, "id")).toEqual([1n, -2n, null, 2n ** 53n, -(2n ** 63n)]);
    inexact(one("id", [1, 1.5], new Float64()), target, "id", 1);
    inexact(one("id", [1, 2, Number.NaN], new Float64()), target, "id", 2);
    inexact(one("id", [Number.POSITIVE_INFINITY], new Float64()), target, "id", 0);
    inexact(one("id", [0, 2 ** 63], new Float64()), target, "id", 1);
  });

  it("integral Float32 → Int32, Int16, Int8 within range", () => {
    expect(column(align(one("n", [7, -8], new Float32()), table(["n", new Int32()])), "n")).toEqual([7, -8]);
    inexact(one("n", [1, 3e9], new Float32()), table(["n", new Int32()]), "n", 1);
    expect(column(align(one("n", [-32768, 32767], new Float64()), table(["n", new Int16()])), "n")).toEqual([
      -32768, 32767,
    ]);
    inexact(one("n", [127, 128], new Float64()), table(["n", new Int8()]), "n", 1);
  });

  it("narrower → wider integers; a narrowing is refused as a type mismatch", () => {
    const out = align(one("n", [1, null, -2_000_000_000], new Int32()), table(["n", new Int64()]));
    expect(column(out, "n")).toEqual([1n, null, -2_000_000_000n]);
    expect(column(align(one("n", [-128, 127], new Int8()), table(["n", new Int16()])), "n")).toEqual([
      -128, 127,
    ]);
    expect(refusal(() => align(one("n", [1n], new Int64()), table(["n", new Int32()])))).toMatchObject({
      kind: "schema_mismatch",
      message: "t: column n is Int64 in the data but Int32 in the table",
    });
  });

  it("unsigned → signed: wider always, the same width only in range", () => {
    expect(column(align(one("n", [4_294_967_295], new Uint32()), table(["n", new Int64()])), "n")).toEqual([
      4_294_967_295n,
    ]);
    const max = 2n ** 63n - 1n;
    expect(column(align(one("n", [max], new Uint64()), table(["n", new Int64()])), "n")).toEqual([max]);
    inexact(one("n", [1n, 2n ** 63n], new Uint64()), table(["n", new Int64()]), "n", 1);
    inexact(one("n", [1, 200], new Uint8()), table(["n", new Int8()]), "n", 1);
  });

  it("Utf8 ↔ LargeUtf8 and Binary ↔ LargeBinary, also from a sliced batch; never string ↔ binary", () => {
    const large = one("s", ["a", null, "ccc", "dd"], new LargeUtf8()).slice(1, 4);
    const out = align(large, table(["s", new Utf8()]));
    expect(String((out.getChild("s") as Vector).type)).toBe("Utf8");
    expect(column(out, "s")).toEqual([null, "ccc", "dd"]);
    const back = align(one("s", ["ü", "", null], new Utf8()), table(["s", new LargeUtf8()]));
    expect(String((back.getChild("s") as Vector).type)).toBe("LargeUtf8");
    expect(column(back, "s")).toEqual(["ü", "", null]);
    const bytes = one("b", [Uint8Array.of(1, 2), null], new LargeBinary());
    const binary = align(bytes, table(["b", new Binary()]));
    expect(String((binary.getChild("b") as Vector).type)).toBe("Binary");
    expect(column(binary, "b")).toEqual([Uint8Array.of(1, 2), null]);
    expect(refusal(() => align(one("s", ["x"], new Utf8()), table(["s", new Binary()]))).kind).toBe(
      "schema_mismatch",
    );
  });

  it("timestamp units: to a finer unit always (in range), to a coarser one only without loss", () => {
    const target = table(["ts", new TimestampMicrosecond("UTC")]);
    const secs = align(raw64("ts", [1_700_000_000n, null], new TimestampSecond("UTC")), target);
    expect((secs.getChild("ts") as Vector).data[0]!.values.slice(0, 1)).toEqual(
      BigInt64Array.of(1_700_000_000_000_000n),
    );
    expect((secs.getChild("ts") as Vector).get(1)).toBeNull();
    const nanos = align(raw64("ts", [1_700_000_000_123_456_000n], new TimestampNanosecond("UTC")), target);
    expect((nanos.getChild("ts") as Vector).data[0]!.values[0]).toBe(1_700_000_000_123_456n);
    inexact(raw64("ts", [1_000n, 1_001n], new TimestampNanosecond("UTC")), target, "ts", 1);
    // 10^13 seconds do not fit int64 nanoseconds.
    const ns = table(["ts", new TimestampNanosecond("UTC")]);
    inexact(raw64("ts", [1n, 10_000_000_000_000n], new TimestampSecond("UTC")), ns, "ts", 1);
    const ms = align(raw64("ts", [5n], new TimestampMillisecond("UTC")), target);
    expect((ms.getChild("ts") as Vector).data[0]!.values[0]).toBe(5_000n);
  });

  it("time-zone spellings: the same instants under the table's zone; zone vs no zone is refused", () => {
    const target = table(["ts", new TimestampMicrosecond("UTC")]);
    for (const zone of ["Etc/UTC", "+00:00"]) {
      const out = align(raw64("ts", [1n, 2n], new TimestampMicrosecond(zone)), target);
      const v = out.getChild("ts") as Vector;
      expect(String(v.type)).toBe("Timestamp<MICROSECOND, UTC>");
      expect([...v.data[0]!.values.slice(0, 2)]).toEqual([1n, 2n]);
    }
    const ms = align(raw64("ts", [3n], new TimestampMillisecond("Etc/UTC")), target);
    expect(String((ms.getChild("ts") as Vector).type)).toBe("Timestamp<MICROSECOND, UTC>");
    expect(refusal(() => align(raw64("ts", [1n], new TimestampMicrosecond(null)), target))).toMatchObject({
      kind: "schema_mismatch",
      message: expect.stringMatching(/column ts is Timestamp<MICROSECOND> in the data/),
    });
  });

  it("Date64 of whole days → Date32", () => {
    const target = table(["d", new DateDay()]);
    const out = align(raw64("d", [86_400_000n * 3n, null], new DateMillisecond()), target);
    expect((out.getChild("d") as Vector).data[0]!.values[0]).toBe(3);
    expect((out.getChild("d") as Vector).get(1)).toBeNull();
    inexact(raw64("d", [0n, 86_400_000n + 1n], new DateMillisecond()), target, "d", 1);
  });

  it("anything else is a type mismatch naming the column (strings to numbers, decimal widths)", () => {
    expect(refusal(() => align(one("id", ["1"], new Utf8()), table(["id", new Int64()])))).toMatchObject({
      kind: "schema_mismatch",
      message: "t: column id is Utf8 in the data but Int64 in the table",
    });
    const wide = one("d", [new Uint32Array(8)], new Decimal(2, 10, 256));
    expect(refusal(() => align(wide, table(["d", new Decimal(2, 10, 128)]))).kind).toBe("schema_mismatch");
  });
});

describe("nested types are never cast", () => {
  const struct = (child: DataType) => new Struct([new Field("a", child, true)]);

  it("an identical nested type passes; a dictionary or another zone inside is refused", () => {
    const target = table(["s", struct(new Utf8())]);
    expect(column(align(one("s", [{ a: "x" }], struct(new Utf8())), target), "s")[0]?.toJSON()).toEqual({
      a: "x",
    });
    const dict = one("s", [{ a: "x" }], struct(new Dictionary(new Utf8(), new Int32())));
    expect(refusal(() => align(dict, target))).toMatchObject({
      kind: "schema_mismatch",
      message: expect.stringMatching(/column s is Struct<\{a:Dictionary<Int32, Utf8>\}> in the data/),
    });
    const zoned = table(["s", struct(new TimestampMicrosecond("UTC"))]);
    const etc = batchOf([
      "s",
      vectorFromArray([{ a: new Date(1) }], struct(new TimestampMicrosecond("Etc/UTC")) as never),
    ]);
    expect(refusal(() => align(etc, zoned)).kind).toBe("schema_mismatch");
  });
});

describe("empty batches", () => {
  it("are checked by name and type, then come out empty in the table's schema", () => {
    const target = table(["id", new Int64()], ["v", new Utf8()], ["w", new Float64()]);
    const empty = batchOf(
      ["v", vectorFromArray([], new Dictionary(new Utf8(), new Int32()))],
      ["id", vectorFromArray([], new Float64())],
    );
    const out = align(empty, target);
    expect(out.numRows).toBe(0);
    expect(out.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual([
      "id:Int64",
      "v:Utf8",
      "w:Float64",
    ]);
    expect(out.data.children.map((c) => String(c.type))).toEqual(["Int64", "Utf8", "Float64"]);
    const extra = batchOf(["nope", vectorFromArray([], new Utf8())]);
    expect(refusal(() => alignToTable(extra, target, "t", { noun: "source" })).message).toMatch(/nope/);
    const wrong = batchOf(["id", vectorFromArray([], new Utf8())]);
    expect(refusal(() => align(wrong, target)).kind).toBe("schema_mismatch");
  });
});

describe("a stream whose batches change schema", () => {
  it("is aligned batch by batch against each batch's own schema", () => {
    const target = table(["id", new Int64()], ["v", new Utf8()]);
    const first = batchOf(
      ["id", vectorFromArray([1n], new Int64())],
      ["v", vectorFromArray(["a"], new Utf8())],
    );
    const plan = planAlignment(first.schema, target, "t", WRITE);
    const second = batchOf(
      ["v", vectorFromArray(["b"], new Utf8())],
      ["id", vectorFromArray([2.5], new Float64())],
    );
    expect(column(alignBatch(first, plan), "id")).toEqual([1n]);
    expect(refusal(() => alignBatch(second, plan)).message).toMatch(/column id\b.*\brow 0\b/);
  });
});

describe("relax-nullability analysis", () => {
  it("names non-nullable columns that would receive a NULL (missing, NULL values, dictionary NULLs)", () => {
    const target = table(["id", new Int64(), false], ["v", new Utf8(), false], ["w", new Utf8(), false]);
    const dictNull = makeData({
      type: new Dictionary(new Utf8(), new Int32()),
      length: 2,
      nullCount: 0,
      data: Int32Array.of(0, 1),
      dictionary: vectorFromArray(["x", null], new Utf8()),
    } as never) as Data;
    const fields = [new Field("id", new Int64(), true), new Field("w", dictNull.type, true)];
    const batch = new RecordBatch(
      new Schema(fields),
      makeData({
        type: new Struct(fields),
        length: 2,
        nullCount: 0,
        children: [vectorFromArray([1n, 2n], new Int64()).data[0]!, dictNull],
      } as never) as never,
    );
    expect(columnsToRelax([batch], target)).toEqual(["v", "w"]);
    const relaxed = withNullable(target, ["v", "w"]);
    expect(relaxed.fields.map((f) => f.nullable)).toEqual([false, true, true]);
    const out = alignToTable(batch, relaxed, "t", { noun: "source" });
    expect(column(out, "w")).toEqual(["x", null]);
    expect(out.data.children[2]!.nullCount).toBe(1);
    expect(columnsToRelax([batch.slice(0, 0)], target)).toEqual([]);
  });
});
