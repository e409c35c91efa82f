/**
 * The log side of a change-data read: which commits a range selects — versions `start..end` (an end beyond
 * the latest reads to the latest, as delta-rs), or the commits whose commitInfo timestamp lies in a window —
 * each read once, with the files that hold its changes (change-sources.ts). Versions beyond the latest or
 * whose commit was cleaned up are `not_found`; a range that reaches a version where
 * `delta.enableChangeDataFeed` was not on is `invalid_argument` — all decided before any data file is read.
 */
import {
  changeDataFeedEnabled,
  isCommitFile,
  listLogFiles,
  type MetadataAction,
  type ParsedAction,
  readCommit,
  Snapshot,
} from "@deltalite/delta-log";
import { DeltaLiteError, DeltaLiteInvalidArgumentError, hasErrorKind } from "@deltalite/errors";
import { mapLimit } from "../pool.js";
import type { CheckedRange } from "./change-range.js";
import { type ChangeCommit, distill, type RawCommit } from "./change-sources.js";

/** The commits a range selects, oldest first (none when a timestamp window holds no commit). */
export interface ChangeLog {
  commits: ChangeCommit[];
  /** First and last selected versions (undefined when none is selected). */
  startingVersion: number | undefined;
  endingVersion: number | undefined;
}

const CONCURRENCY = 8;
/** Commits read per round of a timestamp search (only the selected ones are kept). */
const CHUNK = 32;

/** Resolves `range` against the table's log up to `snapshot` (its latest version). */
export async function changeCommits(
  snapshot: Snapshot,
  range: CheckedRange,
  signal: AbortSignal | undefined,
): Promise<ChangeLog> {
  const raw =
    range.by === "version"
      ? await commitsByVersion(snapshot, range.start, range.end, signal)
      : await commitsByTimestamp(snapshot, range.startMs, range.endMs, signal);
  await checkFeedRecorded(snapshot, raw, signal);
  const commits = await mapLimit(raw, CONCURRENCY, (c) => distill(snapshot, c, signal));
  return { commits, startingVersion: raw[0]?.version, endingVersion: raw.at(-1)?.version };
}

async function commitsByVersion(
  snapshot: Snapshot,
  start: number,
  end: number | undefined,
  signal: AbortSignal | undefined,
): Promise<RawCommit[]> {
  const latest = snapshot.version;
  if (start > latest) {
    throw new DeltaLiteError(
      "not_found",
      `${snapshot.table}: no changes from version ${start}: the latest version is ${latest}`,
    );
  }
  const last = Math.min(end ?? latest, latest); // an end beyond the latest reads to the latest, as delta-rs
  const versions = Array.from({ length: last - start + 1 }, (_, i) => start + i);
  return mapLimit(versions, CONCURRENCY, (v) => readRaw(snapshot, v, signal));
}

async function commitsByTimestamp(
  snapshot: Snapshot,
  startMs: number,
  endMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<RawCommit[]> {
  const files = (await listLogFiles(snapshot.store, undefined, signal))
    .filter(isCommitFile)
    .filter((f) => f.version <= snapshot.version);
  const selected: RawCommit[] = [];
  let newest: RawCommit | undefined;
  for (let at = 0; at < files.length; at += CHUNK) {
    const chunk = files.slice(at, at + CHUNK);
    const read = await mapLimit(chunk, CONCURRENCY, async (f) => {
      const commit = await readRaw(snapshot, f.version, signal);
      return { ...commit, timestamp: commit.timestamp ?? f.meta.lastModified };
    });
    newest = read.at(-1) ?? newest;
    for (const c of read) {
      if (c.timestamp >= startMs && (endMs === undefined || c.timestamp <= endMs)) selected.push(c);
    }
  }
  if (newest && newest.timestamp !== null && startMs > newest.timestamp) {
    throw new DeltaLiteInvalidArgumentError(
      `${snapshot.table}: startingTimestamp ${new Date(startMs).toISOString()} is after the latest commit (version ${newest.version} at ${new Date(newest.timestamp).toISOString()})`,
    );
  }
  return selected;
}

async function readRaw(snapshot: Snapshot, version: number, signal: AbortSignal | undefined) {
  const table = snapshot.table;
  let actions: ParsedAction[];
  try {
    actions = await readCommit(snapshot.store, version, { signal, table });
  } catch (error) {
    if (!hasErrorKind(error, "not_found")) throw error;
    throw new DeltaLiteError(
      "not_found",
      `${table}: the commit of version ${version} is no longer in the log (log cleanup removes commits older than delta.logRetentionDuration), so its changes cannot be read`,
      { cause: error },
    );
  }
  let timestamp: number | null = null;
  for (const action of actions) {
    if (!("commitInfo" in action)) continue;
    const info = action.commitInfo;
    const t = typeof info.inCommitTimestamp === "number" ? info.inCommitTimestamp : info.timestamp;
    if (typeof t === "number") timestamp = t;
  }
  return { version, timestamp, actions };
}

function metadataOf(commit: RawCommit): MetadataAction | undefined {
  for (const action of commit.actions) if ("metaData" in action) return action.metaData;
  return undefined;
}

/**
 * `invalid_argument` unless the change data feed is on at the first selected version (its own metaData,
 * else the snapshot at that version) and no later selected commit turns it off.
 */
async function checkFeedRecorded(
  snapshot: Snapshot,
  commits: readonly RawCommit[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const first = commits[0];
  if (!first) return;
  const atStart = metadataOf(first) ?? (await metadataAt(snapshot, first.version, signal));
  const check = (metadata: MetadataAction | undefined, version: number) => {
    if (metadata === undefined || changeDataFeedEnabled(metadata)) return;
    throw new DeltaLiteInvalidArgumentError(
      `${snapshot.table}: changes of version ${version} were not recorded: the change data feed ` +
        "(table property delta.enableChangeDataFeed=true) is not enabled at that version; read changes " +
        "from a version at which it is enabled",
    );
  };
  check(atStart, first.version);
  for (const commit of commits.slice(1)) check(metadataOf(commit), commit.version);
}

/** The metadata in effect at `version`; undefined when that version can no longer be reconstructed. */
async function metadataAt(
  snapshot: Snapshot,
  version: number,
  signal: AbortSignal | undefined,
): Promise<MetadataAction | undefined> {
  if (version === snapshot.version) return snapshot.metadata;
  try {
    return (await Snapshot.open(snapshot.store, { version, signal })).metadata;
  } catch (error) {
    if (hasErrorKind(error, "not_found") || hasErrorKind(error, "corrupt_log")) return undefined;
    throw error;
  }
}
