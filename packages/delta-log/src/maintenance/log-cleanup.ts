/**
 * Which expired log files may be deleted, decided the way delta-rs ≥ 1.2 does ("safe checkpoint"): only
 * commits and checkpoints older than the newest checkpoint that every still-retained version can start
 * from, and only when their modification time is past the cutoff. `_last_checkpoint`, `.crc` files,
 * compacted logs and anything unknown are never deleted.
 */
import type { ObjectMeta } from "@deltalite/object-store";

const DELETABLE = /^_delta_log\/(\d{20})\.(json|checkpoint(?:\.\d+\.\d+)?\.parquet)$/;
const CHECKPOINT = /^_delta_log\/(\d{20})\.checkpoint(?:\.(\d+)\.(\d+))?\.parquet$/;

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
  let minRetained = Number.POSITIVE_INFINITY;
  for (const meta of listing) {
    const m = DELETABLE.exec(meta.key);
    if (m && meta.lastModified >= cutoffMs) minRetained = Math.min(minRetained, Number(m[1]));
  }
  const keep = Math.min(currentVersion, minRetained);
  const safe = newestCompleteCheckpointAtOrBefore(listing, keep);
  if (safe === undefined) return { keys: [], safeCheckpointVersion: undefined };
  const keys = listing
    .filter((meta) => {
      const m = DELETABLE.exec(meta.key);
      return m !== null && Number(m[1]) < safe && meta.lastModified <= cutoffMs;
    })
    .map((meta) => meta.key)
    .sort();
  return { keys, safeCheckpointVersion: safe };
}

function newestCompleteCheckpointAtOrBefore(
  listing: readonly ObjectMeta[],
  version: number,
): number | undefined {
  const parts = new Map<string, Set<number>>();
  let best: number | undefined;
  for (const meta of listing) {
    const m = CHECKPOINT.exec(meta.key);
    if (!m) continue;
    const v = Number(m[1]);
    if (v > version) continue;
    if (m[2] === undefined) {
      best = best === undefined ? v : Math.max(best, v);
      continue;
    }
    const id = `${v}/${m[3]}`;
    const seen = parts.get(id) ?? new Set<number>();
    seen.add(Number(m[2]));
    parts.set(id, seen);
    if (seen.size === Number(m[3])) best = best === undefined ? v : Math.max(best, v);
  }
  return best;
}
