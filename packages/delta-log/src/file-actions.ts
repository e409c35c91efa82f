/**
 * The one builder of every engine's file actions, as delta-rs writes them: the Add of a data file a writer
 * just completed (path percent-encoded, the partition values given, the object size, now as
 * modificationTime, stats computed from the footer the writer parsed — no read back) and the Remove of a
 * live file (its path, partition values and size as the log holds them, `extendedFileMetadata`). Both take
 * `dataChange`: true for writes, upserts and deletes, false for a rewrite that keeps the data (compaction).
 * Also the `cdc` action of a change-data file (`dataChange: false`, no stats, as delta-rs writes it).
 */
import type { WrittenFile } from "@deltalite/parquet-stream";
import type { AddAction, CdcAction, RemoveAction } from "./actions.js";
import { encodeActionPath } from "./partition/paths.js";
import type { FileView } from "./snapshot.js";
import { addStats, statsJson } from "./stats/add-stats.js";
import type { StatsColumnRules } from "./stats/leaf-columns.js";

export function addForWrittenFile(
  file: WrittenFile,
  partitionValues: Record<string, string | null>,
  rules: StatsColumnRules,
  options: { dataChange?: boolean | undefined } = {},
): AddAction {
  return {
    path: encodeActionPath(file.key),
    partitionValues,
    size: file.size,
    modificationTime: Date.now(),
    dataChange: options.dataChange ?? true,
    stats: statsJson(addStats({ metadata: file.metadata, ...rules })),
  };
}

/** The `cdc` action of a change-data file a writer just completed (delta-rs: no stats, `dataChange: false`). */
export function cdcForWrittenFile(
  file: WrittenFile,
  partitionValues: Record<string, string | null>,
): CdcAction {
  return { path: encodeActionPath(file.key), size: file.size, partitionValues, dataChange: false };
}

/** The Remove of live file `file`, deleted at `deletionTimestamp` (ms). */
export function removeForFile(
  file: FileView,
  options: { deletionTimestamp: number; dataChange?: boolean | undefined },
): RemoveAction {
  return {
    path: file.add.path,
    deletionTimestamp: options.deletionTimestamp,
    dataChange: options.dataChange ?? true,
    extendedFileMetadata: true,
    partitionValues: file.add.partitionValues,
    size: file.size,
  };
}
