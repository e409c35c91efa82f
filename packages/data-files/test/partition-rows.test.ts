// partitionRows groups rows by partition value; with one partition column it serialises each distinct value
// once. Property: the grouping equals the one made by serialising every row's value (ids, values, rows, and
// first-seen order), for the scalar kinds a Map key can hold and for floats, whose -0 and 0 serialise apart;
// for strings both where every byte is ASCII (read from the column decoded once) and where one is not, and on
// slices of a batch (value offsets that do not start at 0).
import { partitionScalarAt, partitionScalarReader, serializePartitionValue } from "@deltalite/delta-log";
import { Bool, type DataType, Float64, Int32, Int64, RecordBatch, Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { partitionRows } from "../src/index.js";

/** The grouping by each row's serialised value, row by row (what partitionRows must give). */
function reference(batch: RecordBatch, deltaType: string) {
  const vector = batch.getChild("p")!;
  const groups = new Map<string, { values: Record<string, string | null>; rows: number[] }>();
  for (let row = 0; row < batch.numRows; row++) {
    const text = serializePartitionValue(partitionScalarAt(vector, row), deltaType);
    const id = text === null ? "\u0000N\u0001" : `\u0000V${text}\u0001`;
    const group = groups.get(id) ?? { values: { p: text }, rows: [] };
    group.rows.push(row);
    groups.set(id, group);
  }
  return [...groups].map(([id, g]) => ({ id, values: g.values, rows: Int32Array.from(g.rows) }));
}

function batchOf(values: unknown[], type: DataType): RecordBatch {
  return new RecordBatch({ p: vectorFromArray(values, type).data[0]! });
}

const cases: [string, DataType, fc.Arbitrary<unknown>][] = [
  ["integer", new Int32(), fc.integer({ min: -3, max: 3 })],
  ["long", new Int64(), fc.bigInt({ min: -3n, max: 3n })],
  ["string", new Utf8(), fc.constantFrom("a", "b", "", "é", "a/b")],
  ["string", new Utf8(), fc.constantFrom("a", "b", "", "a/b", "2026-12-06", "~\u007f")],
  ["double", new Float64(), fc.constantFrom(0, -0, 1.5, Number.NaN, Number.POSITIVE_INFINITY)],
  ["boolean", new Bool(), fc.boolean()],
];

describe("partitionRows", () => {
  for (const [deltaType, arrowType, value] of cases) {
    it(`groups ${deltaType} values as serialising every row does`, () => {
      fc.assert(
        fc.property(fc.array(fc.option(value, { nil: null }), { minLength: 1, maxLength: 60 }), (values) => {
          const batch = batchOf(values, arrowType);
          expect(partitionRows(batch, ["p"], { p: deltaType })).toEqual(reference(batch, deltaType));
        }),
        { numRuns: 200 },
      );
    });
  }

  it("reads every row of a string column, sliced or not, as partitionScalarAt does", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.oneof(fc.string(), fc.string({ unit: "binary" })), { nil: null }), {
          maxLength: 40,
        }),
        fc.nat(),
        fc.nat(),
        (values, a, b) => {
          const whole = batchOf(values, new Utf8());
          const start = values.length === 0 ? 0 : a % values.length;
          const batch = whole.slice(
            start,
            start + (values.length === 0 ? 0 : b % (values.length - start + 1)),
          );
          const vector = batch.getChild("p")!;
          const read = partitionScalarReader(vector);
          for (let row = 0; row < batch.numRows; row++) {
            expect(read(row)).toBe(partitionScalarAt(vector, row));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("groups the rows of a sliced string batch as serialising every row does", () => {
    const batch = batchOf(["x", "y", null, "x", "z", "y", "x"], new Utf8()).slice(2, 6);
    expect(partitionRows(batch, ["p"], { p: "string" })).toEqual(reference(batch, "string"));
    expect(partitionRows(batch, ["p"], { p: "string" }).map((g) => g.values.p)).toEqual([
      null,
      "x",
      "z",
      "y",
    ]);
  });

  it("keeps -0 and 0 of a double column in two partitions", () => {
    const groups = partitionRows(batchOf([0, -0, 0], new Float64()), ["p"], { p: "double" });
    expect(groups.map((g) => [g.values.p, [...g.rows]])).toEqual([
      ["0", [0, 2]],
      ["-0", [1]],
    ]);
  });
});
