import {
  Binary,
  DateDay,
  Dictionary,
  Field,
  FixedSizeBinary,
  Int32,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canConcat, concatRows, takeRows } from "../src/arrow/index.js";
import { sampleBatch } from "./arrow-samples.js";
import { canonBatches } from "./read-canonical.js";

/** `batch` cut at `cuts` into sliced pieces (non-zero offsets, shared buffers), in order. */
function piecesOf(batch: RecordBatch, cuts: number[]): RecordBatch[] {
  const points = [...new Set(cuts.map((c) => c % (batch.numRows + 1)))].sort((a, b) => a - b);
  const bounds = [0, ...points, batch.numRows];
  const pieces: RecordBatch[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) pieces.push(batch.slice(bounds[k]!, bounds[k + 1]!));
  return pieces;
}

/** Binary, fixed-size binary and date columns (not in sampleBatch), with nulls. */
function bytesBatch(n: number, seed: number): RecordBatch {
  const rnd = (i: number) => ((i * 2246822519 + seed) >>> 0) % 251;
  const valid = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) if (rnd(i) % 5 !== 0) valid[i >> 3]! |= 1 << (i & 7);
  const lengths = Array.from({ length: n }, (_, i) => rnd(i) % 6);
  const offsets = new Int32Array(n + 1);
  lengths.forEach((l, i) => {
    offsets[i + 1] = offsets[i]! + l;
  });
  const bytes = Uint8Array.from({ length: offsets[n]! }, (_, k) => rnd(k + 7));
  const fields = [
    new Field("bin", new Binary(), true),
    new Field("fsb", new FixedSizeBinary(3), true),
    new Field("day", new DateDay(), true),
  ];
  const children = [
    makeData({ type: new Binary(), length: n, valueOffsets: offsets, data: bytes, nullBitmap: valid }),
    makeData({
      type: new FixedSizeBinary(3),
      length: n,
      data: Uint8Array.from({ length: 3 * n }, (_, k) => rnd(k)),
      nullBitmap: valid,
    }),
    makeData({
      type: new DateDay(),
      length: n,
      data: Int32Array.from({ length: n }, (_, i) => rnd(i) - 100),
    }),
  ];
  const data = makeData({ type: new Struct(fields), length: n, nullCount: 0, children });
  return new RecordBatch(new Schema(fields), data as never);
}

describe("concatRows", () => {
  it("appends sliced pieces back into the batch they came from, for every column type (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.integer(),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (n, seed, cuts, bytes) => {
          const batch = bytes ? bytesBatch(n, seed) : sampleBatch(n, seed);
          const pieces = piecesOf(batch, cuts);
          const joined = concatRows(pieces);
          expect(joined.numRows).toBe(n);
          expect(joined.schema.fields.map(String)).toEqual(batch.schema.fields.map(String));
          expect(canonBatches(batch.schema, [joined])).toEqual(canonBatches(batch.schema, [batch]));
          // Fresh, contiguous buffers: the result starts at offset 0 in every column.
          for (const child of joined.data.children) expect(child.offset).toBe(0);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("appends batches of different origins (a taken batch after a sliced one) in order", () => {
    const batch = sampleBatch(40, 11);
    const first = batch.slice(5, 17);
    const second = takeRows(batch, Int32Array.from([39, 0, 0, 22]));
    const joined = concatRows([first, second]);
    const expected = takeRows(
      batch,
      Int32Array.from([...Array.from({ length: 12 }, (_, i) => 5 + i), 39, 0, 0, 22]),
    );
    expect(canonBatches(batch.schema, [joined])).toEqual(canonBatches(batch.schema, [expected]));
  });

  it("hands back a single batch as it is", () => {
    const batch = sampleBatch(9, 1);
    expect(concatRows([batch])).toBe(batch);
  });

  it("says which types it covers: dictionaries are not appended", () => {
    expect(sampleBatch(3, 1).schema.fields.every((f) => canConcat(f.type))).toBe(true);
    expect(bytesBatch(3, 1).schema.fields.every((f) => canConcat(f.type))).toBe(true);
    const dictionary = vectorFromArray(["a", "b", "a"], new Dictionary(new Utf8(), new Int32()));
    expect(canConcat(dictionary.type)).toBe(false);
    expect(canConcat(new Struct([new Field("d", dictionary.type, true)]))).toBe(false);
  });
});
