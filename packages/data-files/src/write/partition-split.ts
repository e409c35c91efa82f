/**
 * Splits a batch by the values of its partition columns: each group gets the typed partition values, their
 * `partitionValues` strings (as delta-rs serialises them) and the group's rows without the partition columns
 * (data files never store them). Values are read from the Arrow buffers directly, so int64, timestamps and
 * decimals stay exact.
 */
import { partitionScalarAt, serializePartitionValue } from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { takeRows } from "@deltalite/parquet-stream";
import { makeData, RecordBatch, Schema, Struct } from "apache-arrow";

export interface PartitionGroup {
  /** Stable identity of the partition (its serialised values joined). */
  id: string;
  values: Record<string, string | null>;
  batch: RecordBatch;
}

/**
 * Groups the rows of `batch` by partition (first-seen order). `deltaTypes` gives each partition column's
 * Delta primitive type; `dataSchema` is the table schema without the partition columns.
 */
export function splitByPartition(
  batch: RecordBatch,
  partitionColumns: readonly string[],
  deltaTypes: Readonly<Record<string, string>>,
  dataSchema: Schema,
): PartitionGroup[] {
  const dataIndexes = dataSchema.fields.map((f) => batch.schema.fields.findIndex((g) => g.name === f.name));
  const project = (b: RecordBatch) => {
    const children = dataIndexes.map((i) => b.data.children[i]!);
    const data = makeData({
      type: new Struct(dataSchema.fields),
      length: b.numRows,
      children,
      nullCount: 0,
    } as never);
    return new RecordBatch(dataSchema, data as never);
  };
  if (partitionColumns.length === 0) return [{ id: "", values: {}, batch: project(batch) }];
  const vectors = partitionColumns.map((name) => {
    const vector = batch.getChild(name);
    if (!vector) throw new DeltaLiteError("schema_mismatch", `the data lacks the partition column ${name}`);
    return vector;
  });
  const groups = new Map<string, { values: Record<string, string | null>; rows: number[] }>();
  for (let row = 0; row < batch.numRows; row++) {
    const values: Record<string, string | null> = {};
    let id = "";
    partitionColumns.forEach((name, c) => {
      const text = serializePartitionValue(partitionScalarAt(vectors[c]!, row), deltaTypes[name]!);
      values[name] = text;
      id += text === null ? "\u0000N\u0001" : `\u0000V${text}\u0001`;
    });
    const group = groups.get(id);
    if (group) group.rows.push(row);
    else groups.set(id, { values, rows: [row] });
  }
  const out: PartitionGroup[] = [];
  for (const [id, group] of groups) {
    const rows = group.rows;
    const contiguous = rows[rows.length - 1]! - rows[0]! === rows.length - 1;
    const selected = contiguous
      ? batch.slice(rows[0]!, rows[0]! + rows.length)
      : takeRows(batch, Int32Array.from(rows));
    out.push({ id, values: group.values, batch: project(selected) });
  }
  return out;
}

/** The table schema minus the partition columns: the schema of data files. */
export function dataFileSchema(schema: Schema, partitionColumns: readonly string[]): Schema {
  const partitions = new Set(partitionColumns);
  return new Schema(
    schema.fields.filter((f) => !partitions.has(f.name)),
    schema.metadata,
  );
}
