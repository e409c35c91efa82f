/**
 * When a 404 of the next commit is proof that there is none (the seed's "Log requests"): only within
 * min(10 minutes, half of `delta.logRetentionDuration`) of the handle's last LIST — log cleanup removes only
 * commit files older than the retention, so inside that time a missing commit file was never written — and
 * not when the last load read no commit file, when the store gives no ETag, after the handle's own commit on
 * a checkpoint boundary, or once a 404 proved wrong (a lost commit race right after a trusted probe).
 */
import { DEFAULT_LOG_RETENTION_MS, parseIntervalMs } from "../maintenance/interval.js";
import type { Snapshot } from "../snapshot.js";
import type { RefreshProbeOutcome } from "./probe-events.js";

/** The longest a probe is trusted after a LIST: 10 minutes. */
export const PROBE_TRUST_MAX_MS = 10 * 60_000;

/** What a handle knows about its own requests (mutable, one per handle). */
export interface RefreshTrust {
  /** When the handle's last LIST was sent (epoch ms). */
  listedAt: number;
  /** LIST on the next refresh (after the handle's own commit on a checkpoint boundary). */
  forceList: boolean;
  /** A 404 proved wrong once: every refresh lists from then on. */
  distrusted: boolean;
}

/** min(10 minutes, half of the table's log retention); an unreadable retention counts as the default. */
export function probeTrustWindowMs(configuration: Readonly<Record<string, string>>): number {
  const raw = configuration["delta.logRetentionDuration"];
  let retention = DEFAULT_LOG_RETENTION_MS;
  if (raw !== undefined) {
    try {
      retention = parseIntervalMs(raw, "delta.logRetentionDuration");
    } catch {
      retention = 0; // not understood: never trust a 404 on this table
    }
  }
  return Math.min(PROBE_TRUST_MAX_MS, retention / 2);
}

/** Why this refresh must LIST (`listed` / `no_anchor`), or undefined when the probe may decide. */
export function listReason(
  snapshot: Snapshot,
  trust: RefreshTrust,
  nowMs: number,
): Extract<RefreshProbeOutcome, "listed" | "no_anchor"> | undefined {
  if (trust.distrusted || trust.forceList) return "listed";
  if (nowMs - trust.listedAt >= probeTrustWindowMs(snapshot.configuration)) return "listed";
  if (!snapshot.anchor) return "no_anchor";
  if (snapshot.anchor.etag === undefined) return "listed";
  return undefined;
}
