/**
 * Appends constant columns (Delta partition values) to a RecordBatch: every row gets the same value, already
 * typed by the caller (bigint for 64-bit integers, timestamps and decimals' unscaled value; number of days for
 * dates; string; Uint8Array for binary; boolean), or null. A column of the same name already in the batch is
 * replaced, since the log's partition value is the truth for a partition column. Appended fields are declared
 * nullable (cast to the table schema afterwards where it says otherwise).
 */
import { DeltaLiteError } from "@deltalite/errors";
import { type Data, type DataType, Field, makeData, RecordBatch, Schema, Struct, Type } from "apache-arrow";
import { setDecimal128 } from "../arrow/decimal-words.js";

export interface ConstantColumn {
  name: string;
  type: DataType;
  value: unknown;
}

/** Returns a new batch with `columns` appended (or substituted by name). */
export function withConstantColumns(batch: RecordBatch, columns: readonly ConstantColumn[]): RecordBatch {
  const length = batch.numRows;
  const fields = [...batch.schema.fields];
  const children = [...batch.data.children];
  for (const column of columns) {
    const data = constantData(column, length);
    const field = new Field(column.name, column.type, true);
    const existing = fields.findIndex((f) => f.name === column.name);
    if (existing >= 0) {
      fields[existing] = field;
      children[existing] = data;
    } else {
      fields.push(field);
      children.push(data);
    }
  }
  const schema = new Schema(fields, batch.schema.metadata);
  return new RecordBatch(schema, makeData({ type: new Struct(fields), length, nullCount: 0, children }));
}

/** A column of `length` copies of `value` (or nulls) of the given Arrow type. */
export function constantData({ name, type, value }: ConstantColumn, length: number): Data {
  const isNull = value === null || value === undefined;
  const nullBitmap = isNull ? new Uint8Array((length + 7) >> 3) : undefined;
  const base = { type, length, nullCount: isNull ? length : 0, nullBitmap } as Record<string, unknown>;
  const make = (extra: Record<string, unknown>) => makeData({ ...base, ...extra } as never) as Data;
  const wrong = (expected: string) =>
    new DeltaLiteError(
      "schema_mismatch",
      `constant column "${name}" of type ${String(type)} needs ${expected}, got ${typeof value}`,
    );
  switch (type.typeId) {
    case Type.Bool: {
      if (!isNull && typeof value !== "boolean") throw wrong("a boolean");
      return make({ data: new Uint8Array((length + 7) >> 3).fill(value === true ? 0xff : 0) });
    }
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Timestamp:
    case Type.Time: {
      const empty = makeData({ type, length: 0 } as never) as Data;
      const Ctor = (empty.values as { constructor: new (n: number) => { fill(v: unknown): unknown } })
        .constructor;
      const data = new Ctor(length);
      if (!isNull) {
        const wantsBigInt = data instanceof BigInt64Array || data instanceof BigUint64Array;
        if (wantsBigInt && typeof value !== "bigint") throw wrong("a bigint");
        if (!wantsBigInt && typeof value !== "number") throw wrong("a number");
        (data.fill as (v: unknown) => unknown)(value);
      }
      return make({ data });
    }
    case Type.Decimal: {
      const words = new Uint32Array(length * 4);
      if (!isNull) {
        if (typeof value !== "bigint") throw wrong("a bigint (the unscaled value)");
        for (let i = 0; i < length; i++) setDecimal128(words, i, value);
      }
      return make({ data: words });
    }
    case Type.Utf8:
    case Type.Binary: {
      let bytes: Uint8Array = new Uint8Array(0);
      if (!isNull) {
        if (type.typeId === Type.Utf8) {
          if (typeof value !== "string") throw wrong("a string");
          bytes = new TextEncoder().encode(value);
        } else {
          if (!(value instanceof Uint8Array)) throw wrong("a Uint8Array");
          bytes = value;
        }
      }
      const len = bytes.length;
      const data = new Uint8Array(len * length);
      const offsets = new Int32Array(length + 1);
      for (let i = 0; i < length; i++) {
        data.set(bytes, i * len);
        offsets[i + 1] = (i + 1) * len;
      }
      return make({ data, valueOffsets: offsets });
    }
    default:
      throw new DeltaLiteError(
        "unsupported",
        `constant column "${name}" has unsupported type ${String(type)}`,
      );
  }
}
