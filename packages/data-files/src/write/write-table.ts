/**
 * Table writes: append or overwrite a stream of batches as one Delta commit (`WRITE`, shaped as delta-rs's
 * write_deltalake writes it: see write-commit.ts), creating the table from the data's schema when it does
 * not exist yet. On an existing table, mode `error` fails with `already_exists` and `ignore` does nothing
 * (`committed: false`), both before the data is read. Schema changes are explicit: `schemaMode: "merge"`
 * adds new nullable columns on append, `schemaMode: "overwrite"` replaces the schema on overwrite. Every
 * validation runs before any file is written; the data files become visible only through the single commit.
 * With `txn: { appId, version }` the commit carries Delta's `txn` action, and a write whose appId already
 * committed that version (or a later one) is skipped before the data is read (`skipped: true`).
 */
import {
  type Action,
  type AppTransaction,
  appTransactionApplied,
  arrowSchemaToDelta,
  type CommitResult,
  checkAppTransaction,
  commitTransaction,
  createTable,
  type DeltaSchema,
  decodeLogPath,
  defaultMaintenanceHooks,
  deltaSchemaToArrow,
  discardWrittenFiles,
  type MetadataAction,
  protocolForNewTable,
  removeForFile,
  Snapshot,
  schemaToJson,
  txnActions,
  validateTableProperties,
} from "@deltalite/delta-log";
import {
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  DeltaLiteSchemaMismatchError,
  didYouMean,
  hasErrorKind,
} from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import { Field, type RecordBatch, Schema } from "apache-arrow";
import { alignBatch, planAlignment } from "./align.js";
import type { DataFileWriterOptions } from "./data-file-writer.js";
import { type BatchSource, peekBatches } from "./input.js";
import { checkWriteMode, type WriteMode, writeMetrics, writeParameters } from "./write-commit.js";
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
  /**
   * What to do when the table exists (delta-rs `write_deltalake`'s modes): `append` (the default here),
   * `overwrite`, `error` (fail with `already_exists`, nothing written) or `ignore` (write nothing; the
   * result has `committed: false`). A missing table is created by every mode.
   */
  mode?: WriteMode | undefined;
  /** Partition columns of a table created by this write; must equal the table's otherwise. */
  partitionBy?: readonly string[] | undefined;
  /** `merge`: append may add new (nullable) columns. `overwrite`: overwrite may replace the schema. */
  schemaMode?: "merge" | "overwrite" | undefined;
  /** Configuration of a table created by this write. */
  configuration?: Readonly<Record<string, string>> | undefined;
  commitMetadata?: Record<string, unknown> | undefined;
  /** Default: the table's `delta.targetFileSize`, else 100 MiB. */
  targetFileSize?: number | undefined;
  /**
   * Exactly-once: the commit carries this `txn` action; when the table already holds `appId` at
   * `version` or later, nothing is read, written or committed (`skipped: true`).
   */
  txn?: AppTransaction | undefined;
}

interface WriteSummary {
  /** The version committed, or (nothing committed) the version of the table as it is. */
  version: number;
  filesAdded: number;
  filesRemoved: number;
  rowsWritten: number;
  bytesWritten: number;
}

/** A write that committed a version. */
export interface CommittedWrite extends WriteSummary {
  committed: true;
  skipped?: undefined;
  /** Set when post-commit maintenance (checkpoint, log cleanup) failed; the write itself is durable. */
  maintenanceError?: unknown;
  commit: CommitResult;
}

/** Mode `ignore` on an existing table: nothing was read, written or committed; all counts are 0. */
export interface IgnoredWrite extends WriteSummary {
  committed: false;
  skipped?: undefined;
  maintenanceError?: undefined;
  commit?: undefined;
}

/** `txn` already applied (its appId holds that version or a later one): nothing was read, written or committed. */
export interface SkippedWrite extends WriteSummary {
  committed: false;
  skipped: true;
  maintenanceError?: undefined;
  commit?: undefined;
}

export type WriteResult = CommittedWrite | IgnoredWrite | SkippedWrite;

