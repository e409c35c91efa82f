/**
 * `restore(snapshot, versionOrTimestamp, options)`: one RESTORE commit on top of `snapshot` that makes the
 * files live at the target version live again (delta-rs 1.6 `DeltaTable.restore`): arguments validated first
 * (`invalid_argument`), the target opened, the actions planned (plan.ts), every file to re-add checked with a
 * HEAD (a vacuumed one is `not_found` and nothing is committed), then the commit — with no rebase, as
 * delta-rs: the file sets were computed against `snapshot`, so a concurrent commit makes the call fail with
 * `DeltaLiteCommitConflictError` and the caller reloads and restores again.
 */
import { mapLimit } from "@deltalite/data-files";
import {
  commitTransaction,
  defaultMaintenanceHooks,
  type FileView,
  type Snapshot,
} from "@deltalite/delta-log";
import { DeltaLiteError, hasErrorKind } from "@deltalite/errors";
import { planRestore, restoreActions, restoreMetrics } from "./plan.js";
import { openTarget, validateRestore } from "./target.js";
import type { RestoreOptions, RestoreResult, RestoreTarget } from "./types.js";

const DEFAULT_HEAD_CONCURRENCY = 8;
/** Missing files named in the error message (the count is always given). */
const NAMED_MISSING = 5;

/** Restores the table to a version or timestamp in one RESTORE commit (see the module comment). */
export async function restore(
  snapshot: Snapshot,
  versionOrTimestamp: RestoreTarget,
  options: RestoreOptions = {},
): Promise<RestoreResult> {
  const started = performance.now();
  const wanted = validateRestore(snapshot.table, versionOrTimestamp, options);
  const { signal } = options;
  const target = await openTarget(snapshot, wanted, signal);
  const plan = planRestore(snapshot, target.snapshot);
  if (!options.ignoreMissingFiles) {
    await requireFiles(snapshot, plan.restore, target.snapshot.version, options);
  }
  const metrics = restoreMetrics(plan);
  const commit = await commitTransaction(snapshot, restoreActions(plan, target.snapshot, Date.now()), {
    operation: "RESTORE",
    operationParameters: target.operationParameters,
    operationMetrics: { ...metrics },
    commitMetadata: options.commitMetadata,
    read: { kind: "table" },
    maxRetries: 0,
    hooks: options.hooks ?? defaultMaintenanceHooks(),
    signal,
  });
  const bytes = (files: readonly FileView[]) => files.reduce((n, f) => n + f.size, 0);
  return {
    ...metrics,
    version: commit.version,
    restoredVersion: target.snapshot.version,
    readVersion: snapshot.version,
    bytesRestored: bytes(plan.restore),
    bytesRemoved: bytes(plan.remove),
    filesChecked: options.ignoreMissingFiles ? 0 : plan.restore.length,
    executionTimeMs: performance.now() - started,
    ...(commit.maintenanceError !== undefined ? { maintenanceError: commit.maintenanceError } : {}),
  };
}

/** HEADs every file to re-add; throws `not_found` naming the missing ones (nothing is committed). */
async function requireFiles(
  snapshot: Snapshot,
  files: readonly FileView[],
  version: number,
  options: RestoreOptions,
): Promise<void> {
  const missing: string[] = [];
  await mapLimit(files, options.headConcurrency ?? DEFAULT_HEAD_CONCURRENCY, async (file) => {
    try {
      await snapshot.store.head(file.path, { signal: options.signal });
    } catch (error) {
      if (!hasErrorKind(error, "not_found")) throw error;
      missing.push(file.path);
    }
  });
  if (missing.length === 0) return;
  missing.sort();
  const named = missing.slice(0, NAMED_MISSING).join(", ");
  const more = missing.length > NAMED_MISSING ? `, and ${missing.length - NAMED_MISSING} more` : "";
  throw new DeltaLiteError(
    "not_found",
    `${snapshot.table}: cannot restore version ${version}: ${missing.length} of its ${files.length} data files to re-add are gone from storage (vacuumed?): ${named}${more}; nothing was committed`,
  );
}
