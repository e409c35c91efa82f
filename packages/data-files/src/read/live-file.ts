/**
 * Reading one live data file of a table, conformed to the table — the one file reader of the scan, the
 * upsert's probe and rewrite, and the engines to come. The file is opened with its size from the Add (no
 * HEAD) and, when the caller already has it, its parsed footer (no footer GET); batches come one row group
 * (or `batchRows` rows) at a time with the wanted fields in order: partition columns re-attached from the
 * file's partition values, columns the file lacks null-filled, decoded types converted to the table's
 * (timestamp units, widening, decimal rescale; an impossible conversion is `unsupported`). A file from which
 * no wanted column is stored is not read at all: its row counts come from the footer.
 */
import type { FileView } from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import {
  conformData,
  constantData,
  nullData,
  openParquetReader,
  type ParquetMetadata,
  type ParquetReader,
  type ReadAdmission,
  recordBatchBytes,
} from "@deltalite/parquet-stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import type { BudgetObserver } from "../budgets/call-budgets.js";
import { partitionScalar } from "../scan/prune.js";

/** How live files are read: ranged-GET knobs, read-ahead, batch size, the call's admission and signal. */
export interface LiveFileReadContext {
  knobs: {
    rangeGetPartSizeBytes?: number | undefined;
    rangeGetConcurrency?: number | undefined;
    readAheadRowGroups?: number | undefined;
  };
  /** Rows per decoded batch; whole row groups when undefined. */
  batchRows?: number | undefined;
  /** Asked before bytes are fetched or decoded (the budgets' reader hook). */
  admission?: ReadAdmission | undefined;
  /** Told the Arrow bytes of every batch while the caller holds it (live decoded bytes, for tests). */
  observer?: BudgetObserver | undefined;
  signal: AbortSignal | undefined;
}

/** Which columns a read returns, and where partition values come from. */
export interface LiveFileColumns {
  /** The table's fields wanted, in output order. */
  fields: readonly Field[];
  /** Delta primitive type of each partition column among `fields` (their values come from the log). */
  partitionTypes?: ReadonlyMap<string, string> | undefined;
  /** How conversion errors name the file (default: its store key). */
  label?: string | undefined;
}

/** Opens `file` for reading (footer from `metadata` when given, else one hinted GET). */
export function openLiveFile(
  store: ObjectStore,
  file: FileView,
  context: LiveFileReadContext,
  metadata?: ParquetMetadata,
): Promise<ParquetReader> {
  return openParquetReader(store, file.path, {
    size: file.size,
    metadata,
    rangeGetPartSizeBytes: context.knobs.rangeGetPartSizeBytes,
    rangeGetConcurrency: context.knobs.rangeGetConcurrency,
    admission: context.admission,
    signal: context.signal,
  });
}

/**
 * Yields the file's rows conformed to `columns`, one row group (or `batchRows` rows) per batch. A batch
 * counts as held by the caller until the next one is asked for.
 */
export async function* readLiveFile(
  reader: ParquetReader,
  file: FileView,
  columns: LiveFileColumns,
  context: LiveFileReadContext,
): AsyncGenerator<RecordBatch> {
  const { fields } = columns;
  const partitionTypes = columns.partitionTypes ?? new Map<string, string>();
  const inFile = new Set(reader.arrowSchema.fields.map((f) => f.name));
  const fromFile = fields.filter((f) => !partitionTypes.has(f.name) && inFile.has(f.name));
  const constants = new Map<string, unknown>();
  for (const [name, type] of partitionTypes) {
    if (fields.some((f) => f.name === name)) constants.set(name, partitionScalar(file, name, type));
  }
  const label = `${columns.label ?? reader.key}: column`;
  const assemble = (numRows: number, decoded: readonly Data[]): RecordBatch => {
    const children = fields.map((field) => {
      if (constants.has(field.name)) {
        return constantData(
          { name: field.name, type: field.type, value: constants.get(field.name) },
          numRows,
        );
      }
      const at = fromFile.indexOf(field);
      if (at < 0) return nullData(field.type, numRows);
      return conformData(decoded[at]!, field.type, `${label} ${field.name}`);
    });
    return batchOf(fields, numRows, children);
  };
  const observer = context.observer;
  for await (const { rows, decoded } of decodedGroups(reader, fromFile, context)) {
    const batch = assemble(rows, decoded);
    const bytes = observer ? recordBatchBytes(batch) : 0;
    observer?.batchHeld?.(bytes);
    try {
      yield batch;
    } finally {
      observer?.batchDropped?.(bytes);
    }
  }
}

/** The stored columns' data per batch; row counts only (from the footer) when none is stored. */
async function* decodedGroups(
  reader: ParquetReader,
  fromFile: readonly Field[],
  context: LiveFileReadContext,
): AsyncGenerator<{ rows: number; decoded: readonly Data[] }> {
  const step = context.batchRows;
  if (step !== undefined && !(Number.isSafeInteger(step) && step > 0)) {
    throw new DeltaLiteError("generic", `batchRows must be a positive integer (got ${step})`);
  }
  if (fromFile.length === 0) {
    for (const rows of reader.rowGroupRows) {
      if (step === undefined || rows <= step) yield { rows, decoded: [] };
      else for (let at = 0; at < rows; at += step) yield { rows: Math.min(step, rows - at), decoded: [] };
    }
    return;
  }
  const batches = reader.readRowGroups({
    columns: fromFile.map((f) => f.name),
    batchRows: context.batchRows,
    readAhead: context.knobs.readAheadRowGroups,
    signal: context.signal,
  });
  for await (const batch of batches) yield { rows: batch.numRows, decoded: batch.data.children as Data[] };
}

function batchOf(fields: readonly Field[], numRows: number, children: Data[]): RecordBatch {
  return new RecordBatch(
    new Schema([...fields]),
    makeData({ type: new Struct([...fields]), length: numRows, nullCount: 0, children }),
  );
}
