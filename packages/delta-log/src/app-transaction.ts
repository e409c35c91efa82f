/**
 * Exactly-once batches through Delta's `txn` action (PROTOCOL.md "Transaction Identifiers"): the caller's
 * `{ appId, version }` checked once for every engine (write, upsert, delete, historyUpsert), the question
 * "has this application already committed this batch?" asked of a snapshot, and the `txn` action a commit
 * carries (with `lastUpdated`). The commit layer's conflict checker turns a concurrent commit of the same
 * appId into a non-retryable `conflict` (conflict-checker.ts); checkpoints keep the latest txn per appId.
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import type { TxnAction } from "./actions.js";
import type { Snapshot } from "./snapshot.js";

/** An application's batch: `version` must grow from batch to batch of one `appId`. */
export interface AppTransaction {
  /** The application (stream, job) id: a non-empty string. */
  appId: string;
  /** The batch number: a non-negative safe integer. */
  version: number;
}

/** Throws `invalid_argument` unless `txn` is undefined or a valid `{ appId, version }`. */
export function checkAppTransaction(txn: unknown, table: string): asserts txn is AppTransaction | undefined {
  if (txn === undefined) return;
  if (typeof txn !== "object" || txn === null || Array.isArray(txn)) {
    throw new DeltaLiteInvalidArgumentError(`${table}: txn must be an object { appId, version }`);
  }
  const { appId, version } = txn as Record<string, unknown>;
  if (typeof appId !== "string" || appId === "") {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: txn.appId must be a non-empty string (got ${JSON.stringify(appId) ?? String(appId)})`,
    );
  }
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 0) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: txn.version must be a non-negative integer (got ${typeof version === "string" ? JSON.stringify(version) : String(version)})`,
    );
  }
  const extra = Object.keys(txn).filter((k) => k !== "appId" && k !== "version");
  if (extra.length > 0) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: txn takes only appId and version (unknown: ${extra.join(", ")})`,
    );
  }
}

/**
 * True when the table already holds a commit of `txn.appId` at `txn.version` or later: the batch was
 * applied (or superseded) and must be skipped before anything is written.
 */
export function appTransactionApplied(snapshot: Snapshot, txn: AppTransaction | undefined): boolean {
  if (txn === undefined) return false;
  const committed = snapshot.txnVersion(txn.appId);
  return committed !== undefined && committed >= txn.version;
}

/** The `txn` action of a commit applying `txn` (none without one). */
export function txnActions(txn: AppTransaction | undefined, now = Date.now()): { txn: TxnAction }[] {
  if (txn === undefined) return [];
  return [{ txn: { appId: txn.appId, version: txn.version, lastUpdated: now } }];
}
