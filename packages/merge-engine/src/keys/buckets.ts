/**
 * Owns `tableKeyBuckets`: the bucket ids of `keyBuckets` for data bound for one table. The arguments are
 * checked (kind `invalid_argument`; a key column the table lacks gets "did you mean"), the key columns are
 * cast to the table's types by data-files' one alignment — so source values that become one table key
 * share a bucket (an int32 7 and an int64 7, a float64 7.0 bound for a long column, a millisecond and a
 * microsecond timestamp of one instant) — and then hashed by the one key encoding and hasher
 * (`keyBuckets`: null-safe canonical row bytes, XXH64 under the fixed seed, modulo n). A value that does not
 * cast exactly is a schema mismatch naming it. Ids are the same in every process of one build; they are
 * not meant to be persisted across releases.
 */
import { ArrowAdopter, alignToTable, isArrowSchema } from "@deltalite/data-files";
import { DeltaLiteInvalidArgumentError, DeltaLiteSchemaMismatchError, didYouMean } from "@deltalite/errors";
import {
  Schema as ArrowSchema,
  type Data,
  Field,
  makeData,
  RecordBatch,
  type Schema,
  Struct,
  type Table,
} from "apache-arrow";
import { keyBuckets } from "./key-buckets.js";

const MAX_BUCKETS = 0xffffffff;

/**
 * Bucket ids (0 ≤ id < n) of every row of `data` (a RecordBatch or Table, of any apache-arrow copy) by its
 * key in `keyColumns`, after the key columns are cast to their types in `table`. `label` names the table
 * in messages.
 */
export function tableKeyBuckets(
  table: Schema,
  data: RecordBatch | Table,
  keyColumns: readonly string[],
  n: number,
  label: string,
): Uint32Array {
  checkBucketCount(n, label);
  const keySchema = keyColumnsOf(table, keyColumns, label);
  const batches = batchesOf(data, label);
  const out = new Uint32Array(batches.reduce((sum, b) => sum + b.numRows, 0));
  let at = 0;
  for (const batch of batches) {
    const keys = alignToTable(projectKeys(batch, keySchema, label), keySchema, label, { noun: "data" });
    out.set(keyBuckets(keys, keyColumns, n), at);
    at += batch.numRows;
  }
  return out;
}

function checkBucketCount(n: unknown, label: string): void {
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 1 && n <= MAX_BUCKETS) return;
  throw new DeltaLiteInvalidArgumentError(
    `${label}: keyBuckets needs a bucket count n that is an integer from 1 to ${MAX_BUCKETS} (got ${String(n)})`,
  );
}

/** The table's key fields (made nullable: NULL key parts are bucketed, null-safely). */
function keyColumnsOf(table: Schema, keyColumns: readonly string[], label: string): Schema {
  const names: unknown = keyColumns;
  const isName = (c: unknown) => typeof c === "string" && c !== "";
  if (!Array.isArray(names) || names.length === 0 || !names.every(isName)) {
    throw new DeltaLiteInvalidArgumentError(
      `${label}: keyBuckets needs a non-empty list of key column names (got ${JSON.stringify(names)})`,
    );
  }
  if (new Set(names).size !== names.length) {
    throw new DeltaLiteInvalidArgumentError(
      `${label}: keyBuckets key columns must be distinct (got ${JSON.stringify(names)})`,
    );
  }
  const columns = table.fields.map((f) => f.name);
  const fields = keyColumns.map((name) => {
    const field = table.fields.find((f) => f.name === name);
    if (field === undefined) {
      throw new DeltaLiteInvalidArgumentError(
        `${label}: keyBuckets key column ${name} is not a column of the table${didYouMean(name, columns)}`,
      );
    }
    return new Field(field.name, field.type, true, field.metadata);
  });
  return new ArrowSchema(fields);
}

/** `data` as our RecordBatches (a foreign apache-arrow's adopted without copying). */
function batchesOf(data: RecordBatch | Table, label: string): RecordBatch[] {
  const adopter = new ArrowAdopter();
  const shape = data as { batches?: unknown; schema?: unknown; numRows?: unknown };
  if (typeof shape === "object" && shape !== null && isArrowSchema(shape.schema)) {
    if (Array.isArray(shape.batches))
      return shape.batches.map((b) => adopter.batch(b, "a batch of the data"));
    if (typeof shape.numRows === "number") return [adopter.batch(data as RecordBatch, "the data")];
  }
  throw new DeltaLiteInvalidArgumentError(
    `${label}: keyBuckets takes an apache-arrow RecordBatch or Table (got ${typeof data === "object" ? String(data) : typeof data})`,
  );
}

/** The batch's key columns in key order (missing ones are a schema mismatch naming them). */
function projectKeys(batch: RecordBatch, keySchema: Schema, label: string): RecordBatch {
  const present = batch.schema.fields.map((f) => f.name);
  const fields: Field[] = [];
  const children: Data[] = [];
  for (const key of keySchema.fields) {
    const index = present.indexOf(key.name);
    if (index < 0) {
      throw new DeltaLiteSchemaMismatchError(
        `${label}: the data lacks the key column ${key.name}${didYouMean(key.name, present)}`,
      );
    }
    const field = batch.schema.fields[index] as Field;
    fields.push(new Field(field.name, field.type, true, field.metadata));
    children.push(batch.data.children[index] as Data);
  }
  const length = batch.numRows;
  const data = makeData({ type: new Struct(fields), length, children, nullCount: 0 } as never);
  return new RecordBatch(new ArrowSchema(fields), data as never);
}
