/**
 * Table writes: append or overwrite a stream of batches as one Delta commit (`WRITE`, like delta-rs's
 * write_deltalake), creating the table from the data's schema when it does not exist yet. Schema changes
 * are explicit: `schemaMode: "merge"` adds new nullable columns on append, `schemaMode: "overwrite"`
 * replaces the schema on overwrite. Every validation runs before any file is written; the data files become
 * visible only through the single commit.
 */
import {
  type Action,
  arrowSchemaToDelta,
  type CommitResult,
  commitTransaction,
  createTable,
  type DeltaSchema,
  decodeLogPath,
  defaultMaintenanceHooks,
  deltaSchemaToArrow,
  discardWrittenFiles,
  type MetadataAction,
  removeForFile,
  type Snapshot,
  schemaToJson,
} from "@deltalite/delta-log";
import { DeltaLiteError, DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import { Field, type RecordBatch, Schema } from "apache-arrow";
import { alignBatch, planAlignment } from "./align.js";
import type { DataFileWriterOptions } from "./data-file-writer.js";
import { type BatchSource, peekBatches } from "./input.js";
import { type WrittenAdds, writeDataFiles } from "./write-files.js";

export interface WriteOptions
  extends Pick<
    DataFileWriterOptions,
    | "codec"
    | "maxRowGroupBytes"
    | "maxRowGroupRows"
    | "multipartThresholdBytes"
    | "multipartPartSizeBytes"
    | "multipartConcurrency"
    | "signal"
  > {
  mode?: "append" | "overwrite" | undefined;
  /** Partition columns of a table created by this write; must equal the table's otherwise. */
  partitionBy?: readonly string[] | undefined;
  /** `merge`: append may add new (nullable) columns. `overwrite`: overwrite may replace the schema. */
  schemaMode?: "merge" | "overwrite" | undefined;
  /** Configuration of a table created by this write. */
  configuration?: Readonly<Record<string, string>> | undefined;
  commitMetadata?: Record<string, unknown> | undefined;
  /** Default: the table's `delta.targetFileSize`, else 100 MiB. */
  targetFileSize?: number | undefined;
}

export interface WriteResult {
  version: number;
  filesAdded: number;
  filesRemoved: number;
  rowsWritten: number;
  bytesWritten: number;
  /** Set when post-commit maintenance (checkpoint, log cleanup) failed; the write itself is durable. */
  maintenanceError?: unknown;
  commit: CommitResult;
}

function partitionTypesOf(
  schema: DeltaSchema,
  partitionColumns: readonly string[],
  table: string,
): Record<string, string> {
  const types: Record<string, string> = {};
  for (const name of partitionColumns) {
    const field = schema.fields.find((f) => f.name === name);
    if (!field)
      throw new DeltaLiteSchemaMismatchError(`${table}: partition column ${name} is not in the schema`);
    if (typeof field.type !== "string") {
      throw new DeltaLiteSchemaMismatchError(`${table}: partition column ${name} must have a primitive type`);
    }
    types[name] = field.type;
  }
  return types;
}

function targetFileSizeOf(
  configuration: Readonly<Record<string, string>>,
  explicit: number | undefined,
): number | undefined {
  if (explicit !== undefined) return explicit;
  const raw = configuration["delta.targetFileSize"];
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

const WRITE_WORDING = { noun: "data", extraColumnsHint: 'add them with schemaMode "merge"' };

/** Plans the alignment now (before any file is written), then casts each batch as it streams. */
function aligned(batches: AsyncIterable<RecordBatch>, source: Schema, target: Schema, table: string) {
  const plan = planAlignment(source, target, table, WRITE_WORDING);
  return (async function* () {
    for await (const batch of batches) yield alignBatch(batch, plan);
  })();
}

function knobs(options: WriteOptions, configuration: Readonly<Record<string, string>>) {
  return {
    codec: options.codec,
    targetFileSize: targetFileSizeOf(configuration, options.targetFileSize),
    maxRowGroupBytes: options.maxRowGroupBytes,
    maxRowGroupRows: options.maxRowGroupRows,
    multipartThresholdBytes: options.multipartThresholdBytes,
    multipartPartSizeBytes: options.multipartPartSizeBytes,
    multipartConcurrency: options.multipartConcurrency,
    signal: options.signal,
  };
}

/** Writes to a table that does not exist yet: data files, then version 0 with protocol, metaData and adds. */
export async function writeNewTable(
  store: ObjectStore,
  data: BatchSource,
  options: WriteOptions,
): Promise<WriteResult> {
  const table = store.root;
  const { schema: sourceSchema, batches } = await peekBatches(data);
  if (!sourceSchema)
    throw new DeltaLiteError("generic", `${table}: cannot create a table from empty data without a schema`);
  const deltaSchema = arrowSchemaToDelta(sourceSchema);
  const schema = deltaSchemaToArrow(deltaSchema);
  const partitionColumns = [...(options.partitionBy ?? [])];
  const configuration = { ...(options.configuration ?? {}) };
  const partitionTypes = partitionTypesOf(deltaSchema, partitionColumns, table);
  const written = await writeDataFiles(store, aligned(batches, sourceSchema, schema, table), {
    schema,
    partitionColumns,
    partitionTypes,
    configuration,
    ...knobs(options, configuration),
  });
  const commit = await commitOrDiscard(store, written, () =>
    createTable(store, {
      schema: deltaSchema,
      partitionColumns,
      configuration,
      actions: written.adds.map((add) => ({ add })),
      operation: "WRITE",
      operationParameters: { mode: "ErrorIfExists", partitionBy: JSON.stringify(partitionColumns) },
      commitMetadata: options.commitMetadata,
      hooks: defaultMaintenanceHooks(),
      signal: options.signal,
    }),
  );
  return resultOf(commit, written, 0);
}

/** Appends to or overwrites an existing table in one commit. */
export async function writeExistingTable(
  snapshot: Snapshot,
  data: BatchSource,
  options: WriteOptions,
): Promise<WriteResult> {
  const store = snapshot.store;
  const table = snapshot.table;
  const mode = options.mode ?? "append";
  if (mode !== "append" && mode !== "overwrite")
    throw new DeltaLiteError("generic", `unknown write mode ${JSON.stringify(mode)}`);
  const partitionColumns = [...snapshot.partitionColumns];
  if (options.partitionBy && JSON.stringify([...options.partitionBy]) !== JSON.stringify(partitionColumns)) {
    throw new DeltaLiteError(
      "generic",
      `${table} is partitioned by [${partitionColumns.join(", ")}], not [${options.partitionBy.join(", ")}]`,
    );
  }
  const { schema: sourceSchema, batches } = await peekBatches(data);
  let deltaSchema: DeltaSchema = snapshot.deltaSchema;
  let newMetadata: MetadataAction | undefined;
  if (options.schemaMode === "overwrite") {
    if (mode !== "overwrite")
      throw new DeltaLiteError("generic", 'schemaMode "overwrite" needs mode "overwrite"');
    if (sourceSchema) deltaSchema = arrowSchemaToDelta(sourceSchema);
  } else if (options.schemaMode === "merge" && sourceSchema) {
    const known = new Set(snapshot.schema.fields.map((f) => f.name));
    const added = sourceSchema.fields
      .filter((f) => !known.has(f.name))
      .map((f) => new Field(f.name, f.type, true, f.metadata));
    if (added.length > 0) deltaSchema = arrowSchemaToDelta(new Schema([...snapshot.schema.fields, ...added]));
  } else if (options.schemaMode !== undefined) {
    throw new DeltaLiteError("generic", `unknown schemaMode ${JSON.stringify(options.schemaMode)}`);
  }
  if (schemaToJson(deltaSchema) !== snapshot.schemaJson) {
    newMetadata = { ...snapshot.metadata, schemaString: schemaToJson(deltaSchema) };
  }
  const schema = deltaSchemaToArrow(deltaSchema);
  const partitionTypes = partitionTypesOf(deltaSchema, partitionColumns, table);
  const source = sourceSchema ? aligned(batches, sourceSchema, schema, table) : batches;
  const written = await writeDataFiles(store, source, {
    schema,
    partitionColumns,
    partitionTypes,
    configuration: snapshot.configuration,
    ...knobs(options, snapshot.configuration),
  });
  const now = Date.now();
  const removes: Action[] =
    mode === "overwrite"
      ? snapshot.files.map((f) => ({ remove: removeForFile(f, { deletionTimestamp: now }) }))
      : [];
  const actions: Action[] = [
    ...(newMetadata ? [{ metaData: newMetadata }] : []),
    ...removes,
    ...written.adds.map((add) => ({ add })),
  ];
  const commit = await commitOrDiscard(store, written, () =>
    commitTransaction(snapshot, actions, {
      operation: "WRITE",
      operationParameters: {
        mode: mode === "append" ? "Append" : "Overwrite",
        partitionBy: JSON.stringify(partitionColumns),
      },
      operationMetrics: {
        numFiles: written.adds.length,
        numOutputRows: written.rows,
        numOutputBytes: written.bytes,
        numRemovedFiles: removes.length,
      },
      commitMetadata: options.commitMetadata,
      hooks: defaultMaintenanceHooks(),
      signal: options.signal,
    }),
  );
  return resultOf(commit, written, removes.length);
}

/**
 * Runs the commit of a write; when it fails, the data files the write made are deleted — or kept, when the
 * commit's outcome is unknown (see `discardWrittenFiles`).
 */
async function commitOrDiscard(
  store: ObjectStore,
  written: WrittenAdds,
  commit: () => Promise<CommitResult>,
): Promise<CommitResult> {
  try {
    return await commit();
  } catch (error) {
    await discardWrittenFiles(
      store,
      written.adds.map((a) => decodeLogPath(a.path)),
      error,
    );
    throw error;
  }
}

function resultOf(commit: CommitResult, written: WrittenAdds, filesRemoved: number): WriteResult {
  return {
    version: commit.version,
    filesAdded: written.adds.length,
    filesRemoved,
    rowsWritten: written.rows,
    bytesWritten: written.bytes,
    ...(commit.maintenanceError !== undefined ? { maintenanceError: commit.maintenanceError } : {}),
    commit,
  };
}
