/**
 * Splits a batch by the values of its partition columns: each group gets the typed partition values, their
 * `partitionValues` strings (as delta-rs serialises them) and the group's rows without the partition columns
 * (data files never store them). Values are read from the Arrow buffers directly, so int64, timestamps and
 * decimals stay exact.
 */
import { partitionScalarAt, partitionScalarReader, serializePartitionValue } from "@deltalite/delta-log";
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
  return partitionRows(batch, partitionColumns, deltaTypes).map(({ id, values, rows }) => {
    const contiguous = rows[rows.length - 1]! - rows[0]! === rows.length - 1;
    const selected = contiguous ? batch.slice(rows[0]!, rows[0]! + rows.length) : takeRows(batch, rows);
    return { id, values, batch: project(selected) };
  });
}

/** The rows of one partition value within a batch. */
export interface PartitionRows {
  /** Stable identity of the partition value (its serialised values joined), equal across batches. */
  id: string;
  /** The `partitionValues` strings as delta-rs serialises them (null for a NULL value). */
  values: Record<string, string | null>;
  /** Row indices into the batch, ascending. */
  rows: Int32Array;
}

/**
 * The one grouping of rows by partition value (first-seen order), for `write` and for the upsert's source:
 * values read from the Arrow buffers and serialised as delta-rs does. A missing partition column is
 * `schema_mismatch`.
 */
export function partitionRows(
  batch: RecordBatch,
  partitionColumns: readonly string[],
  deltaTypes: Readonly<Record<string, string>>,
): PartitionRows[] {
  const vectors = partitionColumns.map((name) => {
    const vector = batch.getChild(name);
    if (!vector) throw new DeltaLiteError("schema_mismatch", `the data lacks the partition column ${name}`);
    return vector;
  });
  const groups = new Map<string, Group>();
  // One partition column: a value already seen goes to its group without being serialised again (a 40k-row
  // batch by an 8-valued string column: 16.4 ms, 10.1 ms so; merge-engine BENCHMARKS.md, session 22).
  const seen = partitionColumns.length === 1 ? new Map<Memoizable, Group>() : undefined;
  const scalarAt =
    seen !== undefined && !FLOATING.has(deltaTypes[partitionColumns[0]!]!)
      ? partitionScalarReader(vectors[0]!)
      : undefined;
  for (let row = 0; row < batch.numRows; row++) {
    const scalar = scalarAt?.(row);
    const known = memoizable(scalar) ? seen?.get(scalar) : undefined;
    if (known) {
      known.rows.push(row);
      continue;
    }
    const values: Record<string, string | null> = {};
    let id = "";
    partitionColumns.forEach((name, c) => {
      const value = scalar !== undefined ? scalar : partitionScalarAt(vectors[c]!, row);
      const text = serializePartitionValue(value, deltaTypes[name]!);
      values[name] = text;
      id += text === null ? "\u0000N\u0001" : `\u0000V${text}\u0001`;
    });
    let group = groups.get(id);
    if (group) group.rows.push(row);
    else {
      group = { values, rows: [row] };
      groups.set(id, group);
    }
    if (memoizable(scalar)) seen?.set(scalar, group);
  }
  return [...groups].map(([id, g]) => ({ id, values: g.values, rows: Int32Array.from(g.rows) }));
}

type Group = { values: Record<string, string | null>; rows: number[] };

/** Partition scalars a Map key tells apart as their serialisations do (bytes are keyed by identity: never). */
type Memoizable = string | number | bigint | boolean;

/** Float types serialise -0 and 0 apart, which a Map key does not tell apart: never memoized. */
const FLOATING = new Set(["float", "double"]);

function memoizable(scalar: unknown): scalar is Memoizable {
  const kind = typeof scalar;
  return kind === "string" || kind === "number" || kind === "bigint" || kind === "boolean";
}

/** The table schema minus the partition columns: the schema of data files. */
export function dataFileSchema(schema: Schema, partitionColumns: readonly string[]): Schema {
  const partitions = new Set(partitionColumns);
  return new Schema(
    schema.fields.filter((f) => !partitions.has(f.name)),
    schema.metadata,
  );
}
