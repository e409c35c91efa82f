/**
 * The log segment of a snapshot: the newest complete checkpoint at or below the wanted version plus the
 * contiguous JSON commits after it. Invariants: commit versions have no gaps; only commits newer than the
 * checkpoint are kept; a multi-part checkpoint counts only when all its parts are listed. `_last_checkpoint`
 * is a hint: it narrows the one LIST to the files from its version on, and a missing, corrupt or stale hint
 * falls back to listing the whole log.
 */
import { DeltaLiteError, DeltaLiteTableNotFoundError, hasErrorKind } from "@deltalite/errors";
import type { ObjectMeta, ObjectStore } from "@deltalite/object-store";
import { isRecord } from "./actions.js";
import { formatVersion, LAST_CHECKPOINT_KEY, LOG_PREFIX, type LogPath, parseLogPath } from "./log-path.js";

/** A listed log file: its classification plus the store's metadata (size, lastModified). */
export type LogFile = LogPath & { meta: ObjectMeta };

/** A listed commit file. */
export type CommitFile = Extract<LogPath, { kind: "commit" }> & { meta: ObjectMeta };

export function isCommitFile(file: LogFile): file is CommitFile {
  return file.kind === "commit";
}

export interface CheckpointRef {
  version: number;
  kind: "checkpoint" | "multipartCheckpoint" | "uuidCheckpoint";
  /** The checkpoint's files; several (ordered by part) for a multi-part checkpoint. */
  files: ObjectMeta[];
}

export interface LogSegment {
  /** The version the segment reconstructs. */
  version: number;
  checkpoint: CheckpointRef | undefined;
  /** Commit files after the checkpoint (or from version 0), ascending and contiguous. */
  commits: CommitFile[];
}

/** The `_last_checkpoint` hint as the protocol defines it (only the fields replay uses are checked). */
export interface LastCheckpointHint {
  version: number;
  size?: number;
  parts?: number;
  sizeInBytes?: number;
  numOfAddFiles?: number;
  [key: string]: unknown;
}

/** Reads `_last_checkpoint`; undefined when it is missing or unreadable (it is only a hint). */
export async function readLastCheckpoint(
  store: ObjectStore,
  signal?: AbortSignal,
): Promise<LastCheckpointHint | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await store.get(LAST_CHECKPOINT_KEY, { signal });
  } catch (error) {
    if (hasErrorKind(error, "not_found")) return undefined;
    throw error;
  }
  try {
    // Some writers append a newline or write several lines; the first JSON object is the hint.
    const text = new TextDecoder().decode(bytes).trim().split("\n")[0] ?? "";
    const value: unknown = JSON.parse(text);
    if (!isRecord(value) || typeof value.version !== "number" || !Number.isSafeInteger(value.version)) {
      return undefined;
    }
    return value as LastCheckpointHint;
  } catch {
    return undefined;
  }
}

/** Lists `_delta_log/` (from `fromVersion` on when given) and classifies each file; one LIST request. */
export async function listLogFiles(
  store: ObjectStore,
  fromVersion: number | undefined,
  signal?: AbortSignal,
): Promise<LogFile[]> {
  const out: LogFile[] = [];
  const startAfter =
    fromVersion !== undefined && fromVersion > 0 ? `${LOG_PREFIX}${formatVersion(fromVersion)}` : undefined;
  for await (const meta of store.list(LOG_PREFIX, { startAfter, signal })) {
    const path = parseLogPath(meta.key);
    if (path.kind !== "unknown") out.push({ ...path, meta });
  }
  return out;
}

/** True for the kinds of checkpoint file a snapshot can start from (classic, multi-part, UUID-named v2). */
export function isCheckpointFile(
  file: LogFile,
): file is LogFile & { kind: "checkpoint" | "multipartCheckpoint" | "uuidCheckpoint" } {
  return file.kind === "checkpoint" || file.kind === "multipartCheckpoint" || file.kind === "uuidCheckpoint";
}

/**
 * The complete checkpoints in a listing, by version — the one completeness rule, shared by the segment
 * builder and log cleanup. A classic or UUID-named checkpoint is one file (classic wins over UUID at one
 * version); a multi-part checkpoint counts only when every part 1..n of one `n` is listed, its files ordered
 * by part, and only where no single-file checkpoint of that version exists.
 */
