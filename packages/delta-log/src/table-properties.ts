/**
 * Which table properties a new table may be given, by delta-rs 1.6.6's rule: a key in the `delta.`
 * namespace must be one delta-rs knows, spelled exactly (names are case-sensitive: `delta.appendonly` is
 * refused); values are not checked here (delta-rs does not check them either). Keys outside the namespace
 * are the caller's own and pass — delta-rs refuses those too, but the Delta protocol allows them and Spark
 * writes them, so tables that carry them stay writable.
 */
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";

/** The `delta.*` table properties delta-rs 1.6.6 accepts when it creates a table (its `TableProperty` names). */
export const KNOWN_DELTA_TABLE_PROPERTIES: readonly string[] = [
  "delta.appendOnly",
  "delta.autoOptimize.autoCompact",
  "delta.autoOptimize.optimizeWrite",
  "delta.checkpoint.writeStatsAsJson",
  "delta.checkpoint.writeStatsAsStruct",
  "delta.checkpointInterval",
  "delta.checkpointPolicy",
  "delta.columnMapping.mode",
  "delta.dataSkippingNumIndexedCols",
  "delta.dataSkippingStatsColumns",
  "delta.deletedFileRetentionDuration",
  "delta.enableChangeDataFeed",
  "delta.enableDeletionVectors",
  "delta.enableExpiredLogCleanup",
  "delta.isolationLevel",
  "delta.logRetentionDuration",
  "delta.minReaderVersion",
  "delta.minWriterVersion",
  "delta.randomPrefixLength",
  "delta.randomizeFilePrefixes",
  "delta.setTransactionRetentionDuration",
  "delta.targetFileSize",
  "delta.tuneFileSizesForRewrites",
];

const KNOWN = new Set(KNOWN_DELTA_TABLE_PROPERTIES);

/**
 * Throws `invalid_argument` for the first key in the `delta.` namespace (any case) that is not a known
 * table property, with a "did you mean" hint; nothing else is checked.
 */
export function validateTableProperties(
  configuration: Readonly<Record<string, string>>,
  table: string,
): void {
  for (const key of Object.keys(configuration)) {
    if (!key.toLowerCase().startsWith("delta.") || KNOWN.has(key)) continue;
    throw new DeltaLiteInvalidArgumentError(
      `${table}: unknown table property ${JSON.stringify(key)}${didYouMean(key, KNOWN_DELTA_TABLE_PROPERTIES)}; ` +
        "table properties in the delta. namespace are case-sensitive and must be one of: " +
        KNOWN_DELTA_TABLE_PROPERTIES.join(", "),
    );
  }
}
