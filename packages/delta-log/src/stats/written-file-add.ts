/**
 * The Add action for a data file a writer just completed, as delta-rs writes it: the path percent-encoded,
 * the partition values given, the object size, now as modificationTime, dataChange true, and stats computed
 * from the footer the writer parsed (no read back).
 */
import type { WrittenFile } from "@deltalite/parquet-stream";
import type { AddAction } from "../actions.js";
import { encodeActionPath } from "../partition/paths.js";
import { addStats, statsJson } from "./add-stats.js";
import type { StatsColumnRules } from "./leaf-columns.js";

export function addForWrittenFile(
  file: WrittenFile,
  partitionValues: Record<string, string | null>,
  rules: StatsColumnRules,
): AddAction {
  return {
    path: encodeActionPath(file.key),
    partitionValues,
    size: file.size,
    modificationTime: Date.now(),
    dataChange: true,
    stats: statsJson(addStats({ metadata: file.metadata, ...rules })),
  };
}
