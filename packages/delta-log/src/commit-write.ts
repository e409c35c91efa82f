/**
 * Writing one commit version and knowing whether it landed. The put is create-if-absent (never
 * check-then-write). When its answer is not conclusive — `already_exists` although the store may have
 * retried our own put after a lost reply, a timeout, a dropped connection, a 5xx or an abort after the
 * request may have been sent — the outcome is resolved, never guessed: the same bytes are put again (a
 * request still on its way can then only lose), and an `already_exists` is settled by reading the commit at
 * that version back and looking for the `commitInfo.txnId` only this transaction wrote. Ours → committed;
 * another writer's → conflict; still unsettled after bounded rounds → `DeltaLiteCommitOutcomeUnknownError`,
 * after which the caller must keep every file the commit names (`discardWrittenFiles` is the one place
 * engines clean up after a failed transaction, and it obeys that).
 */
import {
  DeltaLiteCommitOutcomeUnknownError,
  DeltaLiteError,
  hasErrorKind,
  isCommitOutcomeUnknown,
  isDeltaLiteError,
} from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import type { ParsedAction } from "./actions.js";
import { readCommit } from "./commit-read.js";
import { commitKey } from "./log-path.js";

/** Result of one attempt to write one version (kernel's CommitResponse idea). */
export type CommitAttempt =
  /** `etag`: the commit file's, when this attempt's own put stored it (seeds the commit-JSON cache). */
  | { kind: "committed"; version: number; etag?: string | undefined }
  /** `winner`: the winning commit's actions when the outcome was settled by reading it (no second GET). */
  | { kind: "conflict"; version: number; winner?: ParsedAction[] | undefined };

/** Bounds on settling an inconclusive commit put. */
export interface OutcomeResolution {
  /** Rounds of re-put / read-back (default 6). */
  rounds?: number | undefined;
  /** Bound on the whole resolution (default 60 s). It runs on its own deadline, not the caller's signal. */
  timeoutMs?: number | undefined;
  /** Pause before the second round (default 50 ms), doubling up to 2 s. */
  baseBackoffMs?: number | undefined;
}

export interface CommitWriteOptions {
  signal?: AbortSignal | undefined;
  resolution?: OutcomeResolution | undefined;
}

/**
 * Errors after which the put cannot have landed: it was refused before it was sent, or by a rule that the
 * same request would hit again on every try.
 */
const NOT_SENT_KINDS = new Set(["invalid_path", "unsupported", "not_implemented", "permission_denied"]);

/**
 * Writes `bytes` (a commit whose commitInfo carries `txnId`) as commit `version` if and only if no commit of
 * that version exists, and says which happened. Throws the store's error when the put surely did not land,
 * and `DeltaLiteCommitOutcomeUnknownError` when the outcome could not be settled.
 */
export async function tryCommitVersion(
  store: ObjectStore,
  version: number,
  bytes: Uint8Array,
  txnId: string,
  options: CommitWriteOptions = {},
): Promise<CommitAttempt> {
  if (options.signal?.aborted) {
    throw new DeltaLiteError("aborted", `${store.root}: commit of version ${version} aborted`, {
      cause: options.signal.reason,
    });
  }
  try {
    const { etag } = await store.put(commitKey(version), bytes, { mode: "create", signal: options.signal });
    return { kind: "committed", version, etag };
  } catch (error) {
    if (isDeltaLiteError(error) && NOT_SENT_KINDS.has(error.kind)) throw error;
    return await resolveOutcome(store, version, bytes, txnId, error, options.resolution ?? {});
  }
}

type Reading =
  | { owner: "ours" }
  | { owner: "theirs"; actions: ParsedAction[] | undefined }
  | { owner: "missing" };

/** Reads commit `version` back: is it the one carrying `txnId`? Store errors propagate. */
async function readOwner(
  store: ObjectStore,
  version: number,
  txnId: string,
  signal: AbortSignal,
): Promise<Reading> {
  let actions: ParsedAction[];
  try {
    actions = await readCommit(store, version, { signal });
  } catch (error) {
    if (hasErrorKind(error, "not_found")) return { owner: "missing" };
    // Not a commit we could have written; the conflict path reports what is wrong with it.
    if (hasErrorKind(error, "corrupt_log")) return { owner: "theirs", actions: undefined };
    throw error;
  }
  const info = actions.find((a) => "commitInfo" in a);
  const found = info && "commitInfo" in info ? info.commitInfo.txnId : undefined;
  return found === txnId ? { owner: "ours" } : { owner: "theirs", actions };
}

async function resolveOutcome(
  store: ObjectStore,
  version: number,
  bytes: Uint8Array,
  txnId: string,
  first: unknown,
  resolution: OutcomeResolution,
): Promise<CommitAttempt> {
  const rounds = resolution.rounds ?? 6;
  const timeoutMs = resolution.timeoutMs ?? 60_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  let last = first;
  let exists = hasErrorKind(first, "already_exists");
  for (let round = 0; round < rounds && !deadline.aborted; round++) {
    try {
      if (exists) {
        const reading = await readOwner(store, version, txnId, deadline);
        if (reading.owner === "ours") return { kind: "committed", version };
        if (reading.owner === "theirs") return { kind: "conflict", version, winner: reading.actions };
        exists = false; // gone between the two requests: the next round puts again
        continue;
      }
      await store.put(commitKey(version), bytes, { mode: "create", signal: deadline });
      return { kind: "committed", version };
    } catch (error) {
      if (hasErrorKind(error, "already_exists")) {
        exists = true;
        continue; // read it back at once
      }
      last = error;
    }
    await pause(backoffMs(round, resolution), deadline);
  }
  throw outcomeUnknown(store.root, version, txnId, last, deadline.aborted ? timeoutMs : undefined);
}

function outcomeUnknown(
  table: string,
  version: number,
  txnId: string,
  last: unknown,
  timedOutAfterMs: number | undefined,
): DeltaLiteCommitOutcomeUnknownError {
  const reason = last instanceof Error ? last.message : String(last);
  const bound = timedOutAfterMs === undefined ? "" : ` within ${timedOutAfterMs} ms`;
  return new DeltaLiteCommitOutcomeUnknownError(
    `${table}: the commit of version ${version} (commitInfo.txnId ${txnId}) may or may not have landed: ` +
      `the store gave no conclusive answer${bound} (last: ${reason}). Its data files were kept. ` +
      `Reload the table and look at version ${version} before sending this change again.`,
    { version, txnId, cause: last },
  );
}

function backoffMs(round: number, resolution: OutcomeResolution): number {
  const base = resolution.baseBackoffMs ?? 50;
  return Math.min(2000, base * 2 ** round);
}

/** Waits `ms`, or less when `deadline` fires first (the loop then stops). */
function pause(ms: number, deadline: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      deadline.removeEventListener("abort", done);
      resolve();
    }
    deadline.addEventListener("abort", done, { once: true });
  });
}

/**
 * After a failed transaction: deletes the data files it wrote (store keys), best effort — unless `failure`
 * says the commit's outcome is unknown, in which case a live version may name them and they stay (vacuum
 * removes them once they are known to be unreferenced). Returns whether it deleted.
 */
export async function discardWrittenFiles(
  store: ObjectStore,
  keys: readonly string[],
  failure: unknown,
): Promise<boolean> {
  if (isCommitOutcomeUnknown(failure)) return false;
  await Promise.allSettled(keys.map((key) => store.delete(key)));
  return true;
}
