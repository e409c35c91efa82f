/**
 * Fits incoming batches to the table schema by column name: columns are reordered to the table's order,
 * table columns the data lacks are null-filled (only when nullable), and a column the table does not have,
 * or a type that differs from the table's, is a `DeltaLiteSchemaMismatchError` naming the column. Types are
 * compared as Delta types; values are never silently converted.
 */
import { arrowTypeToDelta } from "@deltalite/delta-log";
import { DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import { type Field, makeData, RecordBatch, type Schema, Struct, vectorFromArray } from "apache-arrow";

export interface SchemaPlan {
  /** For each table field: the source column index, or -1 to null-fill. */
  sourceIndex: number[];
  target: Schema;
}

const deltaType = (field: Field) => JSON.stringify(arrowTypeToDelta(field.type, field.name));

/** Checks `source` against `target` once; the plan then aligns every batch cheaply. */
export function planAlignment(source: Schema, target: Schema, table: string): SchemaPlan {
  const byName = new Map(source.fields.map((f, i) => [f.name, i]));
  const targetNames = new Set(target.fields.map((f) => f.name));
  const extra = source.fields.filter((f) => !targetNames.has(f.name)).map((f) => f.name);
  if (extra.length > 0) {
    throw new DeltaLiteSchemaMismatchError(
      `${table}: the data has columns the table does not: ${extra.join(", ")} (add them with schemaMode "merge")`,
    );
  }
  const sourceIndex = target.fields.map((field) => {
    const index = byName.get(field.name);
    if (index === undefined) {
      if (!field.nullable) {
        throw new DeltaLiteSchemaMismatchError(
          `${table}: the data lacks the non-nullable column ${field.name}`,
        );
      }
      return -1;
    }
    const sourceField = source.fields[index]!;
    if (deltaType(sourceField) !== deltaType(field) || sourceField.type.typeId !== field.type.typeId) {
      throw new DeltaLiteSchemaMismatchError(
        `${table}: column ${field.name} is ${String(sourceField.type)} in the data but ${String(field.type)} in the table`,
      );
    }
    return index;
  });
  return { sourceIndex, target };
}

/** Applies a plan to one batch. Nulls in a non-nullable table column are a schema mismatch. */
export function alignBatch(batch: RecordBatch, plan: SchemaPlan, table: string): RecordBatch {
  const children = plan.target.fields.map((field, i) => {
    const index = plan.sourceIndex[i]!;
    // A column the data lacks: all nulls (built once per batch; Arrow's builders handle every type).
    if (index < 0) return vectorFromArray(new Array(batch.numRows).fill(null), field.type).data[0]!;
    const data = batch.data.children[index]!;
    if (!field.nullable && data.nullCount > 0) {
      throw new DeltaLiteSchemaMismatchError(
        `${table}: column ${field.name} is not nullable but the data has ${data.nullCount} nulls`,
      );
    }
    return data;
  });
  const data = makeData({
    type: new Struct(plan.target.fields),
    length: batch.numRows,
    children,
    nullCount: 0,
  } as never);
  return new RecordBatch(plan.target, data as never);
}
