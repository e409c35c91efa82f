/**
 * The upsert's source, validated and held in memory (it is the small side): every batch fitted to the table
 * schema by name (extra columns and type differences are `DeltaLiteSchemaMismatchError`, missing columns
 * null-filled — non-nullable ones the upsert relaxes first, see `columnsToRelax`), rows grouped by
 * partition value (a NULL partition value is an error), and each partition's primary-key set built and
 * checked for duplicates — all before anything is written.
 */
import { arrowTypeToDelta, partitionScalarAt, serializePartitionValue } from "@deltalite/delta-log";
import { DeltaLiteError, DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import { takeRows } from "@deltalite/parquet-stream";
import {
  type Data,
  type DataType,
  type Field,
  Field as FieldClass,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  type Vector,
  vectorFromArray,
} from "apache-arrow";
import { type EncodedKeys, encodeKeys } from "../keys/encode-keys.js";
import type { KeyHasher } from "../keys/key-hasher.js";
import { SourceKeySet } from "../keys/source-key-set.js";

/** The source rows of one partition. */
export interface SourcePartition {
  /** Serialised partition values (`{}` for an unpartitioned table). */
  values: Record<string, string | null>;
  /** Human-readable name for messages (`day=2026-01-01`, or `(unpartitioned)`). */
  label: string;
  /** Batches of the partition's rows in the data-file schema (partition column dropped). */
  batches: RecordBatch[];
  keys: SourceKeySet;
  rows: number;
}

const deltaTypeOf = (field: Field) => JSON.stringify(arrowTypeToDelta(field.type, field.name));

/**
 * Non-nullable table columns the source would put a NULL into (a column it lacks, or nulls in it): the
 * upsert relaxes them to nullable before writing (`columnsRelaxed`).
 */
export function columnsToRelax(batches: readonly RecordBatch[], table: Schema): string[] {
  const out: string[] = [];
  for (const field of table.fields) {
    if (field.nullable) continue;
    const needs = batches.some((batch) => {
      if (batch.numRows === 0) return false;
      const index = batch.schema.fields.findIndex((f) => f.name === field.name);
      return index < 0 || (batch.data.children[index] as Data).nullCount > 0;
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
    schema.fields.map((f) => (relax.has(f.name) ? new FieldClass(f.name, f.type, true, f.metadata) : f)),
    schema.metadata,
  );
}

/** Fits one source batch to the table schema (see module comment). */
export function alignToTable(batch: RecordBatch, table: Schema, label: string): RecordBatch {
  const names = new Set(table.fields.map((f) => f.name));
  const extra = batch.schema.fields.filter((f) => !names.has(f.name)).map((f) => f.name);
  if (extra.length > 0) {
    throw new DeltaLiteSchemaMismatchError(
      `${label}: the source has columns the table does not: ${extra.join(", ")}`,
    );
  }
  const children = table.fields.map((field) => {
    const index = batch.schema.fields.findIndex((f) => f.name === field.name);
    if (index < 0) {
      if (!field.nullable) {
        throw new DeltaLiteSchemaMismatchError(
          `${label}: the source lacks the non-nullable column ${field.name}`,
        );
      }
      if (batch.numRows === 0) return undefined;
      return vectorFromArray(new Array(batch.numRows).fill(null), field.type).data[0] as Data;
    }
    const sourceField = batch.schema.fields[index] as Field;
    if (deltaTypeOf(sourceField) !== deltaTypeOf(field) || sourceField.type.typeId !== field.type.typeId) {
      throw new DeltaLiteSchemaMismatchError(
        `${label}: column ${field.name} is ${String(sourceField.type)} in the source but ${String(field.type)} in the table`,
      );
    }
    if (batch.numRows === 0) return undefined; // names and types are checked; there is no data
    let data = batch.data.children[index] as Data;
    if (String(data.type) !== String(field.type)) {
      if (!sameStorage(data.type, field.type)) {
        throw new DeltaLiteSchemaMismatchError(
          `${label}: column ${field.name} is ${String(sourceField.type)} in the source but ${String(field.type)} in the table`,
        );
      }
      data = data.clone(field.type) as Data; // e.g. a timestamp time zone spelt differently: same values
    }
    if (!field.nullable && data.nullCount > 0) {
      throw new DeltaLiteSchemaMismatchError(
        `${label}: column ${field.name} is not nullable but the source has ${data.nullCount} nulls`,
      );
    }
    return data;
  });
  if (batch.numRows === 0) return batch; // checked; an empty batch carries nothing to align
  return batchOf(table, batch.numRows, children as Data[]);
}

/** Same physical values under both types (only names such as a time zone's spelling may differ). */
function sameStorage(a: DataType, b: DataType): boolean {
  if (a.typeId !== b.typeId) return false;
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  for (const key of ["unit", "bitWidth", "isSigned", "precision", "scale", "byteWidth"]) {
    if (x[key] !== y[key]) return false;
  }
  // Nested types must match exactly.
  return (a.children?.length ?? 0) === 0 && (b.children?.length ?? 0) === 0;
}

function batchOf(schema: Schema, length: number, children: Data[]): RecordBatch {
  const data = makeData({ type: new Struct(schema.fields), length, children, nullCount: 0 } as never);
  return new RecordBatch(schema, data as never);
}

/** Keeps the columns of `schema` (by name) of a batch already in table order. */
export function projectTo(batch: RecordBatch, schema: Schema): RecordBatch {
  const children = schema.fields.map((f) => {
    const index = batch.schema.fields.findIndex((g) => g.name === f.name);
    return batch.data.children[index] as Data;
  });
  return batchOf(schema, batch.numRows, children);
}

export interface SourcePlanInput {
  batches: readonly RecordBatch[];
  tableSchema: Schema;
  dataSchema: Schema;
  partitionColumn: string | undefined;
  partitionType: string | undefined;
  /** Key columns as stored in data files (the partition column removed). */
  fileKeys: readonly string[];
  label: string;
  /** The key hash (default XXH64; tests force collisions with another). */
  hasher?: KeyHasher | undefined;
}

/** Groups the (aligned) source by partition and builds each partition's key set; throws on duplicates. */
export function planSource(input: SourcePlanInput): SourcePartition[] {
  const groups = new Map<
    string,
    {
      values: Record<string, string | null>;
      label: string;
      parts: { batch: RecordBatch; keys: EncodedKeys; rows: Int32Array }[];
    }
  >();
  for (const batch of input.batches) {
    if (batch.numRows === 0) continue;
    const keys = encodeKeys(batch, input.fileKeys, { hasher: input.hasher });
    const byValue = new Map<string, number[]>();
    if (input.partitionColumn === undefined) {
      byValue.set(
        "",
        Array.from({ length: batch.numRows }, (_, i) => i),
      );
    } else {
      const vector = batch.getChild(input.partitionColumn) as Vector;
      for (let row = 0; row < batch.numRows; row++) {
        const text = serializePartitionValue(partitionScalarAt(vector, row), input.partitionType as never);
        if (text === null) {
          throw new DeltaLiteError(
            "generic",
            `${input.label}: source row ${row} has a NULL value in partition column ${input.partitionColumn}; upsert needs a partition value for every row`,
          );
        }
        const rows = byValue.get(text);
        if (rows) rows.push(row);
        else byValue.set(text, [row]);
      }
    }
    for (const [text, rows] of byValue) {
      let group = groups.get(text);
      if (!group) {
        const column = input.partitionColumn;
        group = {
          values: column === undefined ? {} : { [column]: text },
          label: column === undefined ? "(unpartitioned)" : `${column}=${text}`,
          parts: [],
        };
        groups.set(text, group);
      }
      group.parts.push({ batch, keys, rows: Int32Array.from(rows) });
    }
  }
  const out: SourcePartition[] = [];
  for (const group of groups.values()) {
    const keys = SourceKeySet.build(group.parts.map((p) => ({ keys: p.keys, rows: p.rows })));
    keys.assertNoDuplicates(group.label);
    const batches = group.parts.map((p) => {
      const selected = p.rows.length === p.batch.numRows ? p.batch : takeRows(p.batch, p.rows);
      return projectTo(selected, input.dataSchema);
    });
    out.push({
      values: group.values,
      label: group.label,
      batches,
      keys,
      rows: group.parts.reduce((n, p) => n + p.rows.length, 0),
    });
  }
  return out;
}
