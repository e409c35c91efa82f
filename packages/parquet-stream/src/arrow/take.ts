/**
 * `takeRows`: a new RecordBatch holding the given rows of a batch, in the given order — the selection kernel
 * apache-arrow JS lacks. It works on the Data layer (typed arrays, validity bitmaps, offsets), so values keep
 * their exact physical form (int64 and timestamps as 64-bit integers, decimals as 128-bit words); nested
 * struct / list / map / fixed-size list and dictionary data are taken recursively. Where the native engine
 * runs, fixed- and variable-width values, booleans and validity bitmaps are copied by its gathers (parquet-native
 * take.rs): these takes run cold, once per call, and a 10k-row source's per-partition takes took 28–39 ms in
 * JavaScript (merge-engine BENCHMARKS.md, session 29); the bit loops were compiled by V8 in the call itself
 * (10–18 ms of a compiler thread in a cold recent 1M upsert, session 32).
 */
import { DeltaLiteError } from "@deltalite/errors";
import { type Data, type DataType, makeData, RecordBatch, Type } from "apache-arrow";
import { type NativeGather, nativeGather } from "../engine.js";
import { bytesOf } from "./bytes.js";

/**
 * Bits `offset + indices[i]` of `bits` (Arrow's order, least significant first) into bit i of `out` (zeroed),
 * by the native engine's gather where it runs; returns how many of them are set.
 */
function gatherBits(bits: Uint8Array, offset: number, indices: Int32Array, out: Uint8Array): number {
  const gather = nativeGather();
  if (gather !== undefined) return gather.gatherBits(bits, offset, indices, out);
  let set = 0;
  for (let i = 0; i < indices.length; i++) {
    const j = indices[i]! + offset;
    const bit = ((bits[j >> 3] as number) >> (j & 7)) & 1;
    out[i >> 3]! |= bit << (i & 7);
    set += bit;
  }
  return set;
}

function takeValidity(
  data: Data,
  indices: Int32Array,
): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) {
    return { nullBitmap: undefined, nullCount: 0 };
  }
  const out = new Uint8Array((indices.length + 7) >> 3);
  const nulls = indices.length - gatherBits(data.nullBitmap, data.offset, indices, out);
  return nulls === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: out, nullCount: nulls };
}

function takeFixed(data: Data, indices: Int32Array, validity: ReturnType<typeof takeValidity>): Data {
  const stride = data.stride;
  const values = data.values as unknown as {
    constructor: new (n: number) => ArrayLike<unknown> & { [i: number]: unknown };
  } & {
    [i: number]: unknown;
  };
  const out = new values.constructor(indices.length * stride) as { [i: number]: unknown };
  // apache-arrow keeps fixed-width value buffers sliced to the Data's own rows: only the bitmap uses `offset`.
  const base = 0;
  const gather = nativeGather();
  if (gather !== undefined && ArrayBuffer.isView(values)) {
    const source = values as unknown as ArrayBufferView & { BYTES_PER_ELEMENT: number };
    gather.gatherFixed(bytesOf(source), stride * source.BYTES_PER_ELEMENT, indices, bytesOf(out as never));
  } else if (stride === 1) {
    for (let i = 0; i < indices.length; i++) out[i] = values[base + indices[i]!];
  } else {
    for (let i = 0; i < indices.length; i++) {
      const from = base + indices[i]! * stride;
      for (let k = 0; k < stride; k++) out[i * stride + k] = values[from + k];
    }
  }
  return makeData({ type: data.type, length: indices.length, data: out, ...validity } as never);
}

function takeBool(data: Data, indices: Int32Array, validity: ReturnType<typeof takeValidity>): Data {
  const out = new Uint8Array((indices.length + 7) >> 3);
  gatherBits(data.values as Uint8Array, data.offset, indices, out);
  return makeData({ type: data.type, length: indices.length, data: out, ...validity } as never);
}

// Offsets buffers are sliced to the Data's rows too (values stay whole), so rows index them directly.
function takeVariable(data: Data, indices: Int32Array, validity: ReturnType<typeof takeValidity>): Data {
  const offsets = data.valueOffsets as Int32Array;
  const values = data.values as Uint8Array;
  const gather = nativeGather();
  const taken =
    gather !== undefined
      ? gatherVariableNatively(gather, values, offsets, indices)
      : gatherVariable(values, offsets, indices);
  return makeData({
    type: data.type,
    length: indices.length,
    valueOffsets: taken.offsets,
    data: taken.values,
    ...validity,
  } as never);
}

/**
 * The native gather of a variable-width column's rows (it writes the offsets; this loop only sizes the
 * bytes). Apart from the JavaScript gather so that V8 compiles a small function for the path it runs.
 */
