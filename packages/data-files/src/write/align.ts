/**
 * Fits incoming batches to a table schema — the one alignment every engine uses (write, upsert, …):
 * columns matched by name and reordered to the table's order; a column the table lacks is a
 * `DeltaLiteSchemaMismatchError` naming it; table columns the data lacks are null-filled (a non-nullable
 * one is refused — the upsert relaxes such columns first, see `columnsToRelax` / `withNullable`); every
 * other column is cast to the table's type where the cast is exact for every value (`cast.ts`), else a
 * schema mismatch naming the column (and, for a value, its row in the batch). Empty batches are checked by
 * name and type and come out empty in the table's schema.
 */
import { DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import { nullData } from "@deltalite/parquet-stream";
import { type Data, Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import { type ColumnCast, hasNulls, InexactValue, planCast } from "./cast.js";

/** How messages name the incoming rows: each caller keeps its own words. */
export interface AlignWording {
  /** `data` (write) or `source` (upsert): "the data has columns …", "column x is … in the source …". */
  noun: string;
  /** Appended in parentheses to the "has columns the table does not" message (e.g. how to add them). */
  extraColumnsHint?: string | undefined;
}

interface ColumnPlan {
  field: Field;
  /** The source column index, or -1 to null-fill. */
  index: number;
  cast: ColumnCast;
}

export interface SchemaPlan {
  /** The schema the plan was made for; a batch with another schema is planned anew. */
  source: Schema;
  target: Schema;
  columns: readonly ColumnPlan[];
  label: string;
  wording: AlignWording;
}

const keep: ColumnCast = (data) => data;

/** Checks `source` against `target` once (names, nullability of missing columns, castable types). */
export function planAlignment(
  source: Schema,
  target: Schema,
  label: string,
  wording: AlignWording,
): SchemaPlan {
  const byName = new Map(source.fields.map((f, i) => [f.name, i]));
  const targetNames = new Set(target.fields.map((f) => f.name));
  const extra = source.fields.filter((f) => !targetNames.has(f.name)).map((f) => f.name);
  if (extra.length > 0) {
    const hint = wording.extraColumnsHint ? ` (${wording.extraColumnsHint})` : "";
    throw new DeltaLiteSchemaMismatchError(
      `${label}: the ${wording.noun} has columns the table does not: ${extra.join(", ")}${hint}`,
    );
  }
  const columns = target.fields.map((field): ColumnPlan => {
    const index = byName.get(field.name);
    if (index === undefined) {
      if (!field.nullable) {
        throw new DeltaLiteSchemaMismatchError(
          `${label}: the ${wording.noun} lacks the non-nullable column ${field.name}`,
        );
      }
      return { field, index: -1, cast: keep };
    }
    const sourceType = source.fields[index]!.type;
    const cast = planCast(sourceType, field.type);
    if (!cast) {
      throw new DeltaLiteSchemaMismatchError(
        `${label}: column ${field.name} is ${String(sourceType)} in the ${wording.noun} but ${String(field.type)} in the table`,
      );
    }
    return { field, index, cast };
  });
  return { source, target, columns, label, wording };
}

/** Applies a plan to one batch (planning anew when the batch's schema is not the plan's). */
export function alignBatch(batch: RecordBatch, plan: SchemaPlan): RecordBatch {
  const p =
    batch.schema === plan.source ? plan : planAlignment(batch.schema, plan.target, plan.label, plan.wording);
  const length = batch.numRows;
  const children = p.columns.map(({ field, index, cast }) => {
    if (index < 0 || length === 0) return nullData(field.type, length);
    const data = castColumn(batch.data.children[index] as Data, field, cast, p);
    if (!field.nullable && data.nullCount > 0) {
      throw new DeltaLiteSchemaMismatchError(
        `${p.label}: column ${field.name} is not nullable but the ${p.wording.noun} has ${data.nullCount} nulls`,
      );
    }
    return data;
  });
  const data = makeData({ type: new Struct(p.target.fields), length, children, nullCount: 0 } as never);
  return new RecordBatch(p.target, data as never);
}

function castColumn(data: Data, field: Field, cast: ColumnCast, plan: SchemaPlan): Data {
  try {
    return cast(data);
  } catch (error) {
    if (!(error instanceof InexactValue)) throw error;
    const where =
      error.row === undefined
        ? `the ${plan.wording.noun} holds ${error.value}`
        : `row ${error.row} of the ${plan.wording.noun} batch holds ${error.value}`;
    throw new DeltaLiteSchemaMismatchError(
      `${plan.label}: column ${field.name}: ${where}, which does not convert exactly from ${String(data.type)} to ${String(field.type)}`,
    );
  }
}

/** Plans and aligns one batch (for callers whose batches may each have another schema). */
export function alignToTable(
  batch: RecordBatch,
  target: Schema,
  label: string,
  wording: AlignWording,
): RecordBatch {
  return alignBatch(batch, planAlignment(batch.schema, target, label, wording));
}

// ---------------------------------------------------------------------------------------------------
// Relax-nullability analysis

/**
 * Non-nullable table columns the batches would put a NULL into (a column a non-empty batch lacks, or
 * NULLs in it — a dictionary's NULL values included): the upsert relaxes them to nullable before writing.
 */
export function columnsToRelax(batches: readonly RecordBatch[], table: Schema): string[] {
  const out: string[] = [];
  for (const field of table.fields) {
    if (field.nullable) continue;
    const needs = batches.some((batch) => {
      if (batch.numRows === 0) return false;
      const index = batch.schema.fields.findIndex((f) => f.name === field.name);
      return index < 0 || hasNulls(batch.data.children[index] as Data);
    });
    if (needs) out.push(field.name);
  }
  return out;
}

/** The schema with the named fields made nullable. */
export function withNullable(schema: Schema, names: readonly string[]): Schema {
  if (names.length === 0) return schema;
  const relax = new Set(names);
  return new Schema(
    schema.fields.map((f) => (relax.has(f.name) ? new Field(f.name, f.type, true, f.metadata) : f)),
    schema.metadata,
  );
}
