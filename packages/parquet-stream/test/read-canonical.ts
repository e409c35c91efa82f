/**
 * Test helper (not a test): Arrow data → the canonical JSON form that tools/oracle/ops_parquet_read.py
 * computes from pyarrow's reading of the same file, so both sides are compared value by value. It reads
 * Arrow buffers directly (no Vector.get), so it sees exactly what the reader built. Arrow JS slices value and
 * offset buffers on `slice` (index from 0) but not validity or boolean bitmaps (index from `offset`).
 */
import { type Data, type DataType, type Field, type RecordBatch, type Schema, Type } from "apache-arrow";

export interface CanonicalTable {
  schema: Record<string, string>;
  numRows: number;
  columns: Record<string, unknown[]>;
}

const UNITS = ["s", "ms", "us", "ns"];

export function canonType(type: DataType): string {
  const t = type as DataType & Record<string, unknown>;
  switch (type.typeId) {
    case Type.Bool:
      return "bool";
    case Type.Int:
      return `${t.isSigned ? "int" : "uint"}${t.bitWidth}`;
    case Type.Float:
      return ["float16", "float32", "float64"][t.precision as number]!;
    case Type.Utf8:
      return "utf8";
    case Type.Binary:
      return "binary";
    case Type.FixedSizeBinary:
      return `fixed_binary(${t.byteWidth})`;
    case Type.Date:
      return t.unit === 0 ? "date32" : "date64";
    case Type.Timestamp:
      return `timestamp(${UNITS[t.unit as number]},${t.timezone ?? ""})`;
    case Type.Time:
      return `time(${UNITS[t.unit as number]})`;
    case Type.Decimal:
      return `decimal(${t.precision},${t.scale})`;
    case Type.Struct:
      return `struct<${(type.children as Field[]).map((f) => `${f.name}:${canonType(f.type)}`).join(",")}>`;
    case Type.List:
      return `list<${canonType((type.children as Field[])[0]!.type)}>`;
    case Type.Map: {
      const entries = (type.children as Field[])[0]!.type.children as Field[];
      return `map<${canonType(entries[0]!.type)},${canonType(entries[1]!.type)}>`;
    }
    default:
      return String(type);
  }
}

export function canonSchema(schema: Schema): Record<string, string> {
  return Object.fromEntries(schema.fields.map((f) => [f.name, canonType(f.type)]));
}

const hex = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
const utf8 = new TextDecoder("utf-8", { fatal: true });

function floatBits(value: number, single: boolean): string {
  if (Number.isNaN(value)) return "NaN";
  const view = new DataView(new ArrayBuffer(single ? 4 : 8));
  if (single) view.setFloat32(0, value, false);
  else view.setFloat64(0, value, false);
  return hex(new Uint8Array(view.buffer));
}

function decimalString(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return (negative ? "-" : "") + digits;
}

function isValid(data: Data, i: number): boolean {
  if (!data.nullBitmap || data.nullBitmap.length === 0 || data.nullCount === 0) return true;
  const at = data.offset + i;
  return (data.nullBitmap[at >> 3]! & (1 << (at & 7))) !== 0;
}

/** One canonical value per slot of `data`. */
export function canonData(data: Data): unknown[] {
  const type = data.type as DataType & Record<string, unknown>;
  const n = data.length;
  const o = data.offset;
  const out: unknown[] = new Array(n);
  const values = data.values as unknown as { [i: number]: number | bigint } & Uint8Array;
  const offsets = data.valueOffsets as Int32Array;
  const children = data.children as Data[];
  let childCanon: unknown[] | undefined;
  for (let i = 0; i < n; i++) {
    if (!isValid(data, i)) {
      out[i] = null;
      continue;
    }
    switch (type.typeId) {
      case Type.Bool:
        out[i] = (values[(o + i) >> 3]! & (1 << ((o + i) & 7))) !== 0; // bool data is not sliced: it goes by offset
        break;
      case Type.Int:
        out[i] = type.bitWidth === 64 ? String(values[i]) : Number(values[i]);
        break;
      case Type.Float:
        out[i] =
          type.precision === 0 ? `f16:${values[i]}` : floatBits(Number(values[i]), type.precision === 1);
        break;
      case Type.Date:
        out[i] = Number(values[i]);
        break;
      case Type.Time:
        out[i] = type.bitWidth === 64 ? String(values[i]) : Number(values[i]);
        break;
      case Type.Timestamp:
        out[i] = String(values[i]);
        break;
      case Type.Utf8:
        out[i] = utf8.decode(values.subarray(offsets[i]!, offsets[i + 1]!));
        break;
      case Type.Binary:
        out[i] = hex(values.subarray(offsets[i]!, offsets[i + 1]!));
        break;
      case Type.FixedSizeBinary: {
        const w = type.byteWidth as number;
        out[i] = hex(values.subarray(i * w, (i + 1) * w));
        break;
      }
      case Type.Decimal: {
        const words = data.values as unknown as Uint32Array;
        let v = 0n;
        for (let k = 3; k >= 0; k--) v = (v << 32n) | BigInt(words[i * 4 + k]!);
        out[i] = decimalString(BigInt.asIntN(128, v), type.scale as number);
        break;
      }
      case Type.Struct: {
        const fields = type.children as Field[];
        childCanon ??= [];
        if (childCanon.length === 0) for (const c of children) childCanon.push(canonData(c));
        out[i] = Object.fromEntries(fields.map((f, k) => [f.name, (childCanon![k] as unknown[])[i]]));
        break;
      }
      case Type.List:
      case Type.Map: {
        childCanon ??= canonData(children[0]!);
        const items = childCanon.slice(offsets[i]!, offsets[i + 1]!);
        out[i] =
          type.typeId === Type.Map
            ? items.map((entry) => {
                const e = entry as Record<string, unknown>;
                return [e.key, e.value];
              })
            : items;
        break;
      }
      default:
        throw new Error(`canonData: unhandled type ${String(type)}`);
    }
  }
  return out;
}

/** The canonical form of a sequence of batches of one schema (columns concatenated). */
export function canonBatches(schema: Schema, batches: RecordBatch[]): CanonicalTable {
  const columns: Record<string, unknown[]> = Object.fromEntries(schema.fields.map((f) => [f.name, []]));
  let numRows = 0;
  for (const batch of batches) {
    numRows += batch.numRows;
    batch.schema.fields.forEach((f, k) => {
      const target = columns[f.name]!;
      for (const value of canonData(batch.data.children[k]!)) target.push(value);
    });
  }
  return { schema: canonSchema(schema), numRows, columns };
}