function gatherVariableNatively(
  gather: NativeGather,
  values: Uint8Array,
  offsets: Int32Array,
  indices: Int32Array,
): { values: Uint8Array; offsets: Int32Array } {
  let total = 0;
  for (let i = 0; i < indices.length; i++) total += offsets[indices[i]! + 1]! - offsets[indices[i]!]!;
  const out = new Uint8Array(total);
  const outOffsets = new Int32Array(indices.length + 1);
  gather.gatherVariable(values, offsets, indices, out, outOffsets);
  return { values: out, offsets: outOffsets };
}

/** The JavaScript gather of a variable-width column's rows (parquet-wasm, or no native engine). */
function gatherVariable(
  values: Uint8Array,
  offsets: Int32Array,
  indices: Int32Array,
): { values: Uint8Array; offsets: Int32Array } {
  const outOffsets = takenOffsets(offsets, indices);
  const out = new Uint8Array(outOffsets[indices.length]!);
  for (let i = 0; i < indices.length; i++) {
    const j = indices[i]!;
    out.set(values.subarray(offsets[j]!, offsets[j + 1]!), outOffsets[i]!);
  }
  return { values: out, offsets: outOffsets };
}

/** The offsets, from zero, of rows `indices` of a variable-width or list column laid out one after another. */
function takenOffsets(offsets: Int32Array, indices: Int32Array): Int32Array {
  const out = new Int32Array(indices.length + 1);
  let total = 0;
  for (let i = 0; i < indices.length; i++) {
    const j = indices[i]!;
    total += offsets[j + 1]! - offsets[j]!;
    out[i + 1] = total;
  }
  return out;
}

function takeList(data: Data, indices: Int32Array, validity: ReturnType<typeof takeValidity>): Data {
  const offsets = data.valueOffsets as Int32Array;
  const outOffsets = takenOffsets(offsets, indices);
  const childIndices = new Int32Array(outOffsets[indices.length]!);
  let at = 0;
  for (let i = 0; i < indices.length; i++) {
    const j = indices[i]!;
    for (let k = offsets[j]!; k < offsets[j + 1]!; k++) childIndices[at++] = k;
  }
  const child = takeData(data.children[0]!, childIndices);
  return makeData({
    type: data.type,
    length: indices.length,
    valueOffsets: outOffsets,
    child,
    ...validity,
  } as never);
}

function takeFixedSizeList(data: Data, indices: Int32Array, validity: ReturnType<typeof takeValidity>): Data {
  const size = (data.type as unknown as { listSize: number }).listSize;
  const childIndices = new Int32Array(indices.length * size);
  for (let i = 0; i < indices.length; i++) {
    const start = indices[i]! * size;
    for (let k = 0; k < size; k++) childIndices[i * size + k] = start + k;
  }
  const child = takeData(data.children[0]!, childIndices);
  return makeData({ type: data.type, length: indices.length, child, ...validity } as never);
}

/** Selects `indices` (relative to `data`'s own offset) from one Data of any supported type. */
export function takeData<T extends DataType>(data: Data<T>, indices: Int32Array): Data<T> {
  const validity = takeValidity(data, indices);
  const typeId = data.type.typeId;
  switch (typeId) {
    case Type.Null:
      return makeData({
        type: data.type,
        length: indices.length,
        nullCount: indices.length,
      } as never) as unknown as Data<T>;
    case Type.Bool:
      return takeBool(data, indices, validity) as Data<T>;
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Decimal:
    case Type.Interval:
    case Type.Duration:
    case Type.FixedSizeBinary:
      return takeFixed(data, indices, validity) as Data<T>;
    case Type.Utf8:
    case Type.Binary:
      return takeVariable(data, indices, validity) as Data<T>;
    case Type.List:
    case Type.Map:
      return takeList(data, indices, validity) as Data<T>;
    case Type.FixedSizeList:
      return takeFixedSizeList(data, indices, validity) as Data<T>;
    case Type.Struct: {
      // apache-arrow slices a struct's children along with it: their offsets already include ours.
      const children = data.children.map((child) => takeData(child, indices));
      return makeData({ type: data.type, length: indices.length, children, ...validity } as never) as Data<T>;
    }
    case Type.Dictionary: {
      const keys = takeFixed(data, indices, validity);
      return makeData({ ...keysToDictionary(keys), dictionary: data.dictionary } as never) as Data<T>;
    }
    default:
      throw new DeltaLiteError("unsupported", `selecting rows of Arrow type ${data.type} is not supported`);
  }
}

function keysToDictionary(keys: Data): Record<string, unknown> {
  return {
    type: keys.type,
    length: keys.length,
    data: keys.values,
    nullBitmap: keys.nullBitmap,
    nullCount: keys.nullCount,
  };
}

/** The rows `indices` of `batch` (in that order) as a new batch with the same schema. */
export function takeRows(batch: RecordBatch, indices: Int32Array): RecordBatch {
  const struct = batch.data;
  // A sliced batch's children carry the slice offset themselves.
  const children = struct.children.map((child) => takeData(child, indices));
  const data = makeData({ type: struct.type, length: indices.length, children, nullCount: 0 } as never);
  return new RecordBatch(batch.schema, data as never);
}
