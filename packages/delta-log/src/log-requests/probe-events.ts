/**
 * The outcomes of the log-request probes, for metrics: every refresh a handle makes reports one
 * `RefreshProbeOutcome` (the `deltalite_refresh_probe_total` metric) and every commit put it guards one
 * `CommitProbeOutcome` (`deltalite_commit_probe_total`). Listeners never fail the operation.
 */

/**
 * `current`: GET of version + 1 answered 404 and the anchor is unchanged (no LIST); `new_commits`: version + 1
 * exists (LIST of the new commits); `replaced`: the anchor is gone or changed (full reload); `unknown`: a
 * probe request failed otherwise (LIST); `listed`: the trust rules asked for a LIST (window passed, own
 * checkpoint-boundary commit, no ETags, a lost race); `no_anchor`: the last load read no commit file (LIST).
 */
export type RefreshProbeOutcome = "current" | "new_commits" | "replaced" | "unknown" | "listed" | "no_anchor";

/**
 * `current`: the anchor is unchanged, the create-only put goes ahead; `replaced`: the table was replaced
 * under the handle, the commit fails as a conflict and writes nothing; `unknown`: the HEAD failed otherwise
 * (the put goes ahead: it is the conflict check); `no_anchor`: nothing to compare (the put goes ahead).
 */
export type CommitProbeOutcome = "current" | "replaced" | "unknown" | "no_anchor";

/** One probe's outcome, as `onLogProbe` listeners receive it. */
export type LogProbeEvent =
  | { probe: "refresh"; outcome: RefreshProbeOutcome }
  | { probe: "commit"; outcome: CommitProbeOutcome };

const listeners = new Set<(event: LogProbeEvent) => void>();

/** Calls `listener` with every probe outcome; returns the unsubscribe function. */
export function onLogProbe(listener: (event: LogProbeEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Hands `event` to every listener (a failing listener is skipped). */
export function reportLogProbe(event: LogProbeEvent): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch {
      // A metrics recorder never fails a table operation.
    }
  }
}
