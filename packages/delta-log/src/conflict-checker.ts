/**
 * Decides whether a transaction that lost the race for a version can be rebased onto the winning commits,
 * following delta-rs's conflict checker: a protocol or metaData change by the winner always conflicts (not
 * retryable); a winner's data-changing add in what this transaction read conflicts (ConcurrentAppend); a
 * winner's data-changing remove of a file this transaction read conflicts (ConcurrentDeleteRead); any
 * winner remove of a file this transaction also removes conflicts (ConcurrentDeleteDelete); a winner txn
 * with one of our appIds conflicts (ConcurrentTransaction, not retryable; checked before the data checks,
 * so a concurrent commit of the same batch stream is never re-planned).
 *
 * Deliberate difference: a blind append (adds only, read set `none`) reads nothing, so a concurrent
 * delete does not fail it (Spark's WriteSerializable rule); delta-rs treats every append as having read
 * the whole table. Declare `read: { kind: "table" }` to get delta-rs's behaviour.
 */
import type { AddAction, ParsedAction, RemoveAction } from "./actions.js";
import { fileId } from "./replay.js";
import { decodeLogPath } from "./table-paths.js";

/** What a transaction read from its snapshot; winners' changes inside it conflict. */
export type ReadSet =
  /** Nothing (a blind append). */
  | { kind: "none" }
  /** The whole table (e.g. an overwrite, a MERGE without a partition predicate). */
  | { kind: "table" }
  /** Every file whose partition values match one of these (a column missing from an entry matches any value). */
  | { kind: "partitions"; partitions: readonly Readonly<Record<string, string | null>>[] }
  /** Exactly these files (store keys relative to the table root). */
  | { kind: "files"; paths: readonly string[] };

export type ConflictType =
  | "ProtocolChanged"
  | "MetadataChanged"
  | "ConcurrentAppend"
  | "ConcurrentDeleteRead"
  | "ConcurrentDeleteDelete"
  | "ConcurrentTransaction";

export interface Conflict {
  type: ConflictType;
  /** The winning commit's version. */
  version: number;
  /** True when re-planning against the new snapshot is allowed (never for protocol/metadata/txn). */
  retryable: boolean;
  detail: string;
}

/** The parts of a transaction the checker needs. */
export interface TransactionSummary {
  read: ReadSet;
  /** File ids (decoded path + DV id) this transaction removes. */
  removedFileIds: ReadonlySet<string>;
  /** appIds of this transaction's txn actions. */
  appIds: ReadonlySet<string>;
  changesMetadata: boolean;
  changesProtocol: boolean;
}

/** Summarises our actions (with the table name for path errors). */
export function summarizeTransaction(
  actions: readonly ParsedAction[],
  read: ReadSet,
  table: string,
): TransactionSummary {
  const removedFileIds = new Set<string>();
  const appIds = new Set<string>();
  let changesMetadata = false;
  let changesProtocol = false;
  for (const a of actions) {
    if ("remove" in a)
      removedFileIds.add(fileId(decodeLogPath(a.remove.path, table), a.remove.deletionVector));
    else if ("txn" in a) appIds.add(a.txn.appId);
    else if ("metaData" in a) changesMetadata = true;
    else if ("protocol" in a) changesProtocol = true;
  }
  return { read, removedFileIds, appIds, changesMetadata, changesProtocol };
}

function inPartitions(
  values: Readonly<Record<string, string | null>> | null | undefined,
  read: ReadSet,
): boolean {
  if (read.kind !== "partitions") return false;
  const pv = values ?? {};
  return read.partitions.some((p) => Object.entries(p).every(([col, v]) => (pv[col] ?? null) === v));
}

function readsAdd(add: AddAction, read: ReadSet): boolean {
  if (read.kind === "table") return true;
  return inPartitions(add.partitionValues, read);
}

function readsRemovedFile(
  remove: RemoveAction,
  key: string,
  read: ReadSet,
  readFileKeys: ReadonlySet<string>,
): boolean {
  switch (read.kind) {
    case "none":
      return false;
    case "table":
      return true;
    case "files":
      return readFileKeys.has(key);
    case "partitions":
      // Removes may omit partitionValues; then the file's membership comes from our snapshot.
      return remove.partitionValues ? inPartitions(remove.partitionValues, read) : readFileKeys.has(key);
  }
}

/**
 * The first conflict between our transaction and one winning commit, or undefined when ours can be
 * rebased past it. `readFileKeys` holds the store keys of the files the transaction read (for `files`
 * read sets, and for `partitions` when a winner's remove carries no partition values).
 */
export function findConflict(
  ours: TransactionSummary,
  winner: { version: number; actions: readonly ParsedAction[] },
  readFileKeys: ReadonlySet<string>,
  table: string,
): Conflict | undefined {
  const at = (type: ConflictType, retryable: boolean, detail: string): Conflict => ({
    type,
    version: winner.version,
    retryable,
    detail,
  });
  for (const a of winner.actions) {
    if ("protocol" in a) return at("ProtocolChanged", false, "the winning commit changed the table protocol");
  }
  for (const a of winner.actions) {
    if ("metaData" in a) return at("MetadataChanged", false, "the winning commit changed the table metadata");
  }
  // Before the data checks: a batch of one of our appIds committed by someone else is never re-planned
  // (the re-plan would apply the batch twice), whatever else the winner touched.
  for (const a of winner.actions) {
    if ("txn" in a && ours.appIds.has(a.txn.appId)) {
      return at("ConcurrentTransaction", false, `the winning commit carries a txn for appId ${a.txn.appId}`);
    }
  }
  for (const a of winner.actions) {
    if ("add" in a && a.add.dataChange && readsAdd(a.add, ours.read)) {
      return at(
        "ConcurrentAppend",
        true,
        `the winning commit added ${a.add.path} in data this transaction read`,
      );
    }
  }
  for (const a of winner.actions) {
    if (!("remove" in a)) continue;
    const key = decodeLogPath(a.remove.path, table);
    if (a.remove.dataChange && readsRemovedFile(a.remove, key, ours.read, readFileKeys)) {
      return at(
        "ConcurrentDeleteRead",
        true,
        `the winning commit removed ${a.remove.path}, which this transaction read`,
      );
    }
    if (ours.removedFileIds.has(fileId(key, a.remove.deletionVector))) {
      return at("ConcurrentDeleteDelete", true, `the winning commit also removed ${a.remove.path}`);
    }
  }
  return undefined;
}
