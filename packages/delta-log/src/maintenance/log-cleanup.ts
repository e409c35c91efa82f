/**
 * Which expired log files may be deleted, decided the way delta-rs ≥ 1.2 does ("safe checkpoint"): only
 * commits and checkpoints older than the newest checkpoint that every still-retained version can start
 * from, and only when their modification time is past the cutoff. File names are classified by the one
 * log-path classifier (`parseLogPath`) and checkpoint completeness is the segment builder's rule
 * (`completeCheckpoints`). Only commits and classic / multi-part checkpoints are deleted or taken as the safe
 * checkpoint; `_last_checkpoint`, UUID-named (v2) checkpoints, `.crc` files, compacted logs and anything the
 * classifier does not know are never deleted.
 */
import type { ObjectMeta } from "@deltalite/object-store";
import { LOG_PREFIX, parseLogPath } from "../log-path.js";
import { completeCheckpoints, type LogFile, newestCheckpointAtOrBefore } from "../log-segment.js";

/** A log file cleanup may delete: a commit, or a classic or multi-part checkpoint. */
type DeletableFile = LogFile & { kind: "commit" | "checkpoint" | "multipartCheckpoint"; version: number };

export interface LogCleanupPlan {
  /** Keys to delete, oldest first. */
  keys: string[];
  /** Version of the checkpoint every kept version can be rebuilt from (undefined: nothing deleted). */
  safeCheckpointVersion: number | undefined;
}

/**
 * @param listing every object under `_delta_log/` (keys relative to the table root)
 * @param currentVersion the table version just committed
 * @param cutoffMs files modified at or before this instant are expired
 */
export function planLogCleanup(
  listing: readonly ObjectMeta[],
  currentVersion: number,
  cutoffMs: number,
): LogCleanupPlan {
  const files = deletableFiles(listing);
  let minRetained = Number.POSITIVE_INFINITY;
  for (const file of files) {
    if (file.meta.lastModified >= cutoffMs) minRetained = Math.min(minRetained, file.version);
  }
  const checkpoints = completeCheckpoints(files);
  const safe = newestCheckpointAtOrBefore(checkpoints, Math.min(currentVersion, minRetained))?.version;
  if (safe === undefined) return { keys: [], safeCheckpointVersion: undefined };
  const keys = files
    .filter((file) => file.version < safe && file.meta.lastModified <= cutoffMs)
    .map((file) => file.meta.key)
    .sort();
  return { keys, safeCheckpointVersion: safe };
}

/** The listed files directly in `_delta_log/` that the log-path classifier names commits or checkpoints. */
function deletableFiles(listing: readonly ObjectMeta[]): DeletableFile[] {
  const out: DeletableFile[] = [];
  for (const meta of listing) {
    if (!meta.key.startsWith(LOG_PREFIX)) continue;
    const path = parseLogPath(meta.key);
    if (path.kind === "commit" || path.kind === "checkpoint" || path.kind === "multipartCheckpoint") {
      out.push({ ...path, meta });
    }
  }
  return out;
}
