/**
 * DeltaLiteTable: the handle applications hold. It opens a table at a URI (latest, a version, or a
 * timestamp), exposes the snapshot's in-memory properties with no I/O, and runs table operations —
 * create, write, upsert, scan, reload, history, vacuum — through @deltalite/delta-log and
 * @deltalite/merge-engine. Operations on one handle run one at a time.
 */

import {
  type CompactOptions,
  type CompactResult,
  compact as compactTable,
  type RestoreOptions,
  type RestoreResult,
  type RestoreTarget,
  restore as restoreTable,
  type ZOrderOptions,
  type ZOrderResult,
  zOrder as zOrderTable,
} from "@deltalite/compaction";
import {
  ArrowAdopter,
  type BatchSource,
  type ChangeFeed,
  type ChangeRange,
  type ChangesOptions,
  type DeleteOptions,
  type DeleteResult,
  deleteWhere,
  globalBudgets,
  isArrowSchema,
  readChanges,
  type ScanFilterCondition,
  type ScanOptions,
  scanTable,
  type TableScan,
  type WriteOptions,
  type WriteResult,
  writeExistingTable,
  writeNewTable,
} from "@deltalite/data-files";
import {
  arrowSchemaToDelta,
  type CommitHistoryEntry,
  createTable,
  type DeltaSchema,
  type FileView,
  parseSchemaString,
  type SetTablePropertiesOptions,
  type SetTablePropertiesResult,
  Snapshot,
  setTableProperties,
  TableLog,
  useCheckpointPrefetchBudget,
  type VacuumOptions,
  type VacuumResult,
  vacuum as vacuumTable,
} from "@deltalite/delta-log";
import { DeltaLiteError, DeltaLiteTableNotFoundError, hasErrorKind } from "@deltalite/errors";
import {
  type UpsertStats as EngineUpsertStats,
  tableKeyBuckets,
  type UpsertOptions,
  type UpsertSource,
  upsert as upsertInto,
} from "@deltalite/merge-engine";
import { type ObjectStore, openStore, type StorageOptions } from "@deltalite/object-store";
import {
  type HistoryUpsertOptions,
  type HistoryUpsertStats,
  historyUpsert as historyUpsertInto,
} from "@deltalite/scd2-history";
import type { RecordBatch, Schema, Table } from "apache-arrow";
import { withEnvDefaults } from "./env.js";
import {
  observeCheckpointPrefetches,
  observeHistoryUpsert,
  observeLogProbes,
  observeUpsert,
} from "./metrics.js";

// The checkpoint prefetch of every table load reserves its bytes from the process buffered budget (owned by
// data-files), and its decisions are counted in the deltalite_checkpoint_prefetch_total metric.
useCheckpointPrefetchBudget(() => globalBudgets().buffer);
observeCheckpointPrefetches();
// The handles' refresh and commit probes are counted in deltalite_refresh_probe_total / _commit_probe_total.
observeLogProbes();

export interface OpenTableOptions {
  storageOptions?: StorageOptions | undefined;
  /** Open at this version (time travel). */
  version?: number | undefined;
  /** Open at the newest version committed at or before this instant (Date, epoch ms or ISO 8601 text). */
  timestamp?: Date | number | string | undefined;
  signal?: AbortSignal | undefined;
}

