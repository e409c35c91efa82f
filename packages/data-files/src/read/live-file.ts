/**
 * Reading one live data file of a table, conformed to the table — the one file reader of the scan, the
 * upsert's probe and rewrite, and the engines to come. The file is opened with its size from the Add (no
 * HEAD) and, when the caller already has it, its parsed footer (no footer GET); a file of at most 64 KiB
 * without one is fetched whole in one GET (small-file.ts); batches come one row group
 * (or `batchRows` rows) at a time with the wanted fields in order: partition columns re-attached from the
 * file's partition values, columns the file lacks null-filled, decoded types converted to the table's
 * (timestamp units, widening, decimal rescale; an impossible conversion is `unsupported`). A file from which
 * no wanted column is stored is not read at all: its row counts come from the footer. A file the log names
 * but storage lacks (vacuumed away) is `not_found` saying so.
 */
import type { FileView } from "@deltalite/delta-log";
import { DeltaLiteError, DeltaLiteInvalidArgumentError, hasErrorKind } from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import {
  conformData,
  constantData,
  nullData,
  type OpenParquetReaderOptions,
  openParquetReader,
  type ParquetMetadata,
  type ParquetReader,
  type ReadAdmission,
  recordBatchBytes,
} from "@deltalite/parquet-stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import type { BudgetObserver } from "../budgets/call-budgets.js";
import { partitionScalar } from "../scan/prune.js";
import { openSmallFile, readsInOneGet } from "./small-file.js";
import { fetchWholeFile, readerOverBytes, type WholeFile } from "./whole-file.js";

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
  /** The table version being read, named when a file turns out to be missing. */
  version?: number | undefined;
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

/**
 * Opens `file` for reading: footer from `metadata` when given, else the whole file in one GET when it is small
 * (at most 64 KiB by its Add), else one hinted footer GET.
 */
export function openLiveFile(
  store: ObjectStore,
  file: FileView,
  context: LiveFileReadContext,
  metadata?: ParquetMetadata,
): Promise<ParquetReader> {
  const options = readerOptions(file, context, metadata);
  const opened = readsInOneGet(file, metadata !== undefined)
    ? openSmallFile(store, file, options).then(
        (reader) => reader ?? openParquetReader(store, file.path, options),
      )
    : openParquetReader(store, file.path, options);
  return opened.catch((error: unknown) => Promise.reject(missingFileError(error, store.root, file, context)));
}

/**
 * Opens `file` over its bytes `whole` already fetched (fetchWholeFile): no request; closing the reader calls
 * `whole.release`.
 */
export function openLiveFileOver(
  store: ObjectStore,
  file: FileView,
  context: LiveFileReadContext,
  whole: WholeFile,
  metadata?: ParquetMetadata,
): Promise<ParquetReader> {
  return readerOverBytes(store, file, readerOptions(file, context, metadata), whole, metadata);
}

/** `file` fetched whole (fetchWholeFile) with the context's ranged-GET knobs and admission. */
export function fetchLiveFile(
  store: ObjectStore,
  file: FileView,
  context: LiveFileReadContext,
): Promise<WholeFile | undefined> {
  return fetchWholeFile(store, file, readerOptions(file, context, undefined));
}

function readerOptions(
  file: FileView,
  context: LiveFileReadContext,
  metadata: ParquetMetadata | undefined,
): OpenParquetReaderOptions {
  return {
    size: file.size,
    metadata,
    rangeGetPartSizeBytes: context.knobs.rangeGetPartSizeBytes,
    rangeGetConcurrency: context.knobs.rangeGetConcurrency,
    admission: context.admission,
    signal: context.signal,
  };
}

/**
 * A store's `not_found` for a file the log names, in words that say what happened (vacuum) and what time
 * travel needs; any other error as it is.
 */
export function missingFileError(
  error: unknown,
  table: string,
  file: FileView,
  context: Pick<LiveFileReadContext, "version">,
): unknown {
  if (!hasErrorKind(error, "not_found") || error.message.includes("likely removed by VACUUM")) return error;
  const at = context.version === undefined ? "" : ` at version ${context.version}`;
  return new DeltaLiteError(
    "not_found",
    `data file ${file.path} of ${table}${at} is named by the log but missing from storage: it was likely ` +
      "removed by VACUUM. Reading an older version (time travel) needs the files vacuum kept: only files " +
      "removed within the retention (delta.deletedFileRetentionDuration, default 7 days) survive a vacuum",
    { cause: error },
  );
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
  try {
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
  } catch (error) {
    throw missingFileError(error, tableOf(reader.key, file.path, columns.label), file, context);
  }
}

/** The table a file's reader belongs to, for messages: the label without the file path, else "the table". */
function tableOf(key: string, path: string, label: string | undefined): string {
  if (label?.endsWith(`/${path}`)) return label.slice(0, -path.length - 1);
  return key === path ? "the table" : key;
}

/** The stored columns' data per batch; row counts only (from the footer) when none is stored. */
async function* decodedGroups(
  reader: ParquetReader,
  fromFile: readonly Field[],
  context: LiveFileReadContext,
): AsyncGenerator<{ rows: number; decoded: readonly Data[] }> {
  const step = context.batchRows;
  if (step !== undefined && !(Number.isSafeInteger(step) && step > 0)) {
    throw new DeltaLiteInvalidArgumentError(`batchRows must be a positive integer (got ${step})`);
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
