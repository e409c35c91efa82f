/**
 * VACUUM: deletes data files the table no longer needs, after the retention period, and records it the way
 * delta-rs does — a `VACUUM START` commit (files and bytes to delete), the deletes, then `VACUUM END`.
 * A dry run (or nothing to delete) commits nothing. Lite mode by default; `full` also removes files the log
 * does not know. Both modes also remove a store's stale temp files (a local writer that died between staging
 * and linking leaves `.deltalite-tmp-*` behind) older than the retention; they are never table files, so
 * no commit records them.
 */
import { hasErrorKind } from "@deltalite/errors";
import { listAll, type ObjectStore } from "@deltalite/object-store";
import type { Snapshot } from "../snapshot.js";
import { commitTransaction } from "../transaction.js";
import { DEFAULT_DELETED_FILE_RETENTION_MS, intervalProperty } from "./interval.js";
import { planVacuum, type VacuumPlan, vacuumRetentionMs } from "./vacuum-plan.js";

export interface VacuumOptions {
  /** Retention in hours; default the table's `delta.deletedFileRetentionDuration` (7 days). */
  retentionHours?: number | undefined;
  /** Only report what would be deleted (default false; the CLI's `--dry-run`). */
  dryRun?: boolean | undefined;
  /** Also delete files the log does not reference (older than the retention). */
  full?: boolean | undefined;
  /** Refuse a retention shorter than the table's (default true). */
  enforceRetentionDuration?: boolean | undefined;
  commitMetadata?: Record<string, unknown> | undefined;
  nowMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface VacuumResult {
  dryRun: boolean;
  mode: "lite" | "full";
  /** Store keys deleted (or that would be, in a dry run). */
  files: string[];
  /**
   * Bytes of `files`: deleted (or that would be). Each file's size is the listing's (full mode), else its
   * tombstone's `size` (as delta-rs counts), else the store's answer to a HEAD.
   */
  bytes: number;
  retentionHours: number;
  /** Versions of the VACUUM START / END commits (empty for a dry run or when nothing was deleted). */
  versions: number[];
  /** Stale temp files of the store removed (or that would be, in a dry run); never table files. */
  tempFiles: string[];
}

export async function vacuum(snapshot: Snapshot, options: VacuumOptions = {}): Promise<VacuumResult> {
  const store = snapshot.store;
  const full = options.full ?? false;
  const dryRun = options.dryRun ?? false;
  const enforce = options.enforceRetentionDuration ?? true;
  const tableRetentionMs = intervalProperty(
    snapshot.configuration,
    "delta.deletedFileRetentionDuration",
    DEFAULT_DELETED_FILE_RETENTION_MS,
  );
  const retentionMs = vacuumRetentionMs(tableRetentionMs, options.retentionHours, enforce);
  const nowMs = options.nowMs ?? Date.now();
  const listing = full ? await listAll(store, "", { signal: options.signal }) : undefined;
  const plan = planVacuum({
    livePaths: new Set(snapshot.files.map((f) => f.path)),
    tombstones: snapshot.tombstones.map((t) => ({
      path: t.path,
      deletionTimestamp: t.remove.deletionTimestamp ?? undefined,
      size: t.remove.size ?? undefined,
    })),
    listing,
    retentionMs,
    nowMs,
    full,
  });
  const { keys, bytes } = await sizedPlan(store, plan, options.signal);
  const result: VacuumResult = {
    dryRun,
    mode: full ? "full" : "lite",
    files: keys,
    bytes,
    retentionHours: retentionMs / 3_600_000,
    versions: [],
    tempFiles:
      (await store.removeStaleTempFiles?.("", nowMs - retentionMs, { dryRun, signal: options.signal })) ?? [],
  };
  if (dryRun || keys.length === 0) return result;
  const start = await commitTransaction(snapshot, [], {
    operation: "VACUUM START",
    operationParameters: {
      retentionCheckEnabled: enforce,
      specifiedRetentionMillis: retentionMs,
      defaultRetentionMillis: tableRetentionMs,
    },
    operationMetrics: { numFilesToDelete: keys.length, sizeOfDataToDelete: bytes },
    commitMetadata: options.commitMetadata,
    signal: options.signal,
  });
  let deleted = 0;
  for (const key of keys) {
    await store.delete(key, { signal: options.signal });
    deleted++;
  }
  const end = await commitTransaction(start.snapshot, [], {
    operation: "VACUUM END",
    operationParameters: { status: "COMPLETED" },
    operationMetrics: { numDeletedFiles: deleted, numVacuumedDirectories: 0 },
    commitMetadata: options.commitMetadata,
    signal: options.signal,
  });
  result.versions = [start.version, end.version];
  return result;
}

/**
 * The plan with every size known: a tombstone without `size` (lite mode) is asked of the store with one
 * HEAD; a file already gone is dropped (nothing to delete, no bytes to count).
 */
async function sizedPlan(
  store: ObjectStore,
  plan: VacuumPlan,
  signal: AbortSignal | undefined,
): Promise<{ keys: string[]; bytes: number }> {
  if (plan.unsized.length === 0) return plan;
  const gone = new Set<string>();
  let bytes = plan.bytes;
  for (const key of plan.unsized) {
    try {
      bytes += (await store.head(key, { signal })).size;
    } catch (error) {
      if (!hasErrorKind(error, "not_found")) throw error;
      gone.add(key);
    }
  }
  return { keys: plan.keys.filter((k) => !gone.has(k)), bytes };
}