export interface CreateTableOptions {
  storageOptions?: StorageOptions | undefined;
  partitionBy?: readonly string[] | undefined;
  configuration?: Readonly<Record<string, string>> | undefined;
  name?: string | undefined;
  description?: string | undefined;
  /** Return the existing table instead of failing with `already_exists`. */
  ifNotExists?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

export interface TableWriteOptions extends WriteOptions {
  storageOptions?: StorageOptions | undefined;
}

/** The hint a missing table's error carries: how tables come to exist. */
function createHint(uri: string): string {
  return `a table is created by its first write: DeltaLiteTable.write(uri, data) in code, or \`deltalite write ${uri} --input <file> --mode error\` on the command line`;
}

/**
 * Told apart by shape, not `instanceof Schema`: an Arrow Schema of any apache-arrow copy (the app's own
 * included) is adopted as ours by the one recognition module of data-files, then converted; anything else
 * goes to the Delta parser, which says what is wrong with it.
 */
function toDeltaSchema(schema: Schema | DeltaSchema | string): DeltaSchema {
  if (typeof schema === "string") return parseSchemaString(schema);
  if (isArrowSchema(schema)) return arrowSchemaToDelta(new ArrowAdopter().schema(schema));
  return parseSchemaString(JSON.stringify(schema));
}

/** The merge engine's counters and timings, plus the handle's one-time `initialOpenMs`. */
export interface UpsertStats extends EngineUpsertStats {
  /** The snapshot load of `DeltaLiteTable.open`: reported by the first upsert through a handle, 0 after. */
  initialOpenMs: number;
}

export interface TableScanOptions extends ScanOptions {
  /** Read this version instead of the handle's (time travel). */
  version?: number | undefined;
}

export class DeltaLiteTable {
  readonly uri: string;
  readonly store: ObjectStore;
  #snapshot: Snapshot;
  #queue: Promise<unknown> = Promise.resolve();
  /** Time the initial snapshot load took; reported once, by the first upsert through this handle. */
  #initialOpenMs: number;

  /** How this handle refreshes, what its operations share, and the snapshot it adopts after its commits. */
  readonly #log: TableLog;

