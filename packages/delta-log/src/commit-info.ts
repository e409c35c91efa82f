/**
 * commitInfo as delta-rs writes it (timestamp, operation, operationParameters with every value as a
 * string, readVersion, isBlindAppend, operationMetrics, engineInfo, clientVersion, custom metadata flat),
 * naming this library as the engine, plus Spark's per-transaction `txnId`.
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import type { CommitInfoAction } from "./actions.js";

/** The version of @deltalite/delta-log (kept equal to package.json by a test). */
export const DELTA_LOG_VERSION = "0.1.0";

/** `commitInfo.engineInfo` of every commit this library writes. */
export const ENGINE_INFO = `deltalite-ts/${DELTA_LOG_VERSION}`;

/** `commitInfo.clientVersion` (delta-rs writes `delta-rs.<version>` here). */
export const CLIENT_VERSION = `deltalite-ts.${DELTA_LOG_VERSION}`;

/** Keys of commitInfo this library sets itself; custom metadata cannot override them. */
const RESERVED = new Set([
  "timestamp",
  "operation",
  "operationParameters",
  "readVersion",
  "isBlindAppend",
  "operationMetrics",
  "engineInfo",
  "clientVersion",
  "inCommitTimestamp",
  "txnId",
]);

export interface CommitInfoInput {
  operation: string;
  /** Values are stored as strings (non-strings as their JSON text), as delta-rs does; nulls are dropped. */
  operationParameters?: Record<string, unknown> | undefined;
  operationMetrics?: Record<string, unknown> | undefined;
  /** Caller metadata, written flat into commitInfo (reserved keys are refused). */
  commitMetadata?: Record<string, unknown> | undefined;
  readVersion?: number | undefined;
  isBlindAppend?: boolean | undefined;
  timestamp?: number | undefined;
  /**
   * A per-transaction id (Spark's `txnId` field): how the commit path recognises its own commit when a
   * put's answer was lost.
   */
  txnId?: string | undefined;
}

/** Builds the commitInfo action body. Throws `invalid_argument` when custom metadata uses a reserved key. */
export function buildCommitInfo(input: CommitInfoInput): CommitInfoAction {
  const info: CommitInfoAction = {
    timestamp: input.timestamp ?? Date.now(),
    operation: input.operation,
    operationParameters: stringifyParameters(input.operationParameters ?? {}),
  };
  if (input.readVersion !== undefined && input.readVersion >= 0) info.readVersion = input.readVersion;
  if (input.isBlindAppend !== undefined) info.isBlindAppend = input.isBlindAppend;
  info.engineInfo = ENGINE_INFO;
  if (input.operationMetrics) info.operationMetrics = input.operationMetrics;
  info.clientVersion = CLIENT_VERSION;
  if (input.txnId !== undefined) info.txnId = input.txnId;
  for (const [key, value] of Object.entries(input.commitMetadata ?? {})) {
    if (RESERVED.has(key)) {
      throw new DeltaLiteInvalidArgumentError(
        `commit metadata key ${JSON.stringify(key)} is reserved for commitInfo (reserved: ${[...RESERVED].join(", ")})`,
      );
    }
    info[key] = value;
  }
  return info;
}

function stringifyParameters(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    out[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return out;
}
