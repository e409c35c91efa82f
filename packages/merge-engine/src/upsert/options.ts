/**
 * Owns the validation of `UpsertOptions` as a whole: `validateUpsertOptions` runs at the very start of an
 * upsert, before the source is read, so a bad knob is refused before anything is written (the
 * nullability-relax metadata commit included) instead of failing where it is first used. Each rule accepts
 * exactly what the knob's consumer accepts today (the comment at each rule names it), with two exceptions:
 * `multipartPartSizeBytes` must be ≥ 5 MiB (the S3 store's minimum part), and NaN or a non-number is refused
 * everywhere (consumers that clamp would otherwise misread it: NaN probe workers decide no file). It also
 * sizes the process-wide probe cache when the call uses it, so an invalid DELTALITE_PROBE_CACHE_BYTES fails
 * here too. Errors are kind `invalid_argument` (`DeltaLiteInvalidArgumentError`) naming the table, the
 * option and the value; the checks of `primaryKeys` / `partitionKey` against the table's columns are in
 * shape.ts (they need the snapshot's schema).
 */
import { checkAppTransaction } from "@deltalite/delta-log";
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import { globalProbeCache } from "@deltalite/probe-cache";
import type { UpsertOptions } from "./types.js";

/** The smallest multipart part S3 accepts for every part but the last (the S3 store refuses less). */
export const MIN_MULTIPART_PART_SIZE_BYTES = 5 * 1024 * 1024;

interface NumberRule {
  /** Called with a number that is not NaN. */
  accepts(value: number): boolean;
  /** "must be …" */
  expected: string;
}

/** Safe integers ≥ `minimum`: parquet-stream's writer options (`positive`) and the budgets' `limit`. */
const safeIntegerAtLeast = (minimum: number, note = ""): NumberRule => ({
  accepts: (v) => Number.isSafeInteger(v) && v >= minimum,
  expected: `an integer ≥ ${minimum}${note}`,
});

/** Consumers that clamp (`Math.max(…)`) or compare: any number works. */
const anyNumber = (note: string): NumberRule => ({ accepts: () => true, expected: `a number (${note})` });

type NumericOption = {
  [K in keyof UpsertOptions]-?: NonNullable<UpsertOptions[K]> extends number ? K : never;
}[keyof UpsertOptions];

const NUMERIC_RULES: Record<NumericOption, NumberRule> = {
  // parquet-stream ParquetReader.readRowGroups: batchRows must be an integer > 0.
  readBatchSize: {
    accepts: (v) => Number.isInteger(v) && v >= 1,
    expected: "an integer ≥ 1",
  },
  // readRowGroups: Math.max(0, readAhead).
  readAheadRowGroups: anyNumber("row groups fetched ahead; 0 or less: none"),
  // parquet-stream resolveWriteOptions (positive).
  targetFileSize: safeIntegerAtLeast(1),
  maxRowGroupBytes: safeIntegerAtLeast(1),
  maxRowGroupRows: safeIntegerAtLeast(1),
  multipartThresholdBytes: safeIntegerAtLeast(1),
  multipartPartSizeBytes: safeIntegerAtLeast(
    MIN_MULTIPART_PART_SIZE_BYTES,
    " (5 MiB, the smallest part S3 accepts)",
  ),
  multipartConcurrency: safeIntegerAtLeast(1),
  // fetchRanges: Math.max(1, partSize); parts must end on whole bytes (the stores refuse fractional ranges).
  rangeGetPartSizeBytes: {
    accepts: (v) => Number.isInteger(v) || !Number.isFinite(v),
    expected: "a whole number of bytes (below 1 means 1; Infinity: no split)",
  },
  // RequestLimiter: Math.max(1, limit).
  rangeGetConcurrency: anyNumber("GETs in flight per file; below 1 means 1"),
  // mapLimit: Math.max(1, Math.min(limit, files)) workers.
  probeConcurrency: anyNumber("files probed at once; below 1 means 1"),
  // CallBudgets (limit): positive safe integers.
  maxParallelPartitions: safeIntegerAtLeast(1),
  maxParallelFiles: safeIntegerAtLeast(1),
  maxBufferedBytes: safeIntegerAtLeast(1),
  maxFetchBytes: safeIntegerAtLeast(1),
  permitWaitTimeoutMs: safeIntegerAtLeast(1),
  // upsert's own deadline check.
  timeoutMs: safeIntegerAtLeast(1),
  // The source guard applies only when maxSourceBytes > 0.
  maxSourceBytes: anyNumber("bytes; 0 or less disables the guard"),
  // Re-plans while attempt <= maxReplans.
  maxReplans: anyNumber("re-plans after a commit conflict; 0 or less: none"),
};