function partitionTypesOf(
  schema: DeltaSchema,
  partitionColumns: readonly string[],
  table: string,
): Record<string, string> {
  const types: Record<string, string> = {};
  for (const name of partitionColumns) {
    const field = schema.fields.find((f) => f.name === name);
    if (!field) {
      const names = schema.fields.map((f) => f.name);
      throw new DeltaLiteInvalidArgumentError(
        `${table}: partition column ${JSON.stringify(name)} is not in the data${didYouMean(name, names)} (columns: ${names.join(", ")})`,
      );
    }
    if (typeof field.type !== "string") {
      throw new DeltaLiteSchemaMismatchError(`${table}: partition column ${name} must have a primitive type`);
    }
    types[name] = field.type;
  }
  return types;
}

/** `explicit`, else the table's `delta.targetFileSize`, else undefined (the writer's default). */
export function targetFileSizeOf(
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
  const startedAt = performance.now();
  const table = store.root;
  checkWriteMode(options.mode);
  checkSchemaMode(options.schemaMode);
  checkAppTransaction(options.txn, table);
  const { schema: sourceSchema, batches } = await peekBatches(data);
  if (!sourceSchema) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: cannot create a table from empty data without a schema (give a Table or RecordBatchReader with a schema)`,
    );
  }
  const deltaSchema = arrowSchemaToDelta(sourceSchema);
  const schema = deltaSchemaToArrow(deltaSchema);
  const partitionColumns = [...(options.partitionBy ?? [])];
  const configuration = { ...(options.configuration ?? {}) };
  const partitionTypes = partitionTypesOf(deltaSchema, partitionColumns, table);
  // createTable checks these too; checked here as well so a refused table costs no data file.
  protocolForNewTable(deltaSchema, configuration, table);
  validateTableProperties(configuration, table);
  const written = await writeDataFiles(store, aligned(batches, sourceSchema, schema, table), {
    schema,
    partitionColumns,
    partitionTypes,
    configuration,
    ...knobs(options, configuration),
  });
  let commit: CommitResult;
  try {
    commit = await commitOrDiscard(store, written, () =>
      createTable(store, {
        schema: deltaSchema,
        partitionColumns,
        configuration,
        actions: [...written.adds.map((add) => ({ add })), ...txnActions(options.txn)],
        operation: "WRITE",
        operationParameters: writeParameters(options.mode ?? "error", partitionColumns),
        operationMetrics: writeMetrics({
          filesAdded: written.adds.length,
          filesRemoved: 0,
          rowsAdded: written.rows,
          startedAt,
        }),
        commitMetadata: options.commitMetadata,
        hooks: defaultMaintenanceHooks(),
        signal: options.signal,
      }),
    );
  } catch (error) {
    // Another writer created the table first: `ignore` means leave it be (our files are already gone).
    if (options.mode === "ignore" && hasErrorKind(error, "already_exists")) {
      const winner = await Snapshot.open(store, { signal: options.signal });
      return appTransactionApplied(winner, options.txn) ? skipped(winner) : ignored(winner);
    }
    throw error;
  }
  return resultOf(commit, written, 0);
}

/** The result of mode `ignore` on an existing table. */
function ignored(snapshot: Snapshot): IgnoredWrite {
  return {
    committed: false,
    version: snapshot.version,
    filesAdded: 0,
    filesRemoved: 0,
    rowsWritten: 0,
    bytesWritten: 0,
  };
}

/** The result of a write whose `txn` the table already holds. */
function skipped(snapshot: Snapshot): SkippedWrite {
  return { ...ignored(snapshot), skipped: true };
}

const SCHEMA_MODES = ["merge", "overwrite"] as const;

function checkSchemaMode(schemaMode: unknown): void {
  if (schemaMode === undefined || SCHEMA_MODES.includes(schemaMode as "merge")) return;
  const given = String(schemaMode);
  throw new DeltaLiteInvalidArgumentError(
    `unknown schemaMode ${JSON.stringify(given)}${didYouMean(given, SCHEMA_MODES)}; expected "merge" or "overwrite"`,
  );
}

/**
 * Appends to or overwrites an existing table in one commit; mode `error` throws `already_exists` and
 * `ignore` returns `committed: false`, both without reading `data`.
 */
export async function writeExistingTable(
  snapshot: Snapshot,
  data: BatchSource,
  options: WriteOptions,
): Promise<WriteResult> {
  const startedAt = performance.now();
  const store = snapshot.store;
  const table = snapshot.table;
  checkWriteMode(options.mode);
  checkSchemaMode(options.schemaMode);
  checkAppTransaction(options.txn, table);
  if (appTransactionApplied(snapshot, options.txn)) return skipped(snapshot);
  const mode = options.mode ?? "append";
  if (mode === "ignore") return ignored(snapshot);
  if (mode === "error") {
    throw new DeltaLiteError(
      "already_exists",
      `a Delta table already exists at ${table} (version ${snapshot.version}); write with mode "append" or "overwrite" to change it`,
    );
  }
  const partitionColumns = [...snapshot.partitionColumns];
  if (options.partitionBy && JSON.stringify([...options.partitionBy]) !== JSON.stringify(partitionColumns)) {
    throw new DeltaLiteInvalidArgumentError(
      `${table} is partitioned by [${partitionColumns.join(", ")}], not [${options.partitionBy.join(", ")}]; ` +
        "partitionBy of an existing table must equal its partition columns (or be left out)",
    );
  }
  if (options.schemaMode === "overwrite" && mode !== "overwrite") {
    throw new DeltaLiteInvalidArgumentError('schemaMode "overwrite" needs mode "overwrite"');
  }
  const { schema: sourceSchema, batches } = await peekBatches(data);
  const deltaSchema = schemaAfterWrite(snapshot, sourceSchema, options.schemaMode);
  const newMetadata: MetadataAction | undefined =
    schemaToJson(deltaSchema) !== snapshot.schemaJson
      ? { ...snapshot.metadata, schemaString: schemaToJson(deltaSchema) }
      : undefined;
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
    ...txnActions(options.txn),
  ];
  const commit = await commitOrDiscard(store, written, () =>
    commitTransaction(snapshot, actions, {
      operation: "WRITE",
      operationParameters: writeParameters(mode, partitionColumns),
      operationMetrics: writeMetrics({
        filesAdded: written.adds.length,
        filesRemoved: removes.length,
        rowsAdded: written.rows,
        startedAt,
      }),
      commitMetadata: options.commitMetadata,
      // An overwrite deletes every row and inserts every new one: change-data readers derive both from
      // the removes and adds (delta-rs writes no change-data files for it either).
      changeData: "derived",
      hooks: defaultMaintenanceHooks(),
      signal: options.signal,
    }),
  );
  return resultOf(commit, written, removes.length);
}

/** The table's schema after the write: replaced (`overwrite`), with new nullable columns (`merge`), or as is. */
function schemaAfterWrite(
  snapshot: Snapshot,
  sourceSchema: Schema | undefined,
  schemaMode: WriteOptions["schemaMode"],
): DeltaSchema {
  if (!sourceSchema) return snapshot.deltaSchema;
  if (schemaMode === "overwrite") return arrowSchemaToDelta(sourceSchema);
  if (schemaMode !== "merge") return snapshot.deltaSchema;
  const known = new Set(snapshot.schema.fields.map((f) => f.name));
  const added = sourceSchema.fields
    .filter((f) => !known.has(f.name))
    .map((f) => new Field(f.name, f.type, true, f.metadata));
  return added.length > 0
    ? arrowSchemaToDelta(new Schema([...snapshot.schema.fields, ...added]))
    : snapshot.deltaSchema;
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

function resultOf(commit: CommitResult, written: WrittenAdds, filesRemoved: number): CommittedWrite {
  return {
    committed: true,
    version: commit.version,
    filesAdded: written.adds.length,
    filesRemoved,
    rowsWritten: written.rows,
    bytesWritten: written.bytes,
    ...(commit.maintenanceError !== undefined ? { maintenanceError: commit.maintenanceError } : {}),
    commit,
  };
}
