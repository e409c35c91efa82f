/**
 * The three columns a change-data read adds to the table's: `_change_type` (insert, delete,
 * update_preimage, update_postimage), `_commit_version` (long) and `_commit_timestamp` (timestamp, UTC
 * microseconds) — their Delta and Arrow fields, and the table schema extended with them, which the filter
 * of `changes()` is resolved against.
 */
import { type DeltaSchema, type DeltaStructField, deltaFieldToArrow } from "@deltalite/delta-log";
import type { Field } from "apache-arrow";
import { CHANGE_TYPE_COLUMN } from "../write/change-data.js";

export const COMMIT_VERSION_COLUMN = "_commit_version";
export const COMMIT_TIMESTAMP_COLUMN = "_commit_timestamp";

/** The change columns, in output order (they follow the table's columns). */
export const CHANGE_COLUMNS: readonly string[] = [
  CHANGE_TYPE_COLUMN,
  COMMIT_VERSION_COLUMN,
  COMMIT_TIMESTAMP_COLUMN,
];

const CHANGE_DELTA_FIELDS: readonly DeltaStructField[] = [
  { name: CHANGE_TYPE_COLUMN, type: "string", nullable: true, metadata: {} },
  { name: COMMIT_VERSION_COLUMN, type: "long", nullable: true, metadata: {} },
  { name: COMMIT_TIMESTAMP_COLUMN, type: "timestamp", nullable: true, metadata: {} },
];

/** Arrow fields of the change columns, in output order. */
export const CHANGE_ARROW_FIELDS: readonly Field[] = CHANGE_DELTA_FIELDS.map((f) => deltaFieldToArrow(f));

/** The table's Delta schema with the change columns appended (what a change filter may name). */
export function withChangeColumns(schema: DeltaSchema): DeltaSchema {
  return { type: "struct", fields: [...schema.fields, ...CHANGE_DELTA_FIELDS] };
}
