/**
 * The upsert's source, taken in and validated before anything is written: collected into memory under the
 * `maxSourceBytes` guard (it is the small side), every primary-key column present, the non-nullable table
 * columns it would put a NULL into found (they are relaxed first), the columns each batch lacks judged
 * by `missingColumns` (missing-columns.ts), the `deleteColumn` split off as per-row flags (delete-flags.ts;
 * the relax analysis still sees the delete rows' values), each batch aligned and cast to the table, and the rows grouped
 * by partition with each partition's key set (duplicates refused).
 */
import { alignToTable, columnsToRelax, peekBatches, withNullable } from "@deltalite/data-files";
import type { Snapshot } from "@deltalite/delta-log";
import { DeltaLiteSchemaMismatchError, DeltaLiteSourceTooLargeError } from "@deltalite/errors";
import type { Data, RecordBatch, Table } from "apache-arrow";
import { splitDeleteFlags } from "./delete-flags.js";
import type { InternalUpsertOptions } from "./hooks.js";
import { columnsToKeep } from "./missing-columns.js";
import { checkAborted, type TableShape } from "./shape.js";
import { planSource, type SourcePartition } from "./source-batch.js";

export type UpsertSource = Table | RecordBatch | AsyncIterable<RecordBatch> | Iterable<RecordBatch>;

/** Default of `maxSourceBytes` (2 GiB, as the original deltalite; the table layer may take it from DELTALITE_MAX_SOURCE_BYTES). */
export const DEFAULT_MAX_SOURCE_BYTES = 2 * 1024 ** 3;

/** Bytes of the Arrow buffers of one batch (what the source guard counts). */
export function batchBytes(batch: RecordBatch): number {
  const walk = (data: Data): number =>
    [data.values, data.valueOffsets, data.nullBitmap, data.typeIds].reduce(
      (n: number, b: ArrayBufferView | undefined) => n + (b?.byteLength ?? 0),
      0,
    ) + (data.children ?? []).reduce((n: number, c: Data) => n + walk(c), 0);
  return walk(batch.data as Data);
}

/** The validated source: per-partition rows and key sets, and the columns to relax first. */
export interface IngestedSource {
  partitions: SourcePartition[];
  relax: string[];
}

/** Collects, checks, aligns and groups the source (see module comment); nothing is written. */
export async function ingestSource(
  snapshot: Snapshot,
  shape: TableShape,
  data: UpsertSource,
  options: InternalUpsertOptions,
  signal: AbortSignal,
): Promise<IngestedSource> {
  const label = snapshot.table;
  const maxSourceBytes = options.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  const { batches: collected, flags } = splitDeleteFlags(
    await collect(data, maxSourceBytes, label, signal),
    options.deleteColumn,
    label,
  );
  checkKeyColumns(collected, options.primaryKeys, label);
  const keep = columnsToKeep(collected, snapshot.schema, shape, options, label);
  const relax = columnsToRelax(collected, snapshot.schema);
  const tableSchema = withNullable(snapshot.schema, relax);
  const aligned = collected.map((b) => alignToTable(b, tableSchema, label, { noun: "source" }));
  const nonEmpty = aligned.flatMap((b, i) => (b.numRows > 0 ? [i] : []));
  const partitions = planSource({
    batches: nonEmpty.map((i) => aligned[i]!),
    keepFromTarget: keep && nonEmpty.map((i) => keep[i]!),
    deleteFlags: flags && nonEmpty.map((i) => flags[i]!),
    tableSchema,
    dataSchema: withNullable(shape.dataSchema, relax),
    partitionColumn: shape.partitionColumn,
    partitionType: shape.partitionType,
    fileKeys: shape.fileKeys,
    label,
    hasher: options.keyHasher,
  });
  return { partitions, relax };
}

/** A source without a key column would insert NULL keys (the alignment null-fills missing columns). */
function checkKeyColumns(batches: readonly RecordBatch[], keys: readonly string[], label: string): void {
  for (const batch of batches) {
    const missing = keys.filter((k) => !batch.schema.fields.some((f) => f.name === k));
    if (missing.length > 0) {
      throw new DeltaLiteSchemaMismatchError(
        `${label}: the source lacks the primary-key column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
      );
    }
  }
}

async function collect(
  data: UpsertSource,
  maxBytes: number,
  table: string,
  signal: AbortSignal | undefined,
): Promise<RecordBatch[]> {
  let bytes = 0;
  const guard = (batch: RecordBatch) => {
    bytes += batchBytes(batch);
    if (maxBytes > 0 && bytes > maxBytes) {
      throw new DeltaLiteSourceTooLargeError(
        `${table}: the upsert source holds more than maxSourceBytes (${maxBytes} bytes); split it (keyBuckets) or raise the limit`,
      );
    }
    return batch;
  };
  // Recognised by shape (any apache-arrow copy of the peer range), as write's data is.
  const { batches } = await peekBatches(data);
  const out: RecordBatch[] = [];
  for await (const batch of batches) {
    checkAborted(signal, table);
    out.push(guard(batch));
  }
  return out;
}
