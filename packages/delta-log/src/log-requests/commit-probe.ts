/**
 * The commit probe (`DELTALITE_OPTIMISTIC_COMMIT_VERSION`): a handle's commit is put at the read version + 1
 * with no LIST before it — the create-only put is the conflict check — and one HEAD of the read snapshot's
 * anchor first proves the table was not replaced under the handle (deleted and re-created at the same path).
 * A replaced table fails the commit as a retryable conflict before anything is written.
 */
import { DeltaLiteCommitConflictError, hasErrorKind } from "@deltalite/errors";
import type { ObjectMeta } from "@deltalite/object-store";
import type { Snapshot } from "../snapshot.js";
import { isSameObject } from "./anchor.js";
import { type CommitProbeOutcome, reportLogProbe } from "./probe-events.js";

/** HEADs `snapshot`'s anchor and throws a retryable conflict when the table was replaced; reports the outcome. */
export async function guardAgainstReplacement(
  snapshot: Snapshot,
  signal: AbortSignal | undefined,
): Promise<void> {
  const outcome = await probeAnchor(snapshot, signal);
  reportLogProbe({ probe: "commit", outcome });
  if (outcome === "replaced") {
    throw new DeltaLiteCommitConflictError(
      `${snapshot.table}: the table was replaced since version ${snapshot.version} was read (its commit ${snapshot.anchor?.version} is gone or another file); nothing was written — reload and retry`,
      { retryable: true },
    );
  }
}

async function probeAnchor(snapshot: Snapshot, signal: AbortSignal | undefined): Promise<CommitProbeOutcome> {
  const anchor = snapshot.anchor;
  if (!anchor || anchor.etag === undefined) return "no_anchor";
  let meta: ObjectMeta;
  try {
    meta = await snapshot.store.head(anchor.key, { signal });
  } catch (error) {
    if (hasErrorKind(error, "not_found")) return "replaced";
    if (hasErrorKind(error, "aborted")) throw error;
    return "unknown";
  }
  return isSameObject(anchor, meta) ? "current" : "replaced";
}
