/**
 * `Snapshot`: an immutable view of a table at one version, built from its log segment (checkpoint + JSON
 * tail), opened at the latest version, at a given version or at a timestamp (delta-rs's rule: the newest
 * commit whose file's modification time is at or before the timestamp, clamped to the oldest commit).
 * Exposes version, tableId, configuration, schema (Arrow + Delta JSON), partition columns, live files,
 * tombstones, txn versions; `reload()` reads only the commits after this version; `history()` reads
 * commitInfo newest first. Commit files are read through `readCommit` (commit-read.ts). Opening applies the read gate (`DeltaLiteUnsupportedTableError`).
 * A snapshot remembers the newest commit file its loads read (`anchor`, for the refresh probe).
 */
import {
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  DeltaLiteTableNotFoundError,
} from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import type { Schema } from "apache-arrow";
import type {
  AddAction,
  CommitInfoAction,
  DomainMetadataAction,
  MetadataAction,
  ParsedAction,
  ProtocolAction,
  RemoveAction,
} from "./actions.js";
import { parseCommit } from "./actions.js";
import { readCheckpoint } from "./checkpoint-read.js";
import { readCommits } from "./commit-read.js";
import { assertVersion } from "./log-path.js";
import { anchorOf, type CommitAnchor, isKnownFile, type OwnLogFile } from "./log-requests/anchor.js";
import {
  buildSegment,
  type CommitFile,
  findSegment,
  isCommitFile,
  type LogFile,
  type LogSegment,
  listLogFiles,
} from "./log-segment.js";
import { checkReadSupport } from "./protocol-gate.js";
import { type LiveFile, ReplayState } from "./replay.js";
import { type DeltaSchema, deltaSchemaToArrow, parseSchemaString } from "./schema.js";

export interface OpenSnapshotOptions {
  /** Open at this version (time travel). */
  version?: number | undefined;
  /** Open at the newest version committed at or before this instant (Date, epoch ms, or ISO 8601 text). */
  timestamp?: Date | number | string | undefined;
  /** Apply the read gate (default true). Only tools that print raw log state turn it off. */
  checkReadSupport?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

/** Parsed per-file statistics (PROTOCOL.md "Per-file Statistics"). */
export interface FileStats {
  numRecords?: number;
  minValues?: Record<string, unknown>;
  maxValues?: Record<string, unknown>;
  nullCount?: Record<string, unknown>;
  tightBounds?: boolean;
  [key: string]: unknown;
}

/** A live data file as the snapshot exposes it. */
export interface FileView {
  /** Store key relative to the table root (add.path decoded once). */
  readonly path: string;
  readonly size: number;
  readonly modificationTime: number;
  readonly partitionValues: Readonly<Record<string, string | null>>;
  /** Parsed stats, or undefined when the add carries none (parsed on first access). */
  readonly stats: FileStats | undefined;
  /** The add action as the log holds it. */
  readonly add: AddAction;
  /** The commit that added the file (the checkpoint's version for a file a checkpoint lists). */
  readonly version: number;
}

/** One entry of `history()`: the commit's version and its commitInfo (empty when the commit has none). */
export interface CommitHistoryEntry {
  version: number;
  /** commitInfo.timestamp, else the commit file's modification time. */
  timestamp: number;
  operation: string | undefined;
  commitInfo: CommitInfoAction;
}

/** Options of `Snapshot.reload`. */
export interface ReloadOptions {
  signal?: AbortSignal | undefined;
  /** Bytes of commits already fetched (the refresh probe's GET of version + 1), by version: not fetched again. */
  prefetched?: ReadonlyMap<number, Uint8Array> | undefined;
  /** List from this version's own commit on, so a snapshot whose loads read no commit gets an anchor. */
  includeCurrent?: boolean | undefined;
}

export class Snapshot {
  readonly store: ObjectStore;
  readonly version: number;
  /**
   * The newest commit file this snapshot's loads read, as listed (undefined when they read none: a
   * checkpoint version, or a snapshot built in memory from its creator's commit). Commits applied in memory
   * keep the anchor they were applied to.
   */
  readonly anchor: CommitAnchor | undefined;
  readonly protocol: ProtocolAction;
  readonly metadata: MetadataAction;
  readonly deltaSchema: DeltaSchema;
  readonly #state: ReplayState;
  readonly #gate: boolean;
  readonly #ownFile: OwnLogFile | undefined;
  #arrow: Schema | undefined;
  #files: FileView[] | undefined;

