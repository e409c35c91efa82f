/**
 * The upsert's `deleteColumn` at ingest: every source batch must carry it as a boolean column; its values
 * become one flag per row (1 = delete: true; 0 = upsert: false or NULL) and the column leaves the batch
 * before alignment (it is never written). Errors are kind `invalid_argument`, raised before anything is
 * written.
 */
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import { type Data, type RecordBatch, Schema, Type } from "apache-arrow";
import { batchOf } from "./source-batch.js";

/** The source without its delete column, and per batch the rows it flags. */
export interface SplitSource {
  batches: RecordBatch[];
  /** Per batch, per row: 1 when the row deletes. Undefined without a `deleteColumn`. */
  flags: Uint8Array[] | undefined;
}

/** Splits the delete flags off the source (see the module comment); the source as is without a column. */
export function splitDeleteFlags(
  batches: readonly RecordBatch[],
  deleteColumn: string | undefined,
  label: string,
): SplitSource {
  if (deleteColumn === undefined) return { batches: [...batches], flags: undefined };
  const out: RecordBatch[] = [];
  const flags: Uint8Array[] = [];
  for (const batch of batches) {
    const index = batch.schema.fields.findIndex((f) => f.name === deleteColumn);
    if (index < 0) {
      const names = batch.schema.fields.map((f) => f.name);
      throw new DeltaLiteInvalidArgumentError(
        `${label}: deleteColumn ${deleteColumn} is not a source column${didYouMean(deleteColumn, names)} (source columns: ${names.join(", ")})`,
      );
    }
    const field = batch.schema.fields[index]!;
    if (field.type.typeId !== Type.Bool) {
      throw new DeltaLiteInvalidArgumentError(
        `${label}: deleteColumn ${deleteColumn} must be a boolean column, but the source has it as ${String(field.type)}`,
      );
    }
    flags.push(flagsOf(batch.data.children[index] as Data, batch.numRows));
    const schema = new Schema(batch.schema.fields.filter((_, i) => i !== index));
    const children = batch.data.children.filter((_, i) => i !== index) as Data[];
    out.push(batchOf(schema, batch.numRows, children));
  }
  return { batches: out, flags };
}

/** 1 where the boolean column is true, 0 where it is false or NULL. */
function flagsOf(data: Data, rows: number): Uint8Array {
  const out = new Uint8Array(rows);
  const values = data.values as Uint8Array;
  const nulls = data.nullCount > 0 ? data.nullBitmap : undefined;
  const offset = data.offset;
  for (let i = 0; i < rows; i++) {
    const bit = offset + i;
    const valid = nulls === undefined || nulls.length === 0 || (nulls[bit >> 3]! & (1 << (bit & 7))) !== 0;
    out[i] = valid && (values[bit >> 3]! & (1 << (bit & 7))) !== 0 ? 1 : 0;
  }
  return out;
}
