/**
 * The batches of a change read: the change columns attached to rows read from one file (from the file for
 * a change-data file's `_change_type`, constants of the commit otherwise), the projection to the output
 * columns, and the check of the `columns` option.
 */
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import { constantData } from "@deltalite/parquet-stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import { CHANGE_TYPE_COLUMN } from "../write/change-data.js";
import { CHANGE_ARROW_FIELDS, CHANGE_COLUMNS } from "./change-columns.js";
import type { ChangeCommit, ChangeSource } from "./change-sources.js";

/** `read` (table fields, then `_change_type` for a cdc file) with all three change columns after the table's. */
export function attachChangeColumns(
  read: RecordBatch,
  tableCount: number,
  commit: ChangeCommit,
  source: ChangeSource,
): RecordBatch {
  const n = read.numRows;
  const [typeField, versionField, timestampField] = CHANGE_ARROW_FIELDS as [Field, Field, Field];
  const children = read.data.children.slice(0, tableCount) as Data[];
  const changeType =
    source.kind === "cdc"
      ? (read.data.children[tableCount] as Data)
      : constantData({ name: CHANGE_TYPE_COLUMN, type: typeField.type, value: source.kind }, n);
  const micros = commit.timestamp === null ? null : BigInt(commit.timestamp) * 1000n;
  children.push(
    changeType,
    constantData({ name: versionField.name, type: versionField.type, value: BigInt(commit.version) }, n),
    constantData({ name: timestampField.name, type: timestampField.type, value: micros }, n),
  );
  const fields = [...read.schema.fields.slice(0, tableCount), ...CHANGE_ARROW_FIELDS];
  return new RecordBatch(
    new Schema(fields),
    makeData({ type: new Struct(fields), length: n, nullCount: 0, children }),
  );
}

/** The output columns of `batch` (output table fields, then the change columns; filter-only ones dropped). */
export function project(
  batch: RecordBatch,
  plan: { schema: Schema; tableFields: readonly Field[]; outputTableCount: number },
): RecordBatch {
  const all = batch.data.children;
  const tableCount = plan.tableFields.length;
  const children = [...all.slice(0, plan.outputTableCount), ...all.slice(tableCount)];
  return new RecordBatch(
    plan.schema,
    makeData({ type: new Struct(plan.schema.fields), length: batch.numRows, nullCount: 0, children }),
  );
}

/** `invalid_argument` unless `columns` is a list of distinct table columns (change columns always come). */
export function checkColumns(columns: unknown, names: readonly string[], table: string): void {
  if (!Array.isArray(columns))
    throw new DeltaLiteInvalidArgumentError("changes columns must be a list of names");
  const seen = new Set<string>();
  for (const name of columns) {
    if (CHANGE_COLUMNS.includes(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `changes columns name "${name}", which every change row carries after the table's columns: leave it out`,
      );
    }
    if (!names.includes(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `changes asks for column "${name}", which table ${table} does not have${didYouMean(String(name), names)} (columns: ${names.join(", ")})`,
      );
    }
    if (seen.has(name)) throw new DeltaLiteInvalidArgumentError(`changes asks for column "${name}" twice`);
    seen.add(name);
  }
}
