/**
 * Owns the validation of `CompactOptions` and `ZOrderOptions` as a whole, run before anything is read or written: unknown option
 * names (with a "did you mean"), numbers out of range, wrong types. Every failure is
 * `DeltaLiteInvalidArgumentError` naming the table, the option and the value. Partition filters are checked
 * against the table in partition-filter.ts; reserved commitMetadata keys by delta-log's commitInfo builder.
 */
import { buildCommitInfo } from "@deltalite/delta-log";
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import type { CompactOptions, ZOrderOptions } from "./types.js";

/** The smallest multipart part S3 accepts for every part but the last. */
const MIN_MULTIPART_PART_SIZE_BYTES = 5 * 1024 * 1024;

type Rule = { accepts: (value: number) => boolean; expected: string };

const integerAtLeast = (minimum: number): Rule => ({
  accepts: (v) => Number.isSafeInteger(v) && v >= minimum,
  expected: `an integer ≥ ${minimum}`,
});

const NUMERIC: Record<string, Rule> = {
  targetFileSize: integerAtLeast(1),
  minPartitionRemovableFiles: integerAtLeast(1),
  maxParallelBins: integerAtLeast(1),
  maxParallelFiles: integerAtLeast(1),
  maxBufferedBytes: integerAtLeast(1),
  maxFetchBytes: integerAtLeast(1),
  readBatchSize: integerAtLeast(1),
  maxDecodedFileBytes: integerAtLeast(1),
  maxRowGroupDecodedBytes: integerAtLeast(1),
  maxBinsPerCommit: integerAtLeast(1),
  maxReplanRounds: integerAtLeast(0),
  commitMaxRetries: integerAtLeast(0),
  multipartThresholdBytes: integerAtLeast(1),
  multipartPartSizeBytes: integerAtLeast(MIN_MULTIPART_PART_SIZE_BYTES),
  multipartConcurrency: integerAtLeast(1),
  rangeGetPartSizeBytes: integerAtLeast(1),
  rangeGetConcurrency: integerAtLeast(1),
  readAheadRowGroups: integerAtLeast(0),
  permitWaitTimeoutMs: integerAtLeast(1),
};

const OTHER = new Set([
  "partitions",
  "dryRun",
  "commitMetadata",
  "onProgress",
  "processBudgets",
  "hooks",
  "signal",
]);

const KNOWN = new Set([...Object.keys(NUMERIC), ...OTHER]);

/** zOrder's options: compact's but minPartitionRemovableFiles (every file is rewritten), and the sort's. */
const Z_ORDER_NUMERIC: Record<string, Rule> = {
  ...Object.fromEntries(Object.entries(NUMERIC).filter(([name]) => name !== "minPartitionRemovableFiles")),
  maxSortBytes: integerAtLeast(1),
};
const Z_ORDER_KNOWN = new Set([...Object.keys(Z_ORDER_NUMERIC), ...OTHER, "spillDirectory"]);

const shown = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : String(value));

function invalid(table: string, operation: string, option: string, expected: string, value: unknown) {
  return new DeltaLiteInvalidArgumentError(
    `${table}: ${operation} option ${option} must be ${expected} (got ${shown(value)})`,
  );
}

/** Throws `invalid_argument` for the first bad option (see the module comment). */
export function validateCompactOptions(options: CompactOptions, table: string): void {
  validateOptions(options, table, "compact", NUMERIC, KNOWN);
}

/** zOrder's options, validated as compact's are (plus `maxSortBytes` and `spillDirectory`). */
export function validateZOrderOptions(options: ZOrderOptions, table: string): void {
  validateOptions(options as CompactOptions, table, "z-order", Z_ORDER_NUMERIC, Z_ORDER_KNOWN);
  const dir: unknown = options.spillDirectory;
  if (dir !== undefined && (typeof dir !== "string" || dir === "")) {
    throw invalid(table, "z-order", "spillDirectory", "a non-empty path", dir);
  }
}

function validateOptions(
  options: CompactOptions,
  table: string,
  operation: string,
  numeric: Record<string, Rule>,
  known: ReadonlySet<string>,
): void {
  if (typeof options !== "object" || options === null) {
    throw new DeltaLiteInvalidArgumentError(`${table}: ${operation} options must be an object`);
  }
  for (const name of Object.keys(options)) {
    if (!known.has(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: unknown ${operation} option ${JSON.stringify(name)}${didYouMean(name, known)}`,
      );
    }
  }
  const record = options as Record<string, unknown>;
  for (const [name, rule] of Object.entries(numeric)) {
    const value = record[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !rule.accepts(value))
      throw invalid(table, operation, name, rule.expected, value);
  }
  if (options.dryRun !== undefined && typeof options.dryRun !== "boolean") {
    throw invalid(table, operation, "dryRun", "a boolean", options.dryRun);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw invalid(table, operation, "onProgress", "a function", options.onProgress);
  }
  const metadata: unknown = options.commitMetadata;
  if (
    metadata !== undefined &&
    (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
  ) {
    throw invalid(table, operation, "commitMetadata", "an object", metadata);
  }
  // Reserved commitInfo keys are refused by the commit path's own builder: asked now, before any write.
  if (metadata !== undefined)
    buildCommitInfo({ operation: "OPTIMIZE", commitMetadata: options.commitMetadata });
  const partitions: unknown = options.partitions;
  if (
    partitions !== undefined &&
    (typeof partitions !== "object" || partitions === null || Array.isArray(partitions))
  ) {
    throw invalid(table, operation, "partitions", "an object of column → value(s)", partitions);
  }
}
