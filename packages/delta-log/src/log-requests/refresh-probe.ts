/**
 * The refresh probe (`DELTALITE_PROBE_REFRESH`): instead of LISTing `_delta_log/`, a refresh sends one GET
 * of the commit at version + 1 and one HEAD of the snapshot's anchor commit, together. A 404 for the next
 * commit and an unchanged anchor mean the snapshot is current (no LIST); a next commit means new commits (one
 * LIST, the fetched commit not read again); a changed or missing anchor means the table was replaced (a full
 * load). The trust rules (trust.ts) decide when the probe may not be used at all.
 */
import { hasErrorKind } from "@deltalite/errors";
import { commitKey } from "../log-path.js";
import type { Snapshot } from "../snapshot.js";
import { isSameObject } from "./anchor.js";
import type { RefreshProbeOutcome } from "./probe-events.js";
import { listReason, type RefreshTrust } from "./trust.js";

export interface ProbedRefresh {
  snapshot: Snapshot;
  outcome: RefreshProbeOutcome;
  /** Whether the refresh sent a LIST (the trust window restarts). */
  listed: boolean;
}

/** The latest snapshot after `snapshot`, by probe where `trust` allows it, else by LIST. */
export async function refreshWithProbe(
  snapshot: Snapshot,
  trust: RefreshTrust,
  signal: AbortSignal | undefined,
): Promise<ProbedRefresh> {
  const listing = (outcome: RefreshProbeOutcome, prefetched?: Map<number, Uint8Array>) =>
    snapshot
      .reload({ signal, includeCurrent: true, prefetched })
      .then((next): ProbedRefresh => ({ snapshot: next, outcome, listed: true }));
  const reason = listReason(snapshot, trust, Date.now());
  if (reason) return listing(reason);
  const anchor = snapshot.anchor!;
  const next = snapshot.version + 1;
  const [following, head] = await Promise.allSettled([
    snapshot.store.get(commitKey(next), { signal }),
    snapshot.store.head(anchor.key, { signal }),
  ]);
  for (const r of [following, head]) {
    if (r.status === "rejected" && hasErrorKind(r.reason, "aborted")) throw r.reason;
  }
  const failed = (r: PromiseSettledResult<unknown>) =>
    r.status === "rejected" && !hasErrorKind(r.reason, "not_found");
  if (failed(following) || failed(head)) return listing("unknown");
  if (head.status === "rejected" || !isSameObject(anchor, head.value)) {
    return { snapshot: await snapshot.reopen({ signal }), outcome: "replaced", listed: true };
  }
  if (following.status === "fulfilled") return listing("new_commits", new Map([[next, following.value]]));
  return { snapshot, outcome: "current", listed: false };
}
