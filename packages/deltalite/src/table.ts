/**
 * DeltaLiteTable: the handle applications hold. It opens a table at a URI (latest, a version, or a
 * timestamp), exposes the snapshot's in-memory properties with no I/O, and runs table operations —
 * reload, history, vacuum — through @deltalite/delta-log. Operations on one handle run one at a time.
 */

import {
  type CommitHistoryEntry,
  type FileView,
  Snapshot,
  type VacuumOptions,
  type VacuumResult,
  vacuum as vacuumTable,
} from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { type ObjectStore, openStore, type StorageOptions } from "@deltalite/object-store";
import type { Schema } from "apache-arrow";

export interface OpenTableOptions {
  storageOptions?: StorageOptions | undefined;
  /** Open at this version (time travel). */
  version?: number | undefined;
  /** Open at the newest version committed at or before this instant (Date, epoch ms or ISO 8601 text). */
  timestamp?: Date | number | string | undefined;
  signal?: AbortSignal | undefined;
}

export class DeltaLiteTable {
  readonly uri: string;
  readonly store: ObjectStore;
  #snapshot: Snapshot;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(uri: string, store: ObjectStore, snapshot: Snapshot) {
    this.uri = uri;
    this.store = store;
    this.#snapshot = snapshot;
  }

  /** Opens an existing table; `DeltaLiteTableNotFoundError` when there is none at `uri`. */
  static async open(uri: string, options: OpenTableOptions = {}): Promise<DeltaLiteTable> {
    const store = openStore(uri, { storageOptions: options.storageOptions });
    const snapshot = await Snapshot.open(store, {
      version: options.version,
      timestamp: options.timestamp,
      signal: options.signal,
    });
    return new DeltaLiteTable(uri, store, snapshot);
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
      this.#snapshot = await this.#snapshot.reload(options);
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

  /** Deletes files the table no longer needs (see VacuumOptions); commits only when files are deleted. */
  vacuum(options: VacuumOptions = {}): Promise<VacuumResult> {
    return this.#serial(async () => {
      const latest = await this.#snapshot.reload({ ...(options.signal ? { signal: options.signal } : {}) });
      const result = await vacuumTable(latest, options);
      this.#snapshot = result.versions.length > 0 ? await latest.reload() : latest;
      return result;
    });
  }

  /** Runs table operations of this handle one at a time, in call order. */
  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation, operation);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
