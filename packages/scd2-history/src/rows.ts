/**
 * Owns shaping the rows a history upsert writes, in the data-file schema (the table's columns without the
 * partition column): source rows picked by global row number, and a batch with its valid-to column set to
 * given instants (a version being closed). No I/O.
 */
import { takeRows } from "@deltalite/parquet-stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct, Type } from "apache-arrow";
import type { Cell } from "./values.js";

/** `batch` (table-ordered) reduced to the fields of `schema`, by name. */
export function projectTo(batch: RecordBatch, schema: Schema): RecordBatch {
  const children = schema.fields.map((f) => {
    const index = batch.schema.fields.findIndex((g) => g.name === f.name);
    return batch.data.children[index] as Data;
  });
  return batchOf(schema.fields, batch.numRows, children);
}

/** `batch` with column `name` replaced by non-NULL `values` of its type (timestamps or dates). */
export function withValidTo(batch: RecordBatch, name: string, values: readonly Cell[]): RecordBatch {
  const index = batch.schema.fields.findIndex((f) => f.name === name);
  const field = batch.schema.fields[index] as Field;
  const type = field.type;
  const data =
    type.typeId === Type.Date && (type as unknown as { unit: number }).unit === 0
      ? Int32Array.from(values as number[])
      : BigInt64Array.from(values as bigint[]);
  const column = makeData({ type, length: values.length, data, nullCount: 0 } as never) as Data;
  const children = batch.data.children.map((c, i) => (i === index ? column : c)) as Data[];
  return batchOf(batch.schema.fields, batch.numRows, children);
}

/**
 * The given global source rows (with per-row valid-to instants when `validTo` is given) as data-file
 * batches, one per source batch they come from.
 */
export function sourceRows(
  batches: readonly RecordBatch[],
  batchStarts: readonly number[],
  picks: readonly { row: number; validTo?: Cell | undefined }[],
  dataSchema: Schema,
  validToColumn: string,
): RecordBatch[] {
  const perBatch = batches.map(() => ({ rows: [] as number[], validTo: [] as Cell[] }));
  for (const pick of picks) {
    const b = batchIndexOf(batchStarts, pick.row);
    const slot = perBatch[b] as { rows: number[]; validTo: Cell[] };
    slot.rows.push(pick.row - (batchStarts[b] as number));
    if (pick.validTo !== undefined) slot.validTo.push(pick.validTo);
  }
  const out: RecordBatch[] = [];
  perBatch.forEach((slot, b) => {
    if (slot.rows.length === 0) return;
    const taken = projectTo(takeRows(batches[b] as RecordBatch, Int32Array.from(slot.rows)), dataSchema);
    out.push(slot.validTo.length > 0 ? withValidTo(taken, validToColumn, slot.validTo) : taken);
  });
  return out;
}

/** The batch holding a global row (binary search over the batches' first rows). */
function batchIndexOf(starts: readonly number[], row: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function batchOf(fields: readonly Field[], length: number, children: Data[]): RecordBatch {
  const data = makeData({ type: new Struct([...fields]), length, children, nullCount: 0 } as never);
  return new RecordBatch(new Schema([...fields]), data as never);
}
