/**
 * Reading target data files for the upsert: the key columns only (the probe), or every data column one
 * row-group slice at a time (the rewrite), each batch conformed to the table's data-file schema by name
 * (a column the file lacks is null-filled; a decoded type that differs from the table's is converted as
 * the scan converts it).
 */

import type { BudgetObserver } from "@deltalite/data-files";
import type { FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import {
  conformData,
  nullData,
  openParquetReader,
  type ParquetReader,
  type ReadAdmission,
  recordBatchBytes,
} from "@deltalite/parquet-stream";
import { type Data, makeData, RecordBatch, type Schema, Struct } from "apache-arrow";

export interface ReadKnobs {
  rangeGetPartSizeBytes?: number | undefined;
  rangeGetConcurrency?: number | undefined;
  readAheadRowGroups?: number | undefined;
}

/** How target files are read: ranged-GET knobs, the call's fetch/decode admission, its signal. */
export interface ReadContext {
  knobs: ReadKnobs;
  batchRows: number;
  admission?: ReadAdmission | undefined;
  /** Told the Arrow bytes of every batch while the upsert holds it (live decoded bytes, for tests). */
  observer?: BudgetObserver | undefined;
  signal: AbortSignal | undefined;
}

export async function openFile(
  store: ObjectStore,
  file: FileView,
  context: ReadContext,
): Promise<ParquetReader> {
  return openParquetReader(store, file.path, {
    size: file.size,
    rangeGetPartSizeBytes: context.knobs.rangeGetPartSizeBytes,
    rangeGetConcurrency: context.knobs.rangeGetConcurrency,
    admission: context.admission,
    signal: context.signal,
  });
}

/**
 * Conforms a decoded batch to `schema` by name: a column the file lacks is null-filled, a column decoded
 * in another type is converted the way the scan converts it (timestamp units, widening, decimal rescale);
 * a type that cannot be read as the table's is `unsupported`.
 */
export function conformBatch(batch: RecordBatch, schema: Schema, path: string): RecordBatch {
  const children = schema.fields.map((field) => {
    const index = batch.schema.fields.findIndex((f) => f.name === field.name);
    if (index < 0) return nullData(field.type, batch.numRows);
    return conformData(batch.data.children[index] as Data, field.type, `${path}: column ${field.name}`);
  });
  const data = makeData({
    type: new Struct(schema.fields),
    length: batch.numRows,
    children,
    nullCount: 0,
  } as never);
  return new RecordBatch(schema, data as never);
}

/**
 * Yields every row group of the file in `schema`, `batchRows` rows at a time (reading ahead
 * `readAheadRowGroups` when asked). A batch counts as held by the upsert until the next one is asked for.
 */
export async function* readConformed(
  reader: ParquetReader,
  schema: Schema,
  context: ReadContext,
  readAhead?: number,
): AsyncGenerator<RecordBatch> {
  const present = new Set(reader.arrowSchema.fields.map((f) => f.name));
  const columns = schema.fields.map((f) => f.name).filter((n) => present.has(n));
  const observer = context.observer;
  const batches = reader.readRowGroups({
    columns,
    batchRows: context.batchRows,
    signal: context.signal,
    readAhead,
  });
  for await (const batch of batches) {
    const bytes = observer ? recordBatchBytes(batch) : 0;
    observer?.batchHeld?.(bytes);
    try {
      yield conformBatch(batch, schema, reader.key);
    } finally {
      observer?.batchDropped?.(bytes);
    }
  }
}
