/**
 * Which data files a VACUUM deletes, as delta-rs decides it. Lite mode (default): expired tombstones of the
 * current snapshot that are not live again. Full mode: also every file under the table root that the log
 * does not reference, judged by its modification time. Never: live files, `_delta_log`, hidden paths (a
 * segment starting with `_` or `.`, except `_change_data`), or files with an unexpired tombstone.
 */
import { DeltaLiteError, DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import type { ObjectMeta } from "@deltalite/object-store";
import { DAY_MS } from "./interval.js";

export interface VacuumInput {
  /** Store keys of live files (decoded `add.path`). */
  livePaths: ReadonlySet<string>;
  /** Tombstones: store key, `deletionTimestamp` (ms; missing counts as 0) and the remove's `size` if any. */
  tombstones: readonly { path: string; deletionTimestamp: number | undefined; size?: number | undefined }[];
  /** Every object under the table root (full mode only). */
  listing?: readonly ObjectMeta[] | undefined;
  retentionMs: number;
  nowMs: number;
  full: boolean;
}

export interface VacuumPlan {
  keys: string[];
  /** Sum of the sizes known of `keys` (a listing's, else the tombstone's, as delta-rs takes them). */
  bytes: number;
  /** Keys whose size neither a listing nor the tombstone gives (the caller asks the store). */
  unsized: string[];
}

/** Hidden per delta-rs: any path segment starting with `_` or `.`, except the `_change_data` folder. */
export function isHiddenPath(key: string): boolean {
  return key
    .split("/")
    .some((segment) => (segment.startsWith("_") && segment !== "_change_data") || segment.startsWith("."));
}

export function planVacuum(input: VacuumInput): VacuumPlan {
  const cutoff = input.nowMs - input.retentionMs;
  const chosen = new Map<string, number | undefined>();
  const unexpired = new Set<string>();
  const sizes = new Map((input.listing ?? []).map((m) => [m.key, m.size]));
  for (const t of input.tombstones) {
    if ((t.deletionTimestamp ?? 0) >= cutoff) {
      unexpired.add(t.path);
      continue;
    }
    if (!input.livePaths.has(t.path) && !isHiddenPath(t.path))
      chosen.set(t.path, sizes.get(t.path) ?? t.size);
  }
  if (input.full) {
    if (!input.listing) throw new DeltaLiteError("generic", "full vacuum needs a listing of the table root");
    for (const meta of input.listing) {
      if (meta.key.startsWith("_delta_log/") || isHiddenPath(meta.key)) continue;
      if (input.livePaths.has(meta.key) || unexpired.has(meta.key)) continue;
      if (meta.lastModified >= cutoff) continue;
      chosen.set(meta.key, meta.size);
    }
  }
  const keys = [...chosen.keys()].sort();
  return {
    keys,
    bytes: keys.reduce((sum, k) => sum + (chosen.get(k) ?? 0), 0),
    unsized: keys.filter((k) => chosen.get(k) === undefined),
  };
}

/**
 * Resolves the retention to use: the explicit hours, else the table's `delta.deletedFileRetentionDuration`.
 * A retention shorter than the table's is refused unless `enforceRetentionDuration` is false.
 */
export function vacuumRetentionMs(
  tableRetentionMs: number,
  retentionHours: number | undefined,
  enforceRetentionDuration: boolean,
): number {
  if (retentionHours === undefined) return tableRetentionMs;
  if (!(retentionHours >= 0))
    throw new DeltaLiteInvalidArgumentError(
      `vacuum retentionHours must be a non-negative number (got ${String(retentionHours)})`,
    );
  const ms = retentionHours * 3_600_000;
  if (enforceRetentionDuration && ms < tableRetentionMs) {
    throw new DeltaLiteInvalidArgumentError(
      `vacuum retention of ${retentionHours} h is shorter than the table's ${tableRetentionMs / 3_600_000} h ` +
        `(${Math.round(tableRetentionMs / DAY_MS)} days); pass enforceRetentionDuration: false (CLI: --no-retention-check) to allow it`,
    );
  }
  return ms;
}
