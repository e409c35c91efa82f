/**
 * The upsert's source, held in memory (it is the small side) once aligned to the table schema by
 * @deltalite/data-files (`alignToTable`, `columnsToRelax`): rows grouped by partition value with
 * data-files' `partitionRows` (a NULL partition value is an error), each partition's primary-key set built and checked for duplicates, and
 * each partition's rows projected to the data-file schema (taken when first read) — all before anything is
 * written. With
 * `missingColumns: "keep"` each partition batch also carries the columns its source batch lacked (the
 * rewrite fills them from the target rows it replaces, fill-from-target.ts).
 */
import { type PartitionRows, partitionRows } from "@deltalite/data-files";
import { DeltaLiteError } from "@deltalite/errors";
import { takeRows } from "@deltalite/parquet-stream";
import { type Data, makeData, RecordBatch, type Schema, Struct } from "apache-arrow";
import { type EncodedKeys, encodeKeys } from "../keys/encode-keys.js";
import type { KeyHasher } from "../keys/key-hasher.js";
import { SourceKeySet } from "../keys/source-key-set.js";

/** The source rows of one partition. */
export interface SourcePartition {
  /** Serialised partition values (`{}` for an unpartitioned table). */
  values: Record<string, string | null>;
  /** Human-readable name for messages (`day=2026-01-01`, or `(unpartitioned)`). */
  label: string;
  /**
   * Batches of the partition's rows in the data-file schema (partition column dropped): taken from the
   * source batches when first read (by the partition's rewrite), not while the call plans. In a cold recent
   * 1M upsert the eight takes were ~24 ms of the main thread before the first probe could start
   * (merge-engine BENCHMARKS.md, session 31).
   */
  readonly batches: RecordBatch[];
  /** Per batch: the aligned source batch (table schema) its rows are taken from, at `sourceRows`. */
  sources: RecordBatch[];
  /** Built over the partition's rows, part b over `batches[b]`'s rows in order (`SourceKeySet.entriesOf`). */
  keys: SourceKeySet;
  rows: number;
  /**
   * Per batch: the rows of its source batch it holds, ascending (the key set's entries name source-batch
   * rows; this maps them to rows of `batches`).
   */
  sourceRows: Int32Array[];
  /**
   * Per batch: the data-file columns its source batch lacked, which a replaced row takes from the target
   * row it replaces (`missingColumns: "keep"`). Absent when no batch of the partition lacks one: source
   * rows then replace target rows whole.
   */
  keepFromTarget?: (readonly string[])[] | undefined;
  /** The partition's delete rows (`deleteColumn`); absent when it has none. */
  deletes?: PartitionDeletes | undefined;
}

/** Which source rows of a partition delete (`UpsertOptions.deleteColumn`). */
export interface PartitionDeletes {
  /** Per batch of `batches`, per row: 1 when the row deletes (it is never written). */
  rows: Uint8Array[];
  /** Per key-set entry: 1 when its source row deletes. */
  entries: Uint8Array;
  /** Delete rows in the partition (NULL-key ones included). */
  count: number;
}

/** A batch of `schema` over the given column data (all of `length` rows). */
export function batchOf(schema: Schema, length: number, children: Data[]): RecordBatch {
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
  /** Per batch of `batches`: the data-file columns to keep from replaced target rows (`"keep"` only). */
  keepFromTarget?: readonly (readonly string[])[] | undefined;
  /** Per batch of `batches`, per row: 1 when the row deletes (`deleteColumn` only). */
  deleteFlags?: readonly Uint8Array[] | undefined;
}

/** Groups the (aligned) source by partition and builds each partition's key set; throws on duplicates. */
export function planSource(input: SourcePlanInput): SourcePartition[] {
  const groups = new Map<
    string,
    {
      values: Record<string, string | null>;
      label: string;
      parts: {
        batch: RecordBatch;
        keys: EncodedKeys;
        rows: Int32Array;
        keep: readonly string[];
        flags: Uint8Array | undefined;
      }[];
    }
  >();
  for (const [index, batch] of input.batches.entries()) {
    if (batch.numRows === 0) continue;
    const keep = input.keepFromTarget?.[index] ?? [];
    const flags = input.deleteFlags?.[index];
    const keys = encodeKeys(batch, input.fileKeys, { hasher: input.hasher });
    for (const { id, values, rows } of sourceRowsByPartition(batch, input)) {
      let group = groups.get(id);
      if (!group) {
        const column = input.partitionColumn;
        group = {
          values,
          label: column === undefined ? "(unpartitioned)" : `${column}=${values[column]}`,
          parts: [],
        };
        groups.set(id, group);
      }
      group.parts.push({ batch, keys, rows, keep, flags });
    }
  }
  const out: SourcePartition[] = [];
  for (const group of groups.values()) {
    const keys = SourceKeySet.build(group.parts.map((p) => ({ keys: p.keys, rows: p.rows })));
    keys.assertNoDuplicates(group.label);
    const parts = group.parts;
    let batches: RecordBatch[] | undefined;
    const keepFromTarget = group.parts.some((p) => p.keep.length > 0)
      ? group.parts.map((p) => p.keep)
      : undefined;
    const deletes = partitionDeletes(group.parts, keys);
    out.push({
      values: group.values,
      label: group.label,
      get batches() {
        batches ??= parts.map((p) => {
          const selected = p.rows.length === p.batch.numRows ? p.batch : takeRows(p.batch, p.rows);
          return projectTo(selected, input.dataSchema);
        });
        return batches;
      },
      sources: parts.map((p) => p.batch),
      keys,
      rows: group.parts.reduce((n, p) => n + p.rows.length, 0),
      sourceRows: group.parts.map((p) => p.rows),
      ...(keepFromTarget ? { keepFromTarget } : {}),
      ...(deletes ? { deletes } : {}),
    });
  }
  return out;
}

/** The partition's delete rows per batch row and per key-set entry; undefined when it has none. */
function partitionDeletes(
  parts: readonly { rows: Int32Array; flags: Uint8Array | undefined }[],
  keys: SourceKeySet,
): PartitionDeletes | undefined {
  let count = 0;
  const rows = parts.map((p) => {
    const out = new Uint8Array(p.rows.length);
    if (p.flags)
      for (let k = 0; k < p.rows.length; k++) count += out[k] = p.flags[p.rows[k] as number] as number;
    return out;
  });
  if (count === 0) return undefined;
  const entries = new Uint8Array(keys.size);
  for (let e = 0; e < keys.size; e++) {
    const { part, row } = keys.entrySource(e);
    entries[e] = parts[part]!.flags?.[row] ?? 0;
  }
  return { rows, entries, count };
}

/** The batch's rows by partition value (data-files' one grouping); a NULL partition value is refused. */
function sourceRowsByPartition(batch: RecordBatch, input: SourcePlanInput): PartitionRows[] {
  const column = input.partitionColumn;
  if (column === undefined) {
    return [{ id: "", values: {}, rows: Int32Array.from({ length: batch.numRows }, (_, i) => i) }];
  }
  const groups = partitionRows(batch, [column], { [column]: input.partitionType as string });
  for (const group of groups) {
    if (group.values[column] === null) {
      throw new DeltaLiteError(
        "generic",
        `${input.label}: source row ${group.rows[0]} has a NULL value in partition column ${column}; upsert needs a partition value for every row`,
      );
    }
  }
  return groups;
}
