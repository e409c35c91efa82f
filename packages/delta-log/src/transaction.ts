/**
 * Commits: a transaction's actions written create-if-absent as `_delta_log/<20 digits>.json` through
 * `tryCommitVersion`, which settles every inconclusive put by the transaction's `commitInfo.txnId` (never
 * check-then-write, never a guess). Losing the race is a value (`conflict`); `commitTransaction` then reads
 * the winning commits (through `readCommit`), runs the conflict checker, rebases and retries with jittered
 * exponential backoff up to `maxRetries` (default 15, as delta-rs), else throws `DeltaLiteCommitConflictError`
 * naming the winning version. After a durable commit a post-commit hook runs (checkpoint due when
 * `(v + 1) % delta.checkpointInterval == 0`); its failure is reported, never thrown, and its time on a
 * checkpoint boundary is the result's `maintenanceMs`. The write gate sees a rewrite only where a remove
 * changes data (`dataChange: true`).
 */
import { randomUUID } from "node:crypto";
import {
  DeltaLiteCommitConflictError,
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  didYouMean,
  hasErrorKind,
} from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import {
  type Action,
  type MetadataAction,
  type ParsedAction,
  type ProtocolAction,
  serializeCommit,
} from "./actions.js";
import { buildCommitInfo } from "./commit-info.js";
import { readCommit } from "./commit-read.js";
import { type OutcomeResolution, tryCommitVersion } from "./commit-write.js";
import { type Conflict, findConflict, type ReadSet, summarizeTransaction } from "./conflict-checker.js";
import { commitKey } from "./log-path.js";
import { guardAgainstReplacement } from "./log-requests/commit-probe.js";
import { logOperationFor } from "./log-requests/operation.js";
import { listLogFiles } from "./log-segment.js";
import {
  type ChangeDataMode,
  checkWriteSupport,
  isAppendOnly,
  protocolForNewTable,
  type WriteKind,
} from "./protocol-gate.js";
import { requestSwitchOn } from "./request-switches.js";
import { type DeltaSchema, parseSchemaString, schemaToJson } from "./schema.js";
import { Snapshot } from "./snapshot.js";
import { decodeLogPath } from "./table-paths.js";
import { validateTableProperties } from "./table-properties.js";

/** Default number of retries after losing a race (16 attempts in all, as delta-rs). */
export const DEFAULT_COMMIT_MAX_RETRIES = 15;

/** Default `delta.checkpointInterval` (delta-rs's). */
export const DEFAULT_CHECKPOINT_INTERVAL = 100;

/** delta-rs's rule: a checkpoint is due after committing `version` when `(version + 1) % interval == 0`. */
export function checkpointDue(version: number, configuration: Readonly<Record<string, string>>): boolean {
  const raw = configuration["delta.checkpointInterval"];
  const interval = raw === undefined ? DEFAULT_CHECKPOINT_INTERVAL : Number(raw);
  if (!Number.isSafeInteger(interval) || interval <= 0) return false;
  return (version + 1) % interval === 0;
}

/** What the post-commit hook is told. */
export interface PostCommitContext {
  store: ObjectStore;
  version: number;
  /** The table after the commit (built in memory from the read snapshot and the winning commits). */
  snapshot: Snapshot;
  /** True when delta-rs's checkpoint rule says this version should be checkpointed. */
  checkpointDue: boolean;
}

/**
 * Post-commit maintenance seam. The checkpoint writer plugs in here (`onCheckpointDue`); log cleanup may
 * use `afterCommit`. A hook failure is returned in `CommitResult.maintenanceError`, never thrown.
 */
export interface PostCommitHooks {
  onCheckpointDue?: PostCommitHook | undefined;
  afterCommit?: PostCommitHook | undefined;
}

/** One post-commit hook. */
export type PostCommitHook = (context: PostCommitContext) => Promise<void>;