  private constructor(
    store: ObjectStore,
    version: number,
    state: ReplayState,
    gate: boolean,
    anchor: CommitAnchor | undefined,
    ownFile: OwnLogFile | undefined,
  ) {
    const table = state.table;
    if (!state.protocol)
      throw new DeltaLiteError(
        "corrupt_log",
        `${table}: no protocol action in the log at version ${version}`,
      );
    if (!state.metadata)
      throw new DeltaLiteError(
        "corrupt_log",
        `${table}: no metaData action in the log at version ${version}`,
      );
    this.store = store;
    this.version = version;
    this.anchor = anchor;
    this.#ownFile = ownFile;
    this.protocol = state.protocol;
    this.metadata = state.metadata;
    this.#state = state;
    this.#gate = gate;
    if (gate) checkReadSupport(this.protocol, this.metadata, table);
    this.deltaSchema = parseSchemaString(this.metadata.schemaString, `${table} schemaString`);
  }

  /** Opens the table at `store`'s root. Missing table → `DeltaLiteTableNotFoundError`. */
  static async open(store: ObjectStore, options: OpenSnapshotOptions = {}): Promise<Snapshot> {
    const table = store.root;
    const signal = options.signal;
    let segment: LogSegment;
    if (options.timestamp !== undefined) {
      if (options.version !== undefined) {
        throw new DeltaLiteInvalidArgumentError("open a snapshot at a version or at a timestamp, not both");
      }
      const files = await listLogFiles(store, undefined, signal);
      segment = buildSegment(files, versionAtTimestamp(files, toMillis(options.timestamp), table), table);
    } else {
      if (options.version !== undefined) assertVersion(options.version);
      segment = (await findSegment(store, options.version, table, signal)).segment;
    }
    const state = new ReplayState(table);
    if (segment.checkpoint) {
      state.apply(await readCheckpoint(store, segment.checkpoint, table, signal), segment.checkpoint.version);
    }
    const commits = await readCommits(store, segment.commits, table, signal);
    for (const [i, actions] of commits.entries()) state.apply(actions, segment.commits[i]!.version);
    const newest = segment.commits.at(-1);
    const anchor = newest ? anchorOf(newest) : undefined;
    const ownFile = newest?.meta ?? segment.checkpoint?.files[0];
    return new Snapshot(store, segment.version, state, options.checkReadSupport ?? true, anchor, ownFile);
  }

  /** Version 0 built in memory from the actions its creator committed (no I/O: the commit path's view). */
  static fromFirstCommit(store: ObjectStore, actions: readonly ParsedAction[]): Snapshot {
    const state = new ReplayState(store.root);
    state.apply(actions, 0);
    return new Snapshot(store, 0, state, true, undefined, undefined);
  }

