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
  const checkpoints = new Map<number, CheckpointRef>();
  const multipart = new Map<string, LogFile[]>();
  for (const file of files) {
    switch (file.kind) {
      case "commit":
        commits.set(file.version, file);
        break;
      case "checkpoint":
      case "uuidCheckpoint":
        if (!checkpoints.has(file.version) || file.kind === "checkpoint") {
          checkpoints.set(file.version, { version: file.version, kind: file.kind, files: [file.meta] });
        }
        break;
      case "multipartCheckpoint": {
        const id = `${file.version}/${file.numParts}`;
        const parts = multipart.get(id) ?? [];
        parts.push(file);
        multipart.set(id, parts);
        break;
      }
      default:
        break;
    }
  }
  for (const parts of multipart.values()) {
    const first = parts[0];
    if (first?.kind !== "multipartCheckpoint") continue;
    const byPart = new Map<number, ObjectMeta>();
    for (const p of parts) if (p.kind === "multipartCheckpoint") byPart.set(p.part, p.meta);
    if (byPart.size !== first.numParts || checkpoints.has(first.version)) continue;
    const ordered = Array.from({ length: first.numParts }, (_, i) => byPart.get(i + 1)!);
    checkpoints.set(first.version, { version: first.version, kind: "multipartCheckpoint", files: ordered });
  }
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
  let checkpoint: CheckpointRef | undefined;
  for (const [v, ref] of checkpoints)
    if (v <= target && (!checkpoint || v > checkpoint.version)) checkpoint = ref;
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
      const hasCheckpoint = files.some(
        (f) => f.kind === "checkpoint" || f.kind === "uuidCheckpoint" || f.kind === "multipartCheckpoint",
      );
      if (hasCheckpoint) {
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
