/**
 * The actions of a RESTORE commit, as delta-rs 1.6 writes them, from two snapshots and no I/O: the protocol
 * (the higher of the current and the restored reader / writer versions, the current features: delta-rs
 * never downgrades by default), an Add (`dataChange: true`, otherwise as the log holds it) of every file live
 * at the target and not now, a Remove (`dataChange: true`) of every file live now and not at the target, and
 * the target version's metaData — in that order. A file is the same file in both versions when its path is
 * (delta-rs compares whole Adds; a path's Add never changes while it stays live, so the sets agree).
 */
import {
  type Action,
  type FileView,
  type ProtocolAction,
  removeForFile,
  type Snapshot,
} from "@deltalite/delta-log";
import type { RestoreMetrics } from "./types.js";

export interface RestorePlan {
  /** Files of the target to add back, in the target's file order. */
  restore: FileView[];
  /** Files live now to remove. */
  remove: FileView[];
  protocol: ProtocolAction;
}

export function planRestore(current: Snapshot, target: Snapshot): RestorePlan {
  const now = new Set(current.files.map((f) => f.path));
  const then = new Set(target.files.map((f) => f.path));
  return {
    restore: target.files.filter((f) => !now.has(f.path)),
    remove: current.files.filter((f) => !then.has(f.path)),
    protocol: restoredProtocol(current.protocol, target.protocol),
  };
}

/** delta-rs's protocol of a restore without `protocol_downgrade_allowed`. */
export function restoredProtocol(current: ProtocolAction, target: ProtocolAction): ProtocolAction {
  const protocol: ProtocolAction = {
    minReaderVersion: Math.max(current.minReaderVersion, target.minReaderVersion),
    minWriterVersion: Math.max(current.minWriterVersion, target.minWriterVersion),
  };
  if (current.readerFeatures !== undefined) protocol.readerFeatures = [...current.readerFeatures];
  if (current.writerFeatures !== undefined) protocol.writerFeatures = [...current.writerFeatures];
  return protocol;
}

export function restoreActions(plan: RestorePlan, target: Snapshot, deletionTimestamp: number): Action[] {
  return [
    { protocol: plan.protocol },
    ...plan.restore.map((f): Action => ({ add: { ...f.add, dataChange: true } })),
    ...plan.remove.map(
      (f): Action => ({ remove: removeForFile(f, { deletionTimestamp, dataChange: true }) }),
    ),
    { metaData: target.metadata },
  ];
}

export function restoreMetrics(plan: RestorePlan): RestoreMetrics {
  return { numRemovedFile: plan.remove.length, numRestoredFile: plan.restore.length };
}
