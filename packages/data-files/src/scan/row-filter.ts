/**
 * The row filter of a scan (and of a delete): which rows of a batch satisfy every condition (SQL null
 * semantics, see filter.ts), as a per-row mask or as the indices of the rows kept.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { decimal128At, utf8Reader } from "@deltalite/parquet-stream";
import { type Data, type RecordBatch, Type } from "apache-arrow";
import { type Comparable, type ResolvedCondition, satisfies, scaleDecimal } from "./filter.js";

/** Reads row `i` of a primitive column as a comparable scalar (null when null). */
function scalarReader(data: Data, condition: ResolvedCondition): (i: number) => Comparable | null {
  const bits = data.nullCount > 0 ? data.nullBitmap : undefined;
  const offset = data.offset;
  const valid =
    bits && bits.length > 0
      ? (i: number) => (bits[(offset + i) >> 3]! & (1 << ((offset + i) & 7))) !== 0
      : () => true;
  const values = data.values as unknown;
  let read: (i: number) => Comparable;
  switch (data.type.typeId) {
    case Type.Bool: {
      const v = values as Uint8Array;
      read = (i) => (v[(offset + i) >> 3]! & (1 << ((offset + i) & 7))) !== 0;
      break;
    }
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Timestamp: {
      const v = values as ArrayLike<number | bigint>;
      read = (i) => v[i]!;
      break;
    }
    case Type.Decimal: {
      const w = values as Uint32Array;
      read = (i) => scaleDecimal(decimal128At(w, i), condition);
      break;
    }
    case Type.Utf8:
      read = utf8Reader(data);
      break;
    case Type.Binary: {
      const v = values as Uint8Array;
      const o = data.valueOffsets as Int32Array;
      read = (i) => v.subarray(o[i]!, o[i + 1]!);
      break;
    }
    default:
      throw new DeltaLiteError(
        "unsupported",
        `scan filters on ${String(data.type)} columns are not supported`,
      );
  }
  return (i) => (valid(i) ? read(i) : null);
}

/** Per row of `batch`: 1 when it satisfies every condition (all 1 without conditions). */
export function matchMask(batch: RecordBatch, conditions: readonly ResolvedCondition[]): Uint8Array {
  const n = batch.numRows;
  const keep = new Uint8Array(n).fill(1);
  for (const condition of conditions) {
    const at = batch.schema.fields.findIndex((f) => f.name === condition.column);
    const column = batch.data.children[at];
    if (!column)
      throw new DeltaLiteError("generic", `scan: filter column "${condition.column}" was not read`);
    const read = scalarReader(column, condition);
    for (let i = 0; i < n; i++) if (keep[i] && !satisfies(read(i), condition)) keep[i] = 0;
  }
  return keep;
}

/** Indices of the rows whose mask entry is `want` (1: matching rows; 0: the others). */
export function rowsWhere(mask: Uint8Array, want: 0 | 1): Int32Array {
  let count = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] === want) count++;
  const out = new Int32Array(count);
  let j = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] === want) out[j++] = i;
  return out;
}

/** Indices of the rows of `batch` that satisfy every condition, or undefined when all rows do. */
export function selectedRows(
  batch: RecordBatch,
  conditions: readonly ResolvedCondition[],
): Int32Array | undefined {
  if (conditions.length === 0) return undefined;
  const rows = rowsWhere(matchMask(batch, conditions), 1);
  return rows.length === batch.numRows ? undefined : rows;
}
