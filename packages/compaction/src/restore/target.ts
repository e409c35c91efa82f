/**
 * What `restore` is asked to go back to: the validation of its `versionOrTimestamp` argument and of its
 * options (all `invalid_argument`, before anything is read), and the opening of the table at that point —
 * a version as given, a timestamp by delta-rs's rule (the newest commit whose file's modification time is at
 * or before it, clamped to the oldest commit; delta-log's `Snapshot.open`). A target at or after the current
 * version is refused, as delta-rs refuses it.
 */
import { buildCommitInfo, Snapshot } from "@deltalite/delta-log";
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import type { RestoreOptions, RestoreTarget } from "./types.js";

/** The target, resolved: the snapshot to restore and how delta-rs names it in operationParameters. */
export interface ResolvedTarget {
  snapshot: Snapshot;
  operationParameters: { version: number } | { datetime: number };
}

const KNOWN_OPTIONS = new Set(["commitMetadata", "ignoreMissingFiles", "headConcurrency", "hooks", "signal"]);

const shown = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : String(value));

/** Throws `invalid_argument` for a bad target or option; returns the target as a version or an instant. */
export function validateRestore(
  table: string,
  target: RestoreTarget,
  options: RestoreOptions,
): { version: number } | { timestamp: number } {
  if (typeof options !== "object" || options === null) {
    throw new DeltaLiteInvalidArgumentError(`${table}: restore options must be an object`);
  }
  for (const name of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: unknown restore option ${JSON.stringify(name)}${didYouMean(name, KNOWN_OPTIONS)}`,
      );
    }
  }
  const concurrency: unknown = options.headConcurrency;
  if (concurrency !== undefined && !(Number.isSafeInteger(concurrency) && (concurrency as number) >= 1)) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: restore option headConcurrency must be an integer ≥ 1 (got ${shown(concurrency)})`,
    );
  }
  const ignore: unknown = options.ignoreMissingFiles;
  if (ignore !== undefined && typeof ignore !== "boolean") {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: restore option ignoreMissingFiles must be a boolean (got ${shown(ignore)})`,
    );
  }
  const metadata: unknown = options.commitMetadata;
  if (
    metadata !== undefined &&
    (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
  ) {
    throw new DeltaLiteInvalidArgumentError(`${table}: restore option commitMetadata must be an object`);
  }
  // Reserved commitInfo keys are refused by the commit path's own builder: asked now, before any read.
  if (metadata !== undefined)
    buildCommitInfo({ operation: "RESTORE", commitMetadata: options.commitMetadata });
  return targetOf(table, target);
}

function targetOf(table: string, target: RestoreTarget): { version: number } | { timestamp: number } {
  if (typeof target === "number") {
    if (!Number.isSafeInteger(target) || target < 0) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: the version to restore must be an integer ≥ 0 (got ${shown(target)})`,
      );
    }
    return { version: target };
  }
  const ms =
    target instanceof Date ? target.getTime() : typeof target === "string" ? Date.parse(target) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: restore to a version (an integer) or a timestamp (a Date or ISO 8601 text); got ${shown(target)}`,
    );
  }
  return { timestamp: ms };
}

/** Opens the table at the target; refuses a target at or after `current`'s version. */
export async function openTarget(
  current: Snapshot,
  target: { version: number } | { timestamp: number },
  signal: AbortSignal | undefined,
): Promise<ResolvedTarget> {
  const table = current.table;
  if ("version" in target && target.version >= current.version)
    throw tooLate(table, target.version, current.version);
  const snapshot = await Snapshot.open(current.store, { ...target, signal });
  if (snapshot.version >= current.version) throw tooLate(table, snapshot.version, current.version);
  return {
    snapshot,
    operationParameters: "version" in target ? { version: target.version } : { datetime: target.timestamp },
  };
}

function tooLate(table: string, version: number, current: number): DeltaLiteInvalidArgumentError {
  return new DeltaLiteInvalidArgumentError(
    `${table}: the version to restore (${version}) must be older than the current version ${current}`,
  );
}