  /** Display name of the table (its root URL). */
  get table(): string {
    return this.#state.table;
  }
  get tableId(): string {
    return this.metadata.id;
  }
  get configuration(): Readonly<Record<string, string>> {
    return this.metadata.configuration;
  }
  get partitionColumns(): readonly string[] {
    return this.metadata.partitionColumns;
  }
  /** The schema as Delta schema JSON text (`metaData.schemaString`). */
  get schemaJson(): string {
    return this.metadata.schemaString;
  }
  /** The schema as an Arrow schema (built on first access). */
  get schema(): Schema {
    this.#arrow ??= deltaSchemaToArrow(this.deltaSchema);
    return this.#arrow;
  }
  get numFiles(): number {
    return this.#state.files.size;
  }
  /** Live files, in no particular order. */
  get files(): readonly FileView[] {
    this.#files ??= Array.from(this.#state.files.values(), toFileView);
    return this.#files;
  }
  /** Absolute URIs of the live files (store root + key). */
  get fileUris(): string[] {
    const root = this.store.root.replace(/\/$/, "");
    return this.files.map((f) => `${root}/${f.path}`);
  }
  /** Removed files still known to the log (vacuum candidates once their retention passes). */
  get tombstones(): readonly { path: string; remove: RemoveAction }[] {
    return Array.from(this.#state.tombstones.values(), (t) => ({ path: t.key, remove: t.remove }));
  }
  /** Latest committed version per application id (from `txn` actions). */
  get appTransactions(): ReadonlyMap<string, number> {
    return new Map(Array.from(this.#state.txns.values(), (t) => [t.appId, t.version]));
  }
  /** The latest version `appId` committed, or undefined. */
  txnVersion(appId: string): number | undefined {
    return this.#state.txns.get(appId)?.version;
  }
  get domainMetadata(): ReadonlyMap<string, DomainMetadataAction> {
    return this.#state.domains;
  }
  /**
   * The replayed state (protocol, metadata, live files, tombstones, txns, domain metadata) as read-only
   * maps: what a checkpoint of this version must hold (the checkpoint writer's input).
   */
  checkpointSource(): Readonly<
    Pick<ReplayState, "protocol" | "metadata" | "files" | "tombstones" | "txns" | "domains">
  > {
    return this.#state;
  }

  /** Live file keys and their add actions (for the commit layer's conflict checks). */
  liveFiles(): IterableIterator<LiveFile> {
    return this.#state.files.values();
  }

  /**
   * A snapshot after applying further commits' actions in memory (used by the commit layer). `ownFile`: the
   * last commit's file as its writer knows it (the commit path passes its put's etag); by default the anchor's
   * when the anchor is the last commit.
   */
  withCommits(
    commits: readonly { version: number; actions: readonly ParsedAction[] }[],
    anchor: CommitAnchor | undefined = this.anchor,
    ownFile?: OwnLogFile,
  ): Snapshot {
    const state = this.#state.clone();
    let version = this.version;
    for (const c of commits) {
      if (c.version !== version + 1) {
        throw new DeltaLiteError(
          "corrupt_log",
          `${this.table}: commit ${c.version} does not follow ${version}`,
        );
      }
      state.apply(c.actions, c.version);
      version = c.version;
    }
    const own = ownFile ?? (anchor?.version === version ? anchor : undefined);
    return new Snapshot(this.store, version, state, this.#gate, anchor, own);
  }

  /**
   * The latest snapshot, reading only the commits after this version (one LIST + one GET per new commit,
   * none for a commit in `prefetched`). Returns this snapshot when nothing new was committed (with a newer
   * anchor when `includeCurrent` listed this version's own commit). When the commits right after this version are
   * gone (log cleanup ran past it), or `includeCurrent` finds neither this version's commit nor a newer one (a
   * shorter table re-created at the root), falls back to a full open at the latest version.
   */
  async reload(options: ReloadOptions = {}): Promise<Snapshot> {
    const from = options.includeCurrent ? this.version : this.version + 1;
    const files = await listLogFiles(this.store, from, options.signal);
    // A table re-created at the root to this version or beyond: the file this snapshot knows at its version
    // is gone or another object (a snapshot read from a checkpoint, or one that put its own commit, may have
    // no anchor to catch it).
    const known = this.#ownFile;
    if (options.includeCurrent && known) {
      const listed = files.find((f) => f.meta.key === known.key);
      if (!listed || !isKnownFile(known, listed.meta)) return this.reopen({ signal: options.signal });
    }
    const commits = files.filter(isCommitFile).filter((f) => f.version > this.version);
    if (commits.length === 0) {
      // Listed from this version on: its own commit file becomes the anchor when it is newer or the first.
      const own = files.find((f): f is CommitFile => isCommitFile(f) && f.version === this.version);
      // Listed from this version on and its own commit is gone with nothing newer: the table at the root
      // is a shorter one (deleted and re-created; log cleanup never removes the newest commit).
      if (options.includeCurrent && !own) return this.reopen({ signal: options.signal });
      const stale = own && (!this.anchor || this.anchor.version < own.version);
      if (!stale) return this;
      return new Snapshot(this.store, this.version, this.#state, this.#gate, anchorOf(own), own.meta);
    }
    const tail: CommitFile[] = [];
    for (const c of commits) {
      if (c.version !== this.version + 1 + tail.length) break;
      tail.push(c);
    }
    if (tail.length !== commits.length) {
      return Snapshot.open(this.store, { checkReadSupport: this.#gate, signal: options.signal });
    }
    const prefetched = options.prefetched;
    const unread = prefetched ? tail.filter((c) => !prefetched.has(c.version)) : tail;
    const read = await readCommits(this.store, unread, this.table, options.signal);
    const byVersion = new Map(unread.map((c, i) => [c.version, read[i]!]));
    const actionsOf = (c: CommitFile) =>
      byVersion.get(c.version) ?? parseCommit(prefetched!.get(c.version)!, `${this.table}/${c.meta.key}`);
    const applied = tail.map((c) => ({ version: c.version, actions: actionsOf(c) }));
    return this.withCommits(applied, anchorOf(tail.at(-1)!));
  }

  /** The table at its latest version, loaded afresh (a full open with this snapshot's read gate). */
  reopen(options: { signal?: AbortSignal | undefined } = {}): Promise<Snapshot> {
    return Snapshot.open(this.store, { checkReadSupport: this.#gate, signal: options.signal });
  }

  /**
   * commitInfo of the newest `limit` commits at or below this version, newest first: one LIST, then one
   * GET per returned commit. Commits whose file was cleaned up are skipped.
   */
  async history(limit?: number, options: { signal?: AbortSignal } = {}): Promise<CommitHistoryEntry[]> {
    const files = await listLogFiles(this.store, undefined, options.signal);
    const commits = files
      .filter(isCommitFile)
      .filter((f) => f.version <= this.version)
      .reverse();
    const wanted = limit === undefined ? commits : commits.slice(0, Math.max(0, limit));
    const contents = await readCommits(this.store, wanted, this.table, options.signal);
    return wanted.map((file, i) => {
      const info =
        contents[i]!.find((a): a is { commitInfo: CommitInfoAction } => "commitInfo" in a)?.commitInfo ?? {};
      return {
        version: file.version,
        timestamp: typeof info.timestamp === "number" ? info.timestamp : file.meta.lastModified,
        operation: typeof info.operation === "string" ? info.operation : undefined,
        commitInfo: info,
      };
    });
  }
}

function toFileView(file: LiveFile): FileView {
  const add = file.add;
  let parsed: FileStats | undefined | null = null;
  return {
    path: file.key,
    size: add.size,
    modificationTime: add.modificationTime,
    partitionValues: add.partitionValues,
    add,
    version: file.version,
    get stats(): FileStats | undefined {
      if (parsed === null) parsed = parseStats(add.stats);
      return parsed;
    },
  };
}

/** Parses `add.stats` JSON text; undefined when absent or not a JSON object. */
export function parseStats(stats: string | null | undefined): FileStats | undefined {
  if (typeof stats !== "string" || stats === "") return undefined;
  try {
    const value: unknown = JSON.parse(stats);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as FileStats)
      : undefined;
  } catch {
    return undefined;
  }
}

function toMillis(timestamp: Date | number | string): number {
  const ms =
    timestamp instanceof Date
      ? timestamp.getTime()
      : typeof timestamp === "number"
        ? timestamp
        : Date.parse(timestamp);
  if (!Number.isFinite(ms)) {
    throw new DeltaLiteInvalidArgumentError(
      `invalid timestamp ${String(timestamp)}: give a Date, epoch milliseconds or an ISO 8601 text`,
    );
  }
  return ms;
}

/** delta-rs's rule: the newest commit whose file mtime ≤ `ms`, clamped to the oldest listed commit. */
function versionAtTimestamp(files: readonly LogFile[], ms: number, table: string): number {
  const commits = files.filter(isCommitFile);
  if (commits.length === 0)
    throw new DeltaLiteTableNotFoundError(`no Delta table at ${table}: _delta_log has no commits`);
  let chosen = commits[0]!.version;
  for (const c of commits) if (c.meta.lastModified <= ms) chosen = Math.max(chosen, c.version);
  return chosen;
}
