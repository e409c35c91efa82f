/**
 * The shape of a WRITE commit as delta-rs 1.6.6 writes it: the save modes of `write_deltalake` and their
 * names in `operationParameters.mode`, `partitionBy` only for a partitioned table, and `operationMetrics`
 * with delta-rs's names, types and order (`num_added_files`, `num_removed_files`, `num_partitions`,
 * `num_added_rows`, `execution_time_ms`, `num_retries`). delta-rs declares `num_partitions` but never sets
 * it (always 0, also on partitioned writes); it is written the same way so history tools see one shape.
 */
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";

/** delta-rs `write_deltalake` modes: `error` (fail if the table exists), `append`, `overwrite`, `ignore`. */
export type WriteMode = "error" | "append" | "overwrite" | "ignore";

export const WRITE_MODES: readonly WriteMode[] = ["error", "append", "overwrite", "ignore"];

/** `operationParameters.mode` per mode (delta-rs's SaveMode names). */
const SAVE_MODE_NAMES: Record<WriteMode, string> = {
  error: "ErrorIfExists",
  append: "Append",
  overwrite: "Overwrite",
  ignore: "Ignore",
};

/** Throws `invalid_argument` unless `mode` is one of `WRITE_MODES` (or undefined). */
export function checkWriteMode(mode: unknown): asserts mode is WriteMode | undefined {
  if (mode === undefined || WRITE_MODES.includes(mode as WriteMode)) return;
  const given = String(mode);
  throw new DeltaLiteInvalidArgumentError(
    `unknown write mode ${JSON.stringify(given)}${didYouMean(given, WRITE_MODES)}; expected one of ${WRITE_MODES.join(", ")}`,
  );
}

/** `operationParameters` of a WRITE: the mode's SaveMode name, `partitionBy` (JSON) when partitioned. */
export function writeParameters(
  mode: WriteMode,
  partitionColumns: readonly string[],
): Record<string, string> {
  return {
    mode: SAVE_MODE_NAMES[mode],
    ...(partitionColumns.length > 0 ? { partitionBy: JSON.stringify(partitionColumns) } : {}),
  };
}

export interface WriteCounts {
  filesAdded: number;
  filesRemoved: number;
  rowsAdded: number;
  /** `performance.now()` when the write started. */
  startedAt: number;
}

/** `operationMetrics` of a WRITE; `num_retries` is set per attempt by the commit layer. */
export function writeMetrics(counts: WriteCounts): Record<string, number> {
  return {
    num_added_files: counts.filesAdded,
    num_removed_files: counts.filesRemoved,
    num_partitions: 0,
    num_added_rows: counts.rowsAdded,
    execution_time_ms: Math.max(0, Math.floor(performance.now() - counts.startedAt)),
    num_retries: 0,
  };
}