export interface CommitOptions {
  /** delta-rs operation name: WRITE, MERGE, DELETE, OPTIMIZE, CREATE TABLE, ... */
  operation: string;
  operationParameters?: Record<string, unknown> | undefined;
  /**
   * Metrics as given; a `num_retries` key (delta-rs's name) is set to the retries this commit took, so each
   * attempt carries its own count.
   */
  operationMetrics?: Record<string, unknown> | undefined;
  /** Caller metadata, flat in commitInfo. */
  commitMetadata?: Record<string, unknown> | undefined;
  /**
   * What the transaction read. Default: `none` for a blind append (only data-changing adds and txn
   * actions), else `table`.
   */
  read?: ReadSet | undefined;
  /** Retries after losing the race (default 15). */
  maxRetries?: number | undefined;
  /**
   * How a data-removing commit keeps the table's change data feed right (see `ChangeDataMode`); without
   * it such a commit is refused on a table with `delta.enableChangeDataFeed=true`.
   */
  changeData?: ChangeDataMode | undefined;
  /** Backoff before retry n is uniform in `[0, min(maxBackoffMs, baseBackoffMs * 2^n))` (defaults 5 ms, 500 ms). */
  baseBackoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
  hooks?: PostCommitHooks | undefined;
  /** Bounds on settling a commit put whose answer was inconclusive (see `tryCommitVersion`). */
  outcomeResolution?: OutcomeResolution | undefined;
  signal?: AbortSignal | undefined;
}

export interface CommitResult {
  version: number;
  /** The `commitInfo.txnId` the commit carries. */
  txnId: string;
  /** Attempts made (1 when the first try won). */
  attempts: number;
  /** Versions committed by others that this transaction was rebased past. */
  rebasedPast: number[];
  snapshot: Snapshot;
  checkpointDue: boolean;
  /**
   * Milliseconds the post-commit hooks (`onCheckpointDue`, `afterCommit`) took, failed ones included. Like the
   * original deltalite's `maintenance_ms` it counts only on checkpoint-boundary commits (`checkpointDue`); 0 otherwise.
   */
  maintenanceMs: number;
  /** Set when a post-commit hook failed; the commit itself is durable. */
  maintenanceError?: unknown;
}

function isBlindAppend(actions: readonly Action[]): boolean {
  return actions.every((a) => ("add" in a && a.add.dataChange) || "txn" in a);
}

/** True when the actions remove data (a `remove` with `dataChange: false`, as compaction writes, does not). */
function removesData(actions: readonly Action[]): boolean {
  return actions.some((a) => "remove" in a && a.remove.dataChange);
}

/**
 * What the write gate is told: a rewrite when a remove changes data; a rearrangement when files are removed
 * with `dataChange: false` (compaction: no change data, but deletion vectors still matter).
 */
function writeKindOf(actions: readonly Action[]): WriteKind {
  if (removesData(actions)) return "rewrite";
  if (actions.some((a) => "remove" in a)) return "rearrange";
  if (actions.some((a) => "add" in a)) return "append";
  return "metadata";
}

/**
 * Commits `actions` (no commitInfo: it is built here) on top of `snapshot`. Applies the write gate
 * (`DeltaLiteUnsupportedTableError`) and `delta.appendOnly`, then tries `snapshot.version + 1`; on losing,
 * rebases past winners that do not conflict. Throws `DeltaLiteCommitConflictError` (kind `conflict`) on a
 * real conflict (`retryable: false` for protocol/metadata/txn changes) or when retries run out.
 */
