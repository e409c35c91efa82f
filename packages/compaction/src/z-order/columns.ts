/**
 * The `columns` argument of `zOrder` checked against the table before anything is read: a non-empty array of
 * distinct names, each a top-level column of the table (else a "did you mean"), none a partition column (as
 * delta-rs refuses them), each of a type the Z-order key normalises (numbers, booleans, dates, timestamps,
 * decimals, strings, binaries). Every failure is `invalid_argument`. Returns the columns' positions in the
 * data-file schema.
 */
import type { Snapshot } from "@deltalite/delta-log";
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import type { Schema } from "apache-arrow";
import { zOrderable } from "./z-key.js";

export function resolveZOrderColumns(snapshot: Snapshot, columns: unknown, dataSchema: Schema): number[] {
  const table = snapshot.table;
  if (!Array.isArray(columns) || columns.length === 0 || columns.some((c) => typeof c !== "string")) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: Z-order needs a non-empty array of column names (got ${JSON.stringify(columns)})`,
    );
  }
  const names = columns as string[];
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate !== undefined) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: Z-order column ${JSON.stringify(duplicate)} is named twice`,
    );
  }
  const tableColumns = snapshot.schema.fields.map((f) => f.name);
  return names.map((name) => {
    if (snapshot.partitionColumns.includes(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: Z-order columns cannot be partition columns (${JSON.stringify(name)} is one); files are z-ordered within each partition`,
      );
    }
    const index = dataSchema.fields.findIndex((f) => f.name === name);
    if (index < 0) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: unknown Z-order column ${JSON.stringify(name)}${didYouMean(name, tableColumns)}`,
      );
    }
    const type = dataSchema.fields[index]!.type;
    if (!zOrderable(type.typeId)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: Z-order column ${JSON.stringify(name)} has type ${String(type)}, which has no Z-order key (numbers, booleans, dates, timestamps, decimals, strings and binaries do)`,
      );
    }
    return index;
  });
}