export function completeCheckpoints(files: readonly LogFile[]): Map<number, CheckpointRef> {
  const checkpoints = new Map<number, CheckpointRef>();
  const multipart = new Map<string, { version: number; numParts: number; parts: Map<number, ObjectMeta> }>();
  for (const file of files) {
    if (file.kind === "checkpoint" || file.kind === "uuidCheckpoint") {
      if (!checkpoints.has(file.version) || file.kind === "checkpoint") {
        checkpoints.set(file.version, { version: file.version, kind: file.kind, files: [file.meta] });
      }
    } else if (file.kind === "multipartCheckpoint") {
      const id = `${file.version}/${file.numParts}`;
      const group = multipart.get(id) ?? { version: file.version, numParts: file.numParts, parts: new Map() };
      group.parts.set(file.part, file.meta);
      multipart.set(id, group);
    }
  }
  for (const { version, numParts, parts } of multipart.values()) {
    if (parts.size !== numParts || checkpoints.has(version)) continue;
    const ordered = Array.from({ length: numParts }, (_, i) => parts.get(i + 1)!);
    checkpoints.set(version, { version, kind: "multipartCheckpoint", files: ordered });
  }
  return checkpoints;
}

/** The newest of `checkpoints` (from `completeCheckpoints`) at or below `version`, if any. */
export function newestCheckpointAtOrBefore(
  checkpoints: ReadonlyMap<number, CheckpointRef>,
  version: number,
): CheckpointRef | undefined {
  let best: CheckpointRef | undefined;
  for (const [v, ref] of checkpoints) if (v <= version && (!best || v > best.version)) best = ref;
  return best;
}

/**
 * Picks the segment for `version` (latest when undefined) out of a listing. Throws
 * `DeltaLiteTableNotFoundError` when the listing has no commit and no checkpoint, `not_found` for a
 * version outside what the log can reconstruct, and `corrupt_log` for a gap in the commit versions.
 */
export function buildSegment(
  files: readonly LogFile[],
  version: number | undefined,
  table: string,
): LogSegment {
  const commits = new Map<number, CommitFile>();
  for (const file of files) if (isCommitFile(file)) commits.set(file.version, file);
  const checkpoints = completeCheckpoints(files);
  if (commits.size === 0 && checkpoints.size === 0) {
    throw new DeltaLiteTableNotFoundError(`no Delta table at ${table}: _delta_log has no commits`);
  }
  // Loops, not Math.max(...spread): a long log has more versions than a call has arguments.
  let latest = -1;
  for (const v of commits.keys()) if (v > latest) latest = v;
  for (const v of checkpoints.keys()) if (v > latest) latest = v;
  const target = version ?? latest;
  if (target > latest) {
    throw new DeltaLiteError("not_found", `${table}: version ${target} does not exist (latest is ${latest})`);
  }
  const checkpoint = newestCheckpointAtOrBefore(checkpoints, target);
  const from = checkpoint ? checkpoint.version + 1 : 0;
  const tail: CommitFile[] = [];
  for (let v = from; v <= target; v++) {
    const commit = commits.get(v);
    if (!commit) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const k of commits.keys()) if (k < earliest) earliest = k;
      if (!checkpoint && v === 0 && commits.size > 0 && earliest > 0) {
        throw new DeltaLiteError(
          "not_found",
          `${table}: version ${target} cannot be reconstructed (no checkpoint at or below it, oldest commit is ${earliest})`,
        );
      }
      throw new DeltaLiteError(
        "corrupt_log",
        `${table}: the log is missing commit ${v} (versions are not contiguous between ${from} and ${target})`,
      );
    }
    tail.push(commit);
  }
  return { version: target, checkpoint, commits: tail };
}

/**
 * Finds the segment for `version` (latest when undefined). For the latest version the `_last_checkpoint`
 * hint narrows the listing; requests: 1 GET of the hint + 1 LIST, or 1 GET + 2 LISTs when the hint is
 * stale, or 1 LIST when a version is given (time travel lists the whole log).
 */
export async function findSegment(
  store: ObjectStore,
  version: number | undefined,
  table: string,
  signal?: AbortSignal,
): Promise<{ segment: LogSegment; hint: LastCheckpointHint | undefined }> {
  if (version === undefined) {
    const hint = await readLastCheckpoint(store, signal);
    if (hint) {
      const files = await listLogFiles(store, hint.version, signal);
      if (files.some(isCheckpointFile)) {
        try {
          const segment = buildSegment(files, undefined, table);
          if (segment.checkpoint) return { segment, hint };
        } catch (error) {
          if (!hasErrorKind(error, "corrupt_log") && !hasErrorKind(error, "not_found")) throw error;
        }
      }
    }
    const files = await listLogFiles(store, undefined, signal);
    return { segment: buildSegment(files, undefined, table), hint };
  }
  const files = await listLogFiles(store, undefined, signal);
  return { segment: buildSegment(files, version, table), hint: undefined };
}
