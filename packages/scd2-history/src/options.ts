/**
 * Owns the check of `HistoryUpsertOptions` as given, before the table or the source is looked at: the
 * column options are names (a non-empty list of distinct names for `keyColumns`), `currentPartition` is a
 * non-empty string, `txn` is an `{ appId, version }` (delta-log's check, as every engine's), and the few
 * numbers this package reads itself are sane. Unknown options are refused
 * with a "did you mean" hint. Everything is kind `invalid_argument`. The knobs the upsert shares are
 * checked where they are used (the budgets, the reader and the writer refuse bad values with the same
 * kind), still before anything is committed.
 */
import { checkAppTransaction } from "@deltalite/delta-log";
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import type { HistoryUpsertOptions } from "./types.js";

const KNOWN_OPTIONS: readonly (keyof HistoryUpsertOptions)[] = [
  "keyColumns",
  "orderColumn",
  "validFromColumn",
  "validToColumn",
  "partitionColumn",
  "currentPartition",
  "tieBreakColumn",
  "maxReplans",
  "txn",
  "timeoutMs",
  "hooks",
  "processBudgets",
  "commitMetadata",
  "targetFileSize",
  "maxRowGroupBytes",
  "maxRowGroupRows",
  "readBatchSize",
  "codec",
  "multipartThresholdBytes",
  "multipartPartSizeBytes",
  "multipartConcurrency",
  "rangeGetPartSizeBytes",
  "rangeGetConcurrency",
  "readAheadRowGroups",
  "probeConcurrency",
  "maxParallelPartitions",
  "maxParallelFiles",
  "maxBufferedBytes",
  "maxFetchBytes",
  "permitWaitTimeoutMs",
  "maxSourceBytes",
  "signal",
];

const shown = (value: unknown) =>
  typeof value === "string" || Array.isArray(value) ? JSON.stringify(value) : String(value);

function invalid(table: string, option: string, expected: string, value: unknown) {
  return new DeltaLiteInvalidArgumentError(
    `${table}: historyUpsert option ${option} must be ${expected} (got ${shown(value)})`,
  );
}

const isName = (value: unknown): value is string => typeof value === "string" && value !== "";

/** Throws kind `invalid_argument` for the first bad option (see module comment). */
export function validateHistoryOptions(options: HistoryUpsertOptions, table: string): void {
  if (typeof options !== "object" || options === null) {
    throw invalid(table, "options", "an object", options);
  }
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && !(KNOWN_OPTIONS as readonly string[]).includes(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: unknown historyUpsert option ${name}${didYouMean(name, KNOWN_OPTIONS)}`,
      );
    }
  }
  const keys: unknown = options.keyColumns;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every(isName)) {
    throw invalid(table, "keyColumns", "a non-empty list of column names", keys);
  }
  if (new Set(keys).size !== keys.length) {
    throw invalid(table, "keyColumns", "a list of distinct column names", keys);
  }
  for (const option of ["orderColumn", "validFromColumn", "validToColumn", "partitionColumn"] as const) {
    if (!isName(options[option])) throw invalid(table, option, "a column name", options[option]);
  }
  if (!isName(options.currentPartition)) {
    throw invalid(table, "currentPartition", "a non-empty partition value", options.currentPartition);
  }
  const tieBreak: unknown = options.tieBreakColumn;
  if (tieBreak !== undefined && !isName(tieBreak))
    throw invalid(table, "tieBreakColumn", "a column name", tieBreak);
  const replans: unknown = options.maxReplans;
  if (replans !== undefined && !(Number.isSafeInteger(replans) && (replans as number) >= 0)) {
    throw invalid(table, "maxReplans", "an integer ≥ 0", replans);
  }
  const timeout: unknown = options.timeoutMs;
  if (timeout !== undefined && !(Number.isSafeInteger(timeout) && (timeout as number) >= 1)) {
    throw invalid(table, "timeoutMs", "an integer ≥ 1 (milliseconds)", timeout);
  }
  checkAppTransaction(options.txn, table);
  const probes: unknown = options.probeConcurrency;
  if (probes !== undefined && (typeof probes !== "number" || Number.isNaN(probes))) {
    throw invalid(table, "probeConcurrency", "a number (files probed at once; below 1 means 1)", probes);
  }
}