const CODECS = ["snappy", "zstd", "uncompressed"] as const;
const PRUNE_STRATEGIES = ["probe", "stats", "none"] as const;
const MISSING_COLUMNS = ["null", "keep", "error"] as const;

/** The options whose value must be one of a few strings. */
const CHOICES = {
  codec: CODECS,
  pruneStrategy: PRUNE_STRATEGIES,
  missingColumns: MISSING_COLUMNS,
} as const satisfies Partial<Record<keyof UpsertOptions, readonly string[]>>;

const shown = (value: unknown) =>
  typeof value === "string" || Array.isArray(value) ? JSON.stringify(value) : String(value);

function invalid(
  table: string,
  option: string,
  expected: string,
  value: unknown,
): DeltaLiteInvalidArgumentError {
  return new DeltaLiteInvalidArgumentError(
    `${table}: upsert option ${option} must be ${expected} (got ${shown(value)})`,
  );
}

/** Throws kind `invalid_argument` for the first option of `options` that is invalid (see the module comment). */
export function validateUpsertOptions(options: UpsertOptions, table: string): void {
  validateColumnNames(options, table);
  checkAppTransaction(options.txn, table);
  for (const [option, rule] of Object.entries(NUMERIC_RULES) as [NumericOption, NumberRule][]) {
    const value: unknown = options[option];
    if (value === undefined) continue;
    if (typeof value !== "number" || Number.isNaN(value) || !rule.accepts(value)) {
      throw invalid(table, option, rule.expected, value);
    }
  }
  for (const [option, choices] of Object.entries(CHOICES) as [keyof typeof CHOICES, readonly string[]][]) {
    const value: unknown = options[option];
    if (value !== undefined && !(choices as readonly unknown[]).includes(value)) {
      throw invalid(table, option, `one of ${choices.join(", ")}`, value);
    }
  }
  // Sized from DELTALITE_PROBE_CACHE_BYTES on first use: an invalid value throws now, before any write.
  if (options.probeCache === undefined) globalProbeCache();
}

/** `primaryKeys`: a non-empty list of distinct column names; `partitionKey`: a name when given. */
function validateColumnNames(options: UpsertOptions, table: string): void {
  const keys: unknown = options.primaryKeys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === "string" && k !== "")) {
    throw invalid(table, "primaryKeys", "a non-empty list of column names", keys);
  }
  if (new Set(keys).size !== keys.length) {
    throw invalid(table, "primaryKeys", "a list of distinct column names", keys);
  }
  const partitionKey: unknown = options.partitionKey;
  if (partitionKey !== undefined && (typeof partitionKey !== "string" || partitionKey === "")) {
    throw invalid(table, "partitionKey", "a column name", partitionKey);
  }
  const deleteColumn: unknown = options.deleteColumn;
  if (deleteColumn !== undefined && (typeof deleteColumn !== "string" || deleteColumn === "")) {
    throw invalid(table, "deleteColumn", "a column name", deleteColumn);
  }
  if (typeof deleteColumn === "string" && (keys as string[]).includes(deleteColumn)) {
    throw invalid(table, "deleteColumn", "a column that is not a primary key", deleteColumn);
  }
}
