/**
 * Test helpers for the writer: the canonical JSON of Arrow data (the same form tools/oracle/ops_parquet_write.py
 * computes from what pyarrow / delta-rs read), read straight from Arrow buffers so it depends on nothing the
 * writer uses; plus small table builders.
 */
import {
  type Data,
  makeData,
  makeVector,
  RecordBatch,
  type Schema,
  Struct,
  Table,
  Type,
  Utf8,
  vectorFromArray,
} from "apache-arrow";

type Canonical = null | boolean | number | string | Canonical[] | { [key: string]: Canonical };

const decoder = new TextDecoder();

function canonFloat(value: number): Canonical {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (Object.is(value, -0)) return "-0";
  return value;
}

function decimalText(words: Uint32Array, index: number, scale: number): string {
  let unscaled = 0n;
  for (let w = 3; w >= 0; w--) unscaled = (unscaled << 32n) | BigInt(words[index * 4 + w] as number);
  if (unscaled >= 1n << 127n) unscaled -= 1n << 128n;
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, "0");
  const text =
    scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** The canonical value of row `i` (relative to the Data's offset) of `data`. */
export function canonValue(data: Data, i: number): Canonical {
  if (!data.getValid(i)) return null;
  const type = data.type;
  const values = data.values as unknown as ArrayLike<number | bigint> & { subarray?: unknown };
  switch (type.typeId) {
    case Type.Int:
      return type.bitWidth === 64 ? String(values[i]) : (values[i] as number);
    case Type.Float:
      return canonFloat(values[i] as number);
    case Type.Bool: {
      const bit = data.offset + i;
      return (((values[bit >> 3] as number) >> (bit & 7)) & 1) === 1;
    }
    case Type.Utf8: {
      const offsets = data.valueOffsets as Int32Array;
      return decoder.decode((data.values as Uint8Array).subarray(offsets[i], offsets[i + 1]));
    }
    case Type.Binary: {
      const offsets = data.valueOffsets as Int32Array;
      return Buffer.from((data.values as Uint8Array).subarray(offsets[i], offsets[i + 1])).toString("hex");
    }
    case Type.Date:
      return values[i] as number;
    case Type.Timestamp:
      return String(values[i]);
    case Type.Decimal:
      return decimalText(data.values as Uint32Array, i, type.scale);
    case Type.Struct: {
      const out: { [key: string]: Canonical } = {};
      type.children.forEach((field: { name: string }, c: number) => {
        out[field.name] = canonValue(data.children[c] as Data, i);
      });
      return out;
    }
    case Type.List: {
      const offsets = data.valueOffsets as Int32Array;
      const child = data.children[0] as Data;
      const out: Canonical[] = [];
      for (let j = offsets[i] as number; j < (offsets[i + 1] as number); j++) out.push(canonValue(child, j));
      return out;
    }
    case Type.Map: {
      const offsets = data.valueOffsets as Int32Array;
      const entries = data.children[0] as Data;
      const out: Canonical[] = [];
      for (let j = offsets[i] as number; j < (offsets[i + 1] as number); j++) {
        out.push([canonValue(entries.children[0] as Data, j), canonValue(entries.children[1] as Data, j)]);
      }
      return out;
    }
    default:
      throw new Error(`no canonical form for ${String(type)}`);
  }
}

/** Canonical rows of batches, in order. */
export function canonicalRows(batches: readonly RecordBatch[]): Record<string, Canonical>[] {
  const rows: Record<string, Canonical>[] = [];
  for (const batch of batches) {
    const names = batch.schema.fields.map((f) => f.name);
    for (let i = 0; i < batch.numRows; i++) {
      const row: Record<string, Canonical> = {};
      names.forEach((name, c) => {
        row[name] = canonValue(batch.data.children[c] as Data, i);
      });
      rows.push(row);
    }
  }
  return rows;
}

const encoder = new TextEncoder();

/** A Utf8 vector built straight from strings (no vectorFromArray). */
export function utf8Vector(strings: readonly string[]) {
  const offsets = new Int32Array(strings.length + 1);
  const parts = strings.map((s) => encoder.encode(s));
  const data = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let pos = 0;
  parts.forEach((p, i) => {
    data.set(p, pos);
    pos += p.byteLength;
    offsets[i + 1] = pos;
  });
  return makeVector(
    makeData({ type: new Utf8(), length: strings.length, nullCount: 0, valueOffsets: offsets, data }),
  );
}

/** `rows` rows of (id int64 = start.., payload string of `width` pseudo-random hex chars, x float64). */
export function sequenceTable(start: number, rows: number, width = 24): Table {
  const id = new BigInt64Array(rows);
  const x = new Float64Array(rows);
  const payload: string[] = new Array(rows);
  let seed = start * 2654435761 + 1;
  for (let i = 0; i < rows; i++) {
    id[i] = BigInt(start + i);
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    x[i] = seed / 1e3;
    payload[i] = (seed.toString(16).repeat(Math.ceil(width / 6) + 1) + i.toString(36)).slice(0, width);
  }
  return new Table({ id: makeVector(id), payload: utf8Vector(payload), x: makeVector(x) });
}

/** One batch with exactly `schema` from plain JS column values (tests only: uses vectorFromArray). */
export function batchOf(schema: Schema, columns: Record<string, unknown[]>): RecordBatch {
  const length = Object.values(columns)[0]?.length ?? 0;
  const children = schema.fields.map((f) => vectorFromArray(columns[f.name] ?? [], f.type).data[0] as Data);
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }),
  );
}