export async function commitTransaction(
  snapshot: Snapshot,
  actions: readonly Action[],
  options: CommitOptions,
): Promise<CommitResult> {
  const store = snapshot.store;
  const table = snapshot.table;
  const kind = writeKindOf(actions);
  const newMetadata = lastOf(actions, "metaData") as MetadataAction | undefined;
  const newProtocol = lastOf(actions, "protocol") as ProtocolAction | undefined;
  checkWriteSupport(
    newProtocol ?? snapshot.protocol,
    newMetadata ?? snapshot.metadata,
    table,
    kind,
    options.changeData,
  );
  if (isAppendOnly(newMetadata ?? snapshot.metadata) && removesData(actions)) {
    throw new DeltaLiteError(
      "unsupported",
      `${table} is append-only (delta.appendOnly=true): removing data is not allowed`,
    );
  }
  validateActions(actions, newMetadata ?? snapshot.metadata, table);
  const blind = isBlindAppend(actions);
  const read: ReadSet = options.read ?? (blind ? { kind: "none" } : { kind: "table" });
  const summary = summarizeTransaction(actions, read, table);
  const readFileKeys = readFileKeysOf(snapshot, read);
  const txnId = randomUUID();
  const countsRetries = options.operationMetrics !== undefined && "num_retries" in options.operationMetrics;
  const commitOf = (attempt: number): ParsedAction[] => {
    const commitInfo = buildCommitInfo({
      txnId,
      operation: options.operation,
      operationParameters: options.operationParameters,
      operationMetrics: countsRetries
        ? { ...options.operationMetrics, num_retries: attempt }
        : options.operationMetrics,
      commitMetadata: options.commitMetadata,
      readVersion: snapshot.version,
      isBlindAppend: blind && read.kind === "none",
    });
    return [{ commitInfo }, ...actions];
  };
  let ordered = commitOf(0);
  let bytes = serializeCommit(ordered);
  const maxRetries = options.maxRetries ?? DEFAULT_COMMIT_MAX_RETRIES;
  let current = snapshot;
  const rebasedPast: number[] = [];
  // Inside a handle's operation: no LIST before the put (there never was one); a HEAD of the read snapshot's
  // anchor first, so a table replaced under the handle fails as a conflict with nothing written.
  const operation = logOperationFor(store);
  if (operation && requestSwitchOn("optimisticCommitVersion")) {
    await guardAgainstReplacement(snapshot, options.signal);
  }
  for (let attempt = 0; ; attempt++) {
    if (countsRetries && attempt > 0) {
      ordered = commitOf(attempt);
      bytes = serializeCommit(ordered);
    }
    const version = current.version + 1;
    const result = await tryCommitVersion(store, version, bytes, txnId, {
      signal: options.signal,
      resolution: options.outcomeResolution,
    });
    if (result.kind === "committed") {
      const after = current.withCommits([{ version, actions: ordered }], current.anchor, {
        key: commitKey(version),
        etag: result.etag,
        lastModified: undefined,
      });
      const due = checkpointDue(version, after.configuration);
      operation?.landed({ snapshot: after, checkpointDue: due }, commitKey(version), bytes, result.etag);
      return finish(store, after, { txnId, attempts: attempt + 1, rebasedPast }, options.hooks);
    }
    operation?.lostRaces.push(version);
    const winners = await readWinners(store, version, table, options.signal, result.winner);
    for (const winner of winners) {
      const conflict = findConflict(summary, winner, readFileKeys, table);
      if (conflict) throw conflictError(table, conflict, snapshot.version);
      rebasedPast.push(winner.version);
    }
    if (attempt >= maxRetries) {
      throw new DeltaLiteCommitConflictError(
        `${table}: commit failed after ${attempt + 1} attempts; version ${version} was taken by a concurrent writer`,
        { retryable: true, winningVersion: winners.at(-1)?.version ?? version },
      );
    }
    current = current.withCommits(winners);
    await sleep(backoffMs(attempt, options), options.signal);
  }
}