  private constructor(uri: string, store: ObjectStore, snapshot: Snapshot, initialOpenMs = 0) {
    this.uri = uri;
    this.store = store;
    this.#snapshot = snapshot;
    this.#initialOpenMs = initialOpenMs;
    this.#log = new TableLog({
      listedAt: Date.now() - initialOpenMs,
      budget: () => globalBudgets().buffer,
    });
  }

  /** Opens an existing table; `DeltaLiteTableNotFoundError` when there is none at `uri`. */
  static async open(uri: string, options: OpenTableOptions = {}): Promise<DeltaLiteTable> {
    const store = openStore(uri, { storageOptions: options.storageOptions });
    const started = performance.now();
    const snapshot = await Snapshot.open(store, {
      version: options.version,
      timestamp: options.timestamp,
      signal: options.signal,
    }).catch((error: unknown) => {
      throw withCreateHint(error, uri, options);
    });
    return new DeltaLiteTable(uri, store, snapshot, performance.now() - started);
  }

  /**
   * Creates an empty table (version 0) from an Arrow schema or Delta schema JSON. Fails with
   * `already_exists` when a table is there, unless `ifNotExists` (then the existing table is opened).
   */
  static async create(
    uri: string,
    schema: Schema | DeltaSchema | string,
    options: CreateTableOptions = {},
  ): Promise<DeltaLiteTable> {
    const store = openStore(uri, { storageOptions: options.storageOptions });
    try {
      const result = await createTable(store, {
        schema: toDeltaSchema(schema),
        partitionColumns: options.partitionBy,
        configuration: options.configuration,
        name: options.name,
        description: options.description,
        signal: options.signal,
      });
      return new DeltaLiteTable(uri, store, result.snapshot);
    } catch (error) {
      if (options.ifNotExists && hasErrorKind(error, "already_exists")) {
        return DeltaLiteTable.open(uri, { storageOptions: options.storageOptions, signal: options.signal });
      }
      throw error;
    }
  }

  /**
   * Writes `data` to the table at `uri`, creating it from the data's schema when missing (like delta-rs's
   * write_deltalake). When a table exists, `mode` decides: `append` (the default), `overwrite`, `error`
   * (`already_exists`, nothing written) or `ignore` (nothing written, `result.committed` false). Returns the
   * open table and what was written.
   */
  static async write(
    uri: string,
    data: BatchSource,
    options: TableWriteOptions = {},
  ): Promise<{ table: DeltaLiteTable; result: WriteResult }> {
    const { storageOptions, ...writeOptions } = options;
    const store = openStore(uri, { storageOptions });
    let snapshot: Snapshot | undefined;
    try {
      snapshot = await Snapshot.open(store, { signal: options.signal });
    } catch (error) {
      if (!hasErrorKind(error, "not_found")) throw error;
    }
    if (snapshot) {
      const table = new DeltaLiteTable(uri, store, snapshot);
      return { table, result: await table.write(data, writeOptions) };
    }
    // Every mode creates a missing table (`ignore` leaves one that another writer created first).
    const result = await writeNewTable(store, data, writeOptions);
    const created = result.committed
      ? result.commit.snapshot
      : await Snapshot.open(store, { signal: options.signal });
    return { table: new DeltaLiteTable(uri, store, created), result };
  }

  /**
   * Appends or overwrites in one commit (see WriteOptions; on this existing table mode `error` fails with
   * `already_exists` and `ignore` returns `committed: false`); the handle moves to the new version.
   */
  write(data: BatchSource, options: WriteOptions = {}): Promise<WriteResult> {
    return this.#serial(() =>
      this.#operate(
        options.signal,
        (latest) => writeExistingTable(latest, data, options),
        (latest, result) => (result.committed ? result.commit.snapshot : latest),
      ),
    );
  }

  /**
   * Upserts `data`: rows whose primary key exists are replaced, the rest inserted, in one atomic MERGE
   * commit, reading only the files that hold a matching key (see UpsertOptions). The handle moves to the
   * committed version.
   */
  upsert(data: UpsertSource, options: UpsertOptions): Promise<UpsertStats> {
    // observeUpsert records the deltalite_* metrics of this call (never throws into it).
    return this.#serial(() =>
      observeUpsert(options, async () => {
        const signal = options.signal ? { signal: options.signal } : {};
        const outcome = await this.#log.operate(
          this.#snapshot,
          options.signal,
          (latest) => upsertInto(latest, data, withEnvDefaults(options)),
          (latest) => reloadedOrAsIs(latest, signal),
        );
        this.#snapshot = outcome.snapshot;
        const stats = outcome.result;
        const openMs = outcome.refreshMs + outcome.settleMs;
        const initialOpenMs = this.#initialOpenMs;
        this.#initialOpenMs = 0;
        return { ...stats, openMs: stats.openMs + openMs, initialOpenMs };
      }),
    );
  }

  /**
   * Writes `data` into this SCD type 2 history table (one row per version of a key; see
   * `HistoryUpsertOptions` for the rules) in one atomic commit and bounded memory, with the environment's
   * defaults for the knobs the call leaves unset (as `upsert`). A call that keeps no source row commits
   * nothing (`committed: false`), so re-running a batch is safe. The handle moves to the committed version.
   */
  historyUpsert(data: UpsertSource, options: HistoryUpsertOptions): Promise<HistoryUpsertStats> {
    // observeHistoryUpsert records the deltalite_history_* metrics of this call (never throws into it).
    return this.#serial(() =>
      observeHistoryUpsert(async () => {
        const signal = options.signal ? { signal: options.signal } : {};
        return this.#operate(
          options.signal,
          (latest) => historyUpsertInto(latest, data, withEnvDefaults(options)),
          (latest, stats) => (stats.version === latest.version ? latest : reloadedOrAsIs(latest, signal)),
        );
      }),
    );
  }

  /**
   * A bucket id in `0..n-1` for every row of `data` by its key in `keyColumns`, for splitting a source too
   * large for one upsert into calls on disjoint keys. The key columns are cast to this handle's table types
   * first (values that become one table key share a bucket), then hashed null-safely (a NULL key part
   * matches a NULL key part) with XXH64 under a fixed seed, modulo n. The ids are the same in every process
   * running the same deltalite release; do not persist them across releases (the encoding may change).
   * Bad arguments are kind `invalid_argument`; no I/O.
   */
  keyBuckets(data: RecordBatch | Table, keyColumns: readonly string[], n: number): Uint32Array {
    return tableKeyBuckets(this.#snapshot.schema, data, keyColumns, n, this.#snapshot.table);
  }

  /**
   * Reads the table as Arrow RecordBatches (async iterable) with partition pruning, stats-based file
   * skipping and a row filter; at the handle's version unless `version` is given.
   */
  scan(options: TableScanOptions = {}): TableScan {
    const { version, ...rest } = options;
    if (version === undefined || version === this.#snapshot.version) return scanTable(this.#snapshot, rest);
    return scanTable(() => Snapshot.open(this.store, { version, signal: options.signal }), rest);
  }

  /**
   * The change data feed over `range` — `{ startingVersion, endingVersion? }` or `{ startingTimestamp,
   * endingTimestamp? }`, both ends inclusive — as Arrow RecordBatches (async iterable): the table's columns
   * (or `columns`), then `_change_type`, `_commit_version` and `_commit_timestamp`; `filter` may name both.
   * Read against the table's latest version, not only this handle's. Versions beyond the latest or cleaned
   * out of the log are `not_found`; a range reaching a version without `delta.enableChangeDataFeed=true`, or
   * a malformed range, is `invalid_argument` — raised before any row is read.
   */
  changes(range: ChangeRange, options: ChangesOptions = {}): ChangeFeed {
    const signal = options.signal ? { signal: options.signal } : {};
    return readChanges(() => this.#snapshot.reload(signal), range, options);
  }

  /** The snapshot this handle reads (changes on reload and after this handle's commits). */
  get snapshot(): Snapshot {
    return this.#snapshot;
  }
  get version(): number {
    return this.#snapshot.version;
  }
  get tableId(): string {
    return this.#snapshot.tableId;
  }
  get configuration(): Readonly<Record<string, string>> {
    return this.#snapshot.configuration;
  }
  get schema(): Schema {
    return this.#snapshot.schema;
  }
  get schemaJson(): string {
    return this.#snapshot.schemaJson;
  }
  get partitionColumns(): readonly string[] {
    return this.#snapshot.partitionColumns;
  }
  get numFiles(): number {
    return this.#snapshot.numFiles;
  }
  get files(): readonly FileView[] {
    return this.#snapshot.files;
  }
  get fileUris(): string[] {
    return this.#snapshot.fileUris;
  }

  /** Moves the handle to the latest version, reading only the new commits. */
  reload(options: { signal?: AbortSignal } = {}): Promise<number> {
    return this.#serial(async () => {
      this.#snapshot = await this.#log.refresh(this.#snapshot, options.signal);
      return this.#snapshot.version;
    });
  }

  /** commitInfo of the newest `limit` commits at or below this handle's version, newest first. */
  history(limit?: number, options: { signal?: AbortSignal } = {}): Promise<CommitHistoryEntry[]> {
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new DeltaLiteError("generic", "history limit must be a non-negative integer");
    }
    return this.#snapshot.history(limit, options);
  }

  /**
   * Deletes the rows matching `filter` (the scan's filter language) in one DELETE commit, as delta-rs's
   * `delete`: files whose stats prove every row matches are removed unread, files that may match are
   * rewritten without those rows, the rest stay. Nothing matching means no commit. With `txn`, a batch
   * already applied is skipped. The handle moves to the committed version.
   */
  delete(filter: readonly ScanFilterCondition[], options: DeleteOptions = {}): Promise<DeleteResult> {
    return this.#serial(() =>
      this.#operate(
        options.signal,
        (latest) => deleteWhere(latest, filter, options),
        (latest, result) => (result.commit ? result.commit.snapshot : latest),
      ),
    );
  }

  /**
   * Sets table properties (`{ "delta.checkpointInterval": "10", ... }`) in one SET TBLPROPERTIES commit, as
   * delta-rs's `alter.set_table_properties`: enabling `delta.enableChangeDataFeed` upgrades the protocol as
   * delta-rs does; unknown `delta.*` keys and values this library cannot act on are refused before anything
   * is written. The handle moves to the committed version.
   */
  setProperties(
    properties: Readonly<Record<string, string>>,
    options: SetTablePropertiesOptions = {},
  ): Promise<SetTablePropertiesResult> {
    return this.#serial(() =>
      this.#operate(
        options.signal,
        (latest) => setTableProperties(latest, properties, options),
        (_latest, result) => result.commit.snapshot,
      ),
    );
  }

  /**
   * The newest batch version the application `appId` committed (its `txn` action), as this handle's
   * snapshot knows it; undefined when it committed none. A batch with a version at or below it is skipped.
   */
  txnVersion(appId: string): number | undefined {
    return this.#snapshot.txnVersion(appId);
  }

  /**
   * Rewrites small files into bins planned exactly as delta-rs's `optimize.compact` plans them, streamed in
   * bounded memory; one OPTIMIZE commit (`dataChange: false`) per `maxBinsPerCommit` bins, none when there is
   * nothing to do. The handle moves to the last committed version.
   */
  compact(options: CompactOptions = {}): Promise<CompactResult> {
    return this.#serial(() =>
      this.#operate(
        options.signal,
        (latest) => compactTable(latest, options),
        (latest, result) => (result.commits > 0 ? reloadedOrAsIs(latest, {}) : latest),
      ),
    );
  }

  /**
   * Rewrites every file of the selected partitions sorted by delta-rs's Z-order curve over `columns`, in
   * bounded memory (sorted runs spill to a temporary folder beyond `maxSortBytes`); one OPTIMIZE commit
   * (`dataChange: false`, `zOrderBy`). Point filters on those columns then skip more files by their stats.
   */
  zOrder(columns: readonly string[], options: ZOrderOptions = {}): Promise<ZOrderResult> {
    return this.#serial(() =>
      this.#operate(
        options.signal,
        (latest) => zOrderTable(latest, columns, options),
        (latest, result) => (result.commits > 0 ? reloadedOrAsIs(latest, {}) : latest),
      ),
    );
  }

  /**
   * One RESTORE commit that makes the table's files those live at `target` (a version, or an instant: Date,
   * epoch ms or ISO 8601 text), as delta-rs's restore; refused with `not_found` when a file it needs was
   * vacuumed. The handle moves to the new version.
   */
  restore(target: RestoreTarget, options: RestoreOptions = {}): Promise<RestoreResult> {
    return this.#serial(() => {
      const signal = options.signal ? { signal: options.signal } : {};
      return this.#operate(
        options.signal,
        (latest) => restoreTable(latest, target, options),
        (latest) => reloadedOrAsIs(latest, signal),
      );
    });
  }

  /** Deletes files the table no longer needs (see VacuumOptions); commits only when files are deleted. */
  vacuum(options: VacuumOptions = {}): Promise<VacuumResult> {
    return this.#serial(() =>
      this.#operate(
        options.signal,
        (latest) => vacuumTable(latest, options),
        (latest, result) => (result.versions.length > 0 ? reloadedOrAsIs(latest, {}) : latest),
      ),
    );
  }

  /**
   * One table operation on the handle's log: refresh (probe or LIST), `body` on the latest snapshot, then
   * the snapshot to keep — the handle's own newest commit when adopted, else `settle` (the post-commit
   * refresh each operation made before adoption).
   */
  async #operate<T>(
    signal: AbortSignal | undefined,
    body: (latest: Snapshot) => Promise<T>,
    settle: (latest: Snapshot, result: T) => Snapshot | Promise<Snapshot>,
  ): Promise<T> {
    const outcome = await this.#log.operate(this.#snapshot, signal, body, settle);
    this.#snapshot = outcome.snapshot;
    return outcome.result;
  }

  /** Runs table operations of this handle one at a time, in call order. */
  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation, operation);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** A not_found of the latest version, with the hint how to create a table (time travel's as it is). */
function withCreateHint(error: unknown, uri: string, options: OpenTableOptions): unknown {
  if (!hasErrorKind(error, "not_found") || options.version !== undefined || options.timestamp !== undefined) {
    return error;
  }
  return new DeltaLiteTableNotFoundError(`${error.message}; ${createHint(uri)}`, { cause: error });
}

/**
 * The table after a call that has committed: the reload moves the handle, but its failure must not turn a
 * landed commit into a failed call (every operation reloads first anyway).
 */
async function reloadedOrAsIs(snapshot: Snapshot, options: { signal?: AbortSignal }): Promise<Snapshot> {
  try {
    return await snapshot.reload(options);
  } catch {
    return snapshot;
  }
}
