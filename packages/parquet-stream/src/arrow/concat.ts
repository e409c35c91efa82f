/**
 * `concatRows`: several RecordBatches of one schema as one batch with contiguous buffers — the append kernel
 * apache-arrow JS lacks (its `Table` only chains chunks). It works on the Data layer like `takeRows`, under
 * the same slicing convention (fixed-width values and offsets are sliced to a Data's rows, validity and
 * boolean bitmaps use `offset`), so values keep their exact physical form. `canConcat` tells whether a type
 * is covered (dictionaries, views and 64-bit offsets are not).
 */
import { DeltaLiteError } from "@deltalite/errors";
import { type Data, type DataType, makeData, RecordBatch, Type } from "apache-arrow";
import { copyBits } from "./bytes.js";

/** True when `concatData` handles `type` at every depth. */
export function canConcat(type: DataType): boolean {
  switch (type.typeId) {
    case Type.Null:
    case Type.Bool:
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Decimal:
    case Type.Interval:
    case Type.Duration:
    case Type.FixedSizeBinary:
    case Type.Utf8:
    case Type.Binary:
      return true;
    case Type.List:
    case Type.Map:
    case Type.FixedSizeList:
    case Type.Struct:
      return type.children.every((child) => canConcat(child.type));
    default:
      return false;
  }
}

function concatValidity(parts: readonly Data[], length: number) {
  const nullCount = parts.reduce((n, part) => n + part.nullCount, 0);
  if (nullCount === 0) return { nullBitmap: undefined, nullCount: 0 };
  const out = new Uint8Array((length + 7) >> 3);
  let at = 0;
  for (const part of parts) {
    if (part.nullCount === 0 || !part.nullBitmap || part.nullBitmap.length === 0) {
      for (let i = 0; i < part.length; i++) out[(at + i) >> 3]! |= 1 << ((at + i) & 7);
    } else {
      copyBits(part.nullBitmap, part.offset, out, at, part.length);
    }
    at += part.length;
  }
  return { nullBitmap: out, nullCount };
}

type Validity = ReturnType<typeof concatValidity>;
type TypedArray = { length: number; subarray(a: number, b: number): TypedArray } & ArrayLike<unknown>;
type TypedArrayConstructor = new (n: number) => TypedArray & { set(a: TypedArray, at: number): void };

function concatFixed(parts: readonly Data[], type: DataType, length: number, validity: Validity): Data {
  const stride = parts[0]!.stride;
  const first = parts[0]!.values as unknown as TypedArray;
  const out = new (first.constructor as TypedArrayConstructor)(length * stride);
  let at = 0;
  for (const part of parts) {
    out.set((part.values as unknown as TypedArray).subarray(0, part.length * stride), at);
    at += part.length * stride;
  }
  return makeData({ type, length, data: out, ...validity } as never);
}

function concatBool(parts: readonly Data[], type: DataType, length: number, validity: Validity): Data {
  const out = new Uint8Array((length + 7) >> 3);
  let at = 0;
  for (const part of parts) {
    copyBits(part.values as Uint8Array, part.offset, out, at, part.length);
    at += part.length;
  }
  return makeData({ type, length, data: out, ...validity } as never);
}

/** The parts' offsets rebased into one buffer, and each part's [first, last) range of its values / child. */
function concatOffsets(parts: readonly Data[], length: number) {
  const offsets = new Int32Array(length + 1);
  const ranges: [number, number][] = [];
  let row = 0;
  let total = 0;
  for (const part of parts) {
    const own = part.valueOffsets as Int32Array;
    const start = own[0]!;
    for (let i = 1; i <= part.length; i++) offsets[row + i] = total + own[i]! - start;
    row += part.length;
    total += own[part.length]! - start;
    ranges.push([start, own[part.length]!]);
  }
  return { offsets, ranges, total };
}

function concatVariable(parts: readonly Data[], type: DataType, length: number, validity: Validity): Data {
  const { offsets, ranges, total } = concatOffsets(parts, length);
  const out = new Uint8Array(total);
  let row = 0;
  parts.forEach((part, k) => {
    const [start, end] = ranges[k]!;
    out.set((part.values as Uint8Array).subarray(start, end), offsets[row]!);
    row += part.length;
  });
  return makeData({ type, length, valueOffsets: offsets, data: out, ...validity } as never);
}

function concatList(parts: readonly Data[], type: DataType, length: number, validity: Validity): Data {
  const { offsets, ranges } = concatOffsets(parts, length);
  const child = concatData(
    parts.map((part, k) => part.children[0]!.slice(ranges[k]![0], ranges[k]![1] - ranges[k]![0])),
  );
  return makeData({ type, length, valueOffsets: offsets, child, ...validity } as never);
}

/** `parts` (Data of one type) one after the other as one Data with fresh, contiguous buffers. */
export function concatData<T extends DataType>(parts: readonly Data<T>[]): Data<T> {
  const type = parts[0]!.type;
  const length = parts.reduce((n, part) => n + part.length, 0);
  const validity = concatValidity(parts, length);
  switch (type.typeId) {
    case Type.Null:
      return makeData({ type, length, nullCount: length } as never) as Data<T>;
    case Type.Bool:
      return concatBool(parts, type, length, validity) as Data<T>;
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Decimal:
    case Type.Interval:
    case Type.Duration:
    case Type.FixedSizeBinary:
      return concatFixed(parts, type, length, validity) as Data<T>;
    case Type.Utf8:
    case Type.Binary:
      return concatVariable(parts, type, length, validity) as Data<T>;
    case Type.List:
    case Type.Map:
      return concatList(parts, type, length, validity) as Data<T>;
    case Type.FixedSizeList: {
      const size = (type as unknown as { listSize: number }).listSize;
      const child = concatData(parts.map((part) => part.children[0]!.slice(0, part.length * size)));
      return makeData({ type, length, child, ...validity } as never) as Data<T>;
    }
    case Type.Struct: {
      const children = type.children.map((_, c) => concatData(parts.map((part) => part.children[c]!)));
      return makeData({ type, length, children, ...validity } as never) as Data<T>;
    }
    default:
      throw new DeltaLiteError("unsupported", `appending rows of Arrow type ${type} is not supported`);
  }
}

/** `batches` (one schema, that of the first) one after the other as one batch; a single batch as it is. */
export function concatRows(batches: readonly RecordBatch[]): RecordBatch {
  const first = batches[0];
  if (!first) throw new DeltaLiteError("generic", "concatRows needs at least one batch");
  if (batches.length === 1) return first;
  const children = first.schema.fields.map((_, c) => concatData(batches.map((b) => b.data.children[c]!)));
  const length = batches.reduce((n, b) => n + b.numRows, 0);
  const data = makeData({ type: first.data.type, length, children, nullCount: 0 } as never);
  return new RecordBatch(first.schema, data as never);
}
