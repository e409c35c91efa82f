/**
 * The files whose rows are one commit's changes, as delta-rs's `load_cdf` and Spark's CDC reader decide
 * them: a commit with `cdc` actions contributes its change-data files (its adds and removes are ignored);
 * any other commit contributes the data files it removed with `dataChange` (deletes) and added with
 * `dataChange` (inserts); an add and a remove of the same path cancel out; `dataChange: false` files
 * (OPTIMIZE) contribute nothing. Files changed through deletion vectors are `unsupported`.
 */
import {
  type AddAction,
  decodeLogPath,
  type FileView,
  type ParsedAction,
  parseStats,
  type Snapshot,
} from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { type Comparable, type ResolvedCondition, satisfies } from "../scan/filter.js";
import { CHANGE_TYPE_COLUMN } from "../write/change-data.js";
import { COMMIT_TIMESTAMP_COLUMN, COMMIT_VERSION_COLUMN } from "./change-columns.js";

/** One file whose rows are changes of a commit. */
export interface ChangeSource {
  /** `cdc`: a change-data file (rows carry `_change_type`); `insert` / `delete`: a data file added / removed. */
  kind: "cdc" | "insert" | "delete";
  file: FileView;
}

export interface ChangeCommit {
  version: number;
  /** commitInfo's inCommitTimestamp, else its timestamp (epoch ms); null when the commit has neither. */
  timestamp: number | null;
  sources: ChangeSource[];
}

/** A commit as read from the log. */
export interface RawCommit {
  version: number;
  timestamp: number | null;
  actions: ParsedAction[];
}

/** The change sources of one commit (see the module comment). */
export async function distill(
  snapshot: Snapshot,
  commit: RawCommit,
  signal: AbortSignal | undefined,
): Promise<ChangeCommit> {
  const cdc: AddAction[] = [];
  const adds: AddAction[] = [];
  const removes: AddAction[] = [];
  for (const action of commit.actions) {
    if ("cdc" in action) cdc.push({ ...action.cdc, modificationTime: 0 });
    else if ("add" in action && action.add.dataChange) {
      refuseDeletionVector(snapshot, action.add.deletionVector, commit.version);
      adds.push(action.add);
    } else if ("remove" in action && action.remove.dataChange) {
      const r = action.remove;
      refuseDeletionVector(snapshot, r.deletionVector, commit.version);
      const size =
        r.size ?? (await snapshot.store.head(decodeLogPath(r.path, snapshot.table), { signal })).size;
      removes.push({
        path: r.path,
        partitionValues: r.partitionValues ?? {},
        size,
        modificationTime: 0,
        dataChange: true,
        stats: r.stats ?? null,
      });
    }
  }
  const view =
    (kind: ChangeSource["kind"]) =>
    (add: AddAction): ChangeSource => ({
      kind,
      file: fileView(add, commit.version, snapshot.table),
    });
  if (cdc.length > 0)
    return { version: commit.version, timestamp: commit.timestamp, sources: cdc.map(view("cdc")) };
  const added = new Set(adds.map((a) => a.path));
  const removed = new Set(removes.map((r) => r.path));
  const sources = [
    ...removes.filter((r) => !added.has(r.path)).map(view("delete")),
    ...adds.filter((a) => !removed.has(a.path)).map(view("insert")),
  ];
  return { version: commit.version, timestamp: commit.timestamp, sources };
}

function refuseDeletionVector(snapshot: Snapshot, dv: unknown, version: number): void {
  if (dv === null || dv === undefined) return;
  throw new DeltaLiteError(
    "unsupported",
    `${snapshot.table}: version ${version} changes files through deletion vectors, which this library does not read`,
  );
}

function fileView(add: AddAction, version: number, table: string): FileView {
  let stats: ReturnType<typeof parseStats> | null = null;
  return {
    path: decodeLogPath(add.path, table),
    size: add.size,
    modificationTime: add.modificationTime,
    partitionValues: add.partitionValues,
    add,
    version,
    get stats() {
      if (stats === null) stats = parseStats(add.stats);
      return stats;
    },
  };
}

/**
 * False when a condition on a change column that is constant for this file (`_commit_version`,
 * `_commit_timestamp`, and `_change_type` of a derived insert / delete) rules every row out.
 */
export function constantsMatch(
  commit: ChangeCommit,
  source: ChangeSource,
  conditions: readonly ResolvedCondition[],
): boolean {
  for (const condition of conditions) {
    let value: Comparable | null;
    if (condition.column === COMMIT_VERSION_COLUMN) value = BigInt(commit.version);
    else if (condition.column === COMMIT_TIMESTAMP_COLUMN)
      value = commit.timestamp === null ? null : BigInt(commit.timestamp) * 1000n;
    else if (condition.column === CHANGE_TYPE_COLUMN && source.kind !== "cdc") value = source.kind;
    else continue;
    if (!satisfies(value, condition)) return false;
  }
  return true;
}
