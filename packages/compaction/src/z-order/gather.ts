/**
 * `gatherRows`: one RecordBatch made of rows picked from several batches of the same schema — output row i is
 * row `row[i]` of batch `source[i]` — the multi-source form of parquet-stream's `takeRows` (which selects from
 * one batch), needed by the sort to lay rows of many input batches and spilled runs out in key order. It
 * works on the Data layer with apache-arrow's conventions as `takeRows` does (fixed-width value buffers and
 * offsets sliced to a Data's rows, validity bitmaps and string values not), so values keep their physical
 * form; struct, list, map and fixed-size-list data are gathered recursively. Dictionary data is refused.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { type Data, makeData, RecordBatch, type Schema, Type } from "apache-arrow";

type Validity = { nullBitmap: Uint8Array | undefined; nullCount: number };

function gatherValidity(datas: readonly Data[], source: Int32Array, row: Int32Array): Validity {
  if (datas.every((d) => d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.length === 0)) {
    return { nullBitmap: undefined, nullCount: 0 };
  }
  const out = new Uint8Array((row.length + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < row.length; i++) {
    const d = datas[source[i]!]!;
    const bitmap = d.nullBitmap;
    const j = row[i]! + d.offset;
    const valid =
      d.nullCount === 0 || !bitmap || bitmap.length === 0 || ((bitmap[j >> 3]! >> (j & 7)) & 1) === 1;
    if (valid) out[i >> 3]! |= 1 << (i & 7);
    else nulls++;
  }
  return nulls === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: out, nullCount: nulls };
}

type Indexable = { [i: number]: unknown; length: number };

function gatherFixed(datas: readonly Data[], source: Int32Array, row: Int32Array, validity: Validity): Data {
  const first = datas[0]!;
  const stride = first.stride;
  const values = datas.map((d) => d.values as unknown as Indexable);
  const Ctor = (first.values as unknown as { constructor: new (n: number) => Indexable }).constructor;
  const out = new Ctor(row.length * stride);
  for (let i = 0; i < row.length; i++) {
    const from = values[source[i]!]!;
    const at = row[i]! * stride;
    for (let k = 0; k < stride; k++) out[i * stride + k] = from[at + k];
  }
  return makeData({ type: first.type, length: row.length, data: out, ...validity } as never);
}

function gatherBool(datas: readonly Data[], source: Int32Array, row: Int32Array, validity: Validity): Data {
  const out = new Uint8Array((row.length + 7) >> 3);
  for (let i = 0; i < row.length; i++) {
    const d = datas[source[i]!]!;
    const j = row[i]! + d.offset;
    if (((d.values as Uint8Array)[j >> 3]! >> (j & 7)) & 1) out[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: datas[0]!.type, length: row.length, data: out, ...validity } as never);
}

function gatherOffsets(datas: readonly Data[], source: Int32Array, row: Int32Array): Int32Array {
  const out = new Int32Array(row.length + 1);
  let total = 0;
  for (let i = 0; i < row.length; i++) {
    const offsets = datas[source[i]!]!.valueOffsets as Int32Array;
    total += offsets[row[i]! + 1]! - offsets[row[i]!]!;
    out[i + 1] = total;
  }
  return out;
}

function gatherVariable(
  datas: readonly Data[],
  source: Int32Array,
  row: Int32Array,
  validity: Validity,
): Data {
  const valueOffsets = gatherOffsets(datas, source, row);
  const out = new Uint8Array(valueOffsets[row.length]!);
  for (let i = 0; i < row.length; i++) {
    const d = datas[source[i]!]!;
    const offsets = d.valueOffsets as Int32Array;
    out.set((d.values as Uint8Array).subarray(offsets[row[i]!]!, offsets[row[i]! + 1]!), valueOffsets[i]!);
  }
  return makeData({
    type: datas[0]!.type,
    length: row.length,
    valueOffsets,
    data: out,
    ...validity,
  } as never);
}

function gatherList(datas: readonly Data[], source: Int32Array, row: Int32Array, validity: Validity): Data {
  const valueOffsets = gatherOffsets(datas, source, row);
  const total = valueOffsets[row.length]!;
  const childSource = new Int32Array(total);
  const childRow = new Int32Array(total);
  let at = 0;
  for (let i = 0; i < row.length; i++) {
    const offsets = datas[source[i]!]!.valueOffsets as Int32Array;
    for (let k = offsets[row[i]!]!; k < offsets[row[i]! + 1]!; k++) {
      childSource[at] = source[i]!;
      childRow[at++] = k;
    }
  }
  const child = gatherData(
    datas.map((d) => d.children[0] as Data),
    childSource,
    childRow,
  );
  return makeData({ type: datas[0]!.type, length: row.length, valueOffsets, child, ...validity } as never);
}

function gatherFixedSizeList(
  datas: readonly Data[],
  source: Int32Array,
  row: Int32Array,
  validity: Validity,
): Data {
  const size = (datas[0]!.type as unknown as { listSize: number }).listSize;
  const childSource = new Int32Array(row.length * size);
  const childRow = new Int32Array(row.length * size);
  for (let i = 0; i < row.length; i++) {
    for (let k = 0; k < size; k++) {
      childSource[i * size + k] = source[i]!;
      childRow[i * size + k] = row[i]! * size + k;
    }
  }
  const child = gatherData(
    datas.map((d) => d.children[0] as Data),
    childSource,
    childRow,
  );
  return makeData({ type: datas[0]!.type, length: row.length, child, ...validity } as never);
}

/** Output row i = row `row[i]` of `datas[source[i]]` (rows relative to each Data's own offset). */
export function gatherData(datas: readonly Data[], source: Int32Array, row: Int32Array): Data {
  const validity = gatherValidity(datas, source, row);
  const type = datas[0]!.type;
  switch (type.typeId) {
    case Type.Null:
      return makeData({ type, length: row.length, nullCount: row.length } as never);
    case Type.Bool:
      return gatherBool(datas, source, row, validity);
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Decimal:
    case Type.Interval:
    case Type.Duration:
    case Type.FixedSizeBinary:
      return gatherFixed(datas, source, row, validity);
    case Type.Utf8:
    case Type.Binary:
      return gatherVariable(datas, source, row, validity);
    case Type.List:
    case Type.Map:
      return gatherList(datas, source, row, validity);
    case Type.FixedSizeList:
      return gatherFixedSizeList(datas, source, row, validity);
    case Type.Struct: {
      const children = type.children.map((_, c) =>
        gatherData(
          datas.map((d) => d.children[c] as Data),
          source,
          row,
        ),
      );
      return makeData({ type, length: row.length, children, ...validity } as never);
    }
    default:
      throw new DeltaLiteError("unsupported", `gathering rows of Arrow type ${type} is not supported`);
  }
}

/** The rows (`source[i]`, `row[i]`) of `batches` (all of `schema`) as one new batch, in that order. */
export function gatherRows(
  schema: Schema,
  batches: readonly RecordBatch[],
  source: Int32Array,
  row: Int32Array,
): RecordBatch {
  const structs = batches.map((b) => b.data as Data);
  const children = schema.fields.map((_, c) =>
    gatherData(
      structs.map((s) => s.children[c] as Data),
      source,
      row,
    ),
  );
  const data = makeData({ type: structs[0]!.type, length: row.length, children, nullCount: 0 } as never);
  return new RecordBatch(schema, data as never);
}