/** Options of `createTable`. */
export interface CreateTableOptions {
  schema: DeltaSchema;
  partitionColumns?: readonly string[] | undefined;
  configuration?: Readonly<Record<string, string>> | undefined;
  name?: string | undefined;
  description?: string | undefined;
  /** Extra actions committed with the table (e.g. adds of data files). */
  actions?: readonly Action[] | undefined;
  commitMetadata?: Record<string, unknown> | undefined;
  operation?: string | undefined;
  operationParameters?: Record<string, unknown> | undefined;
  operationMetrics?: Record<string, unknown> | undefined;
  hooks?: PostCommitHooks | undefined;
  outcomeResolution?: OutcomeResolution | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Creates a table: writes version 0 with the lowest protocol the schema and configuration need, and a new
 * metaData (fresh table id). Throws `already_exists` when the table (any version 0) exists,
 * `invalid_argument` for partition columns missing from the schema and unknown `delta.*` table properties
 * (see `validateTableProperties`), `DeltaLiteUnsupportedTableError` for configuration we cannot honour.
 * Nothing is written when it throws.
 */
export async function createTable(store: ObjectStore, options: CreateTableOptions): Promise<CommitResult> {
  const table = store.root;
  const configuration = { ...(options.configuration ?? {}) };
  const partitionColumns = [...(options.partitionColumns ?? [])];
  const schema = parseSchemaString(schemaToJson(options.schema), `${table} schema`);
  for (const column of partitionColumns) {
    const field = schema.fields.find((f) => f.name === column);
    if (!field) {
      const names = schema.fields.map((f) => f.name);
      throw new DeltaLiteInvalidArgumentError(
        `${table}: partition column ${JSON.stringify(column)} is not in the schema${didYouMean(column, names)} (columns: ${names.join(", ")})`,
      );
    }
    if (typeof field.type !== "string") {
      throw new DeltaLiteError(
        "schema_mismatch",
        `${table}: partition column ${column} must have a primitive type`,
      );
    }
  }
  const protocol = protocolForNewTable(schema, configuration, table);
  validateTableProperties(configuration, table);
  const metaData: MetadataAction = {
    id: randomUUID(),
    name: options.name ?? null,
    description: options.description ?? null,
    format: { provider: "parquet", options: {} },
    schemaString: schemaToJson(schema),
    partitionColumns,
    createdTime: Date.now(),
    configuration,
  };
  checkWriteSupport(protocol, metaData, table, "append");
  const actions: Action[] = [{ protocol }, { metaData }, ...(options.actions ?? [])];
  validateActions(actions.slice(2), metaData, table);
  const txnId = randomUUID();
  const commitInfo = buildCommitInfo({
    txnId,
    operation: options.operation ?? "CREATE TABLE",
    operationParameters: options.operationParameters ?? {
      mode: "ErrorIfExists",
      location: table,
      protocol: protocol,
      metadata: metaData,
    },
    operationMetrics: options.operationMetrics,
    commitMetadata: options.commitMetadata,
  });
  // Version 0 may have been cleaned up from an existing table: any log file means the table exists. The
  // create below is still atomic; this only guards that case.
  const existing = await listLogFiles(store, undefined, options.signal);
  const committed: ParsedAction[] = [{ commitInfo }, ...actions];
  const result =
    existing.length > 0
      ? ({ kind: "conflict", version: 0 } as const)
      : await tryCommitVersion(store, 0, serializeCommit(committed), txnId, {
          signal: options.signal,
          resolution: options.outcomeResolution,
        });
  if (result.kind === "conflict") {
    throw new DeltaLiteError("already_exists", `a Delta table already exists at ${table}`);
  }
  // Built from what was committed: a read here could fail and turn a created table into a failed call.
  const snapshot = Snapshot.fromFirstCommit(store, committed);
  return finish(store, snapshot, { txnId, attempts: 1, rebasedPast: [] }, options.hooks);
}

async function finish(
  store: ObjectStore,
  snapshot: Snapshot,
  landed: Pick<CommitResult, "txnId" | "attempts" | "rebasedPast">,
  hooks: PostCommitHooks | undefined,
): Promise<CommitResult> {
  const due = checkpointDue(snapshot.version, snapshot.configuration);
  const result: CommitResult = {
    version: snapshot.version,
    ...landed,
    snapshot,
    checkpointDue: due,
    maintenanceMs: 0,
  };
  const context: PostCommitContext = { store, version: snapshot.version, snapshot, checkpointDue: due };
  // Each hook is timed on its own, failures included; the time counts only on a checkpoint boundary.
  const run = async (hook: PostCommitHook | undefined) => {
    if (!hook) return;
    const started = performance.now();
    try {
      await hook(context);
    } finally {
      if (due) result.maintenanceMs += performance.now() - started;
    }
  };
  try {
    if (due) await run(hooks?.onCheckpointDue);
    await run(hooks?.afterCommit);
  } catch (error) {
    result.maintenanceError = error;
  }
  return result;
}

/**
 * Reads the commits from `version` on by peeking: GETs of `version`, `version + 1`, ... in parallel batches
 * of 4 until one is not found (no LIST: a loser learns the winners in one round trip when they are few).
 */
async function readWinners(
  store: ObjectStore,
  version: number,
  table: string,
  signal: AbortSignal | undefined,
  first: ParsedAction[] | undefined,
): Promise<{ version: number; actions: ParsedAction[] }[]> {
  // The first winner, when the commit path already read it to settle the outcome, is not read again.
  const out: { version: number; actions: ParsedAction[] }[] = first ? [{ version, actions: first }] : [];
  const batch = 4;
  for (let from = version + out.length; ; from += batch) {
    const got = await Promise.all(
      Array.from({ length: batch }, async (_, i) => {
        try {
          return await readCommit(store, from + i, { signal, table });
        } catch (error) {
          if (hasErrorKind(error, "not_found")) return undefined;
          throw error;
        }
      }),
    );
    for (const [i, actions] of got.entries()) {
      if (!actions) {
        if (out.length === 0) {
          throw new DeltaLiteError(
            "corrupt_log",
            `${table}: commit ${version} exists but could not be read`,
            {
              retryable: true,
            },
          );
        }
        return out;
      }
      out.push({ version: from + i, actions });
    }
  }
}

/**
 * Checks what a commit must never contain: a caller-made commitInfo (it is built here), file paths outside
 * the table or inside `_delta_log/`, and adds whose partition values do not name exactly the table's
 * partition columns. Throws before anything is written.
 */
function validateActions(actions: readonly Action[], metadata: MetadataAction, table: string): void {
  const partitionColumns = [...metadata.partitionColumns].sort();
  for (const a of actions) {
    if ("commitInfo" in a) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: pass commitInfo fields as commit options, not as an action`,
      );
    }
    if (!("add" in a) && !("remove" in a)) continue;
    const file = "add" in a ? a.add : a.remove;
    const key = decodeLogPath(file.path, table);
    if (key.startsWith("_delta_log/")) {
      throw new DeltaLiteError(
        "invalid_path",
        `${table}: data file path ${JSON.stringify(file.path)} is inside _delta_log`,
      );
    }
    if ("add" in a) {
      const given = Object.keys(a.add.partitionValues).sort();
      if (given.length !== partitionColumns.length || given.some((c, i) => c !== partitionColumns[i])) {
        throw new DeltaLiteError(
          "schema_mismatch",
          `${table}: add ${JSON.stringify(a.add.path)} has partition values for [${given.join(", ")}] but the table is partitioned by [${partitionColumns.join(", ")}]`,
        );
      }
    }
  }
}

function readFileKeysOf(snapshot: Snapshot, read: ReadSet): Set<string> {
  if (read.kind === "files") return new Set(read.paths);
  if (read.kind !== "partitions") return new Set();
  const keys = new Set<string>();
  for (const file of snapshot.liveFiles()) {
    const pv = file.add.partitionValues;
    if (read.partitions.some((p) => Object.entries(p).every(([c, v]) => (pv[c] ?? null) === v)))
      keys.add(file.key);
  }
  return keys;
}

function conflictError(table: string, conflict: Conflict, readVersion: number): DeltaLiteCommitConflictError {
  return new DeltaLiteCommitConflictError(
    `${table}: commit conflict (${conflict.type}) with version ${conflict.version} (read at version ${readVersion}): ${conflict.detail}`,
    { retryable: conflict.retryable, winningVersion: conflict.version },
  );
}

function lastOf(actions: readonly Action[], key: "metaData" | "protocol"): unknown {
  let found: unknown;
  for (const a of actions) if (key in a) found = (a as Record<string, unknown>)[key];
  return found;
}

/** "Full jitter": uniform in [0, min(max, base · 2^attempt)), so a loser that just learned the latest version often retries at once. */
function backoffMs(attempt: number, options: CommitOptions): number {
  const base = options.baseBackoffMs ?? 5;
  const max = options.maxBackoffMs ?? 500;
  return Math.min(max, base * 2 ** attempt) * Math.random();
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DeltaLiteError("aborted", "commit aborted", { cause: signal.reason }));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new DeltaLiteError("aborted", "commit aborted", { cause: signal?.reason }));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
