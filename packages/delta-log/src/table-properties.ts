/**
 * Which table properties a table may be given, by delta-rs 1.6.6's rule: a key in the `delta.`
 * namespace must be one delta-rs knows, spelled exactly (names are case-sensitive: `delta.appendonly` is
 * refused); `validateTableProperties` does not check values (delta-rs does not check them at create). Keys
 * outside the namespace are the caller's own and pass — delta-rs refuses those too, but the Delta protocol
 * allows them and Spark writes them, so tables that carry them stay writable. `validateTablePropertyValues`
 * checks the values of the properties this library acts on, for changes made with `setTableProperties`.
 */
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import { parseIntervalMs } from "./maintenance/interval.js";

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

/** Properties whose value must be `true` or `false` (any case), as delta-rs parses them. */
const BOOLEAN_PROPERTIES: readonly string[] = [
  "delta.appendOnly",
  "delta.enableChangeDataFeed",
  "delta.enableDeletionVectors",
  "delta.enableExpiredLogCleanup",
  "delta.checkpoint.writeStatsAsJson",
  "delta.checkpoint.writeStatsAsStruct",
];

/** Properties read as an `interval <n> <unit>` duration. */
const INTERVAL_PROPERTIES: readonly string[] = [
  "delta.logRetentionDuration",
  "delta.deletedFileRetentionDuration",
  "delta.setTransactionRetentionDuration",
];

/** Properties whose value must be a positive integer. */
const POSITIVE_INTEGER_PROPERTIES: readonly string[] = ["delta.checkpointInterval", "delta.targetFileSize"];

/**
 * Throws `invalid_argument` for the first value this library could not act on: a non-boolean where a
 * boolean is read (delta-rs refuses that for `delta.enableChangeDataFeed` too), a non-positive or
 * non-integer `delta.checkpointInterval` / `delta.targetFileSize`, an unparseable retention interval.
 */
export function validateTablePropertyValues(
  configuration: Readonly<Record<string, string>>,
  table: string,
): void {
  const bad = (key: string, value: string, expected: string) =>
    new DeltaLiteInvalidArgumentError(
      `${table}: table property ${key} = ${JSON.stringify(value)} is invalid: ${expected}`,
    );
  for (const [key, value] of Object.entries(configuration)) {
    if (BOOLEAN_PROPERTIES.includes(key) && !/^(true|false)$/i.test(value)) {
      throw bad(key, value, "expected true or false");
    }
    if (POSITIVE_INTEGER_PROPERTIES.includes(key) && !/^[1-9][0-9]{0,15}$/.test(value)) {
      throw bad(key, value, "expected a positive integer");
    }
    if (INTERVAL_PROPERTIES.includes(key)) {
      try {
        parseIntervalMs(value, key);
      } catch {
        throw bad(key, value, 'expected an interval such as "interval 7 days"');
      }
    }
  }
}
