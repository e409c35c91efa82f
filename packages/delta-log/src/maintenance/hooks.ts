/**
 * The default post-commit maintenance: a checkpoint when delta-rs's rule says one is due (`(v + 1) %
 * delta.checkpointInterval == 0`) and expired-log cleanup per `delta.enableExpiredLogCleanup` /
 * `delta.logRetentionDuration`. Both run after a durable commit; the commit layer reports their failures
 * in `maintenanceError` instead of failing the write.
 */
import { listAll } from "@deltalite/object-store";
import { LOG_PREFIX } from "../log-path.js";
import type { Snapshot } from "../snapshot.js";
import type { PostCommitContext, PostCommitHooks } from "../transaction.js";
import { writeCheckpoint } from "./checkpoint-write.js";
import { DEFAULT_LOG_RETENTION_MS, intervalProperty } from "./interval.js";
import { planLogCleanup } from "./log-cleanup.js";

/** Deletes expired commits/checkpoints that no retained version needs; returns the deleted keys. */
export async function cleanupExpiredLogs(
  snapshot: Snapshot,
  options: { nowMs?: number; signal?: AbortSignal } = {},
): Promise<string[]> {
  const enabled =
    (snapshot.configuration["delta.enableExpiredLogCleanup"] ?? "true").toLowerCase() !== "false";
  if (!enabled) return [];
  const retentionMs = intervalProperty(
    snapshot.configuration,
    "delta.logRetentionDuration",
    DEFAULT_LOG_RETENTION_MS,
  );
  const listing = await listAll(snapshot.store, LOG_PREFIX, { signal: options.signal });
  const plan = planLogCleanup(listing, snapshot.version, (options.nowMs ?? Date.now()) - retentionMs);
  for (const key of plan.keys) await snapshot.store.delete(key, { signal: options.signal });
  return plan.keys;
}

/** Checkpoint on the interval boundary, then log cleanup after a checkpoint (like delta-rs). */
export function defaultMaintenanceHooks(): PostCommitHooks {
  return {
    async onCheckpointDue(context: PostCommitContext) {
      await writeCheckpoint(context.store, context.snapshot.checkpointSource(), context.version);
    },
    async afterCommit(context: PostCommitContext) {
      if (context.checkpointDue) await cleanupExpiredLogs(context.snapshot);
    },
  };
}
