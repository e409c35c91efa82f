/**
 * The range of a change-data read, as the caller gives it: `{ startingVersion, endingVersion? }` or
 * `{ startingTimestamp, endingTimestamp? }` (both ends inclusive; instants as a Date, epoch milliseconds or
 * ISO 8601 text, a date-time without a zone read as UTC). This module owns checking its shape — unknown
 * keys (with a "did you mean"), mixed or missing forms, negative or fractional versions, unparseable
 * instants and ends before starts are `invalid_argument` — and turning it into versions or milliseconds.
 */
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";

export type ChangeInstant = Date | number | string;

export type ChangeRange =
  | { startingVersion: number; endingVersion?: number | undefined }
  | { startingTimestamp: ChangeInstant; endingTimestamp?: ChangeInstant | undefined };

/** A checked range: versions, or commit-timestamp bounds in epoch milliseconds. */
export type CheckedRange =
  | { by: "version"; start: number; end: number | undefined }
  | { by: "timestamp"; startMs: number; endMs: number | undefined };

const VERSION_KEYS = ["startingVersion", "endingVersion"] as const;
const TIMESTAMP_KEYS = ["startingTimestamp", "endingTimestamp"] as const;
const KEYS: readonly string[] = [...VERSION_KEYS, ...TIMESTAMP_KEYS];

function refuse(why: string): DeltaLiteInvalidArgumentError {
  return new DeltaLiteInvalidArgumentError(`changes range: ${why}`);
}

/** Checks `range` (see the module comment); throws `invalid_argument` naming what is wrong. */
export function checkRange(range: unknown): CheckedRange {
  if (typeof range !== "object" || range === null || Array.isArray(range)) {
    throw refuse("give { startingVersion, endingVersion? } or { startingTimestamp, endingTimestamp? }");
  }
  const given = Object.entries(range).filter(([, v]) => v !== undefined);
  for (const [key] of given) {
    if (!KEYS.includes(key))
      throw refuse(`unknown key "${key}"${didYouMean(key, KEYS)} (keys: ${KEYS.join(", ")})`);
  }
  const has = (key: string) => given.some(([k]) => k === key);
  const byVersion = VERSION_KEYS.some(has);
  const byTimestamp = TIMESTAMP_KEYS.some(has);
  if (byVersion && byTimestamp) throw refuse("give versions or timestamps, not both");
  const values = Object.fromEntries(given) as Record<string, unknown>;
  if (byTimestamp) {
    if (!has("startingTimestamp")) throw refuse("endingTimestamp needs a startingTimestamp");
    const startMs = instantMs(values.startingTimestamp, "startingTimestamp");
    const endMs = has("endingTimestamp") ? instantMs(values.endingTimestamp, "endingTimestamp") : undefined;
    if (endMs !== undefined && endMs < startMs) {
      throw refuse(
        `endingTimestamp ${new Date(endMs).toISOString()} is before startingTimestamp ${new Date(startMs).toISOString()}`,
      );
    }
    return { by: "timestamp", startMs, endMs };
  }
  if (!has("startingVersion")) {
    throw refuse("a startingVersion (or a startingTimestamp) is required");
  }
  const start = version(values.startingVersion, "startingVersion");
  const end = has("endingVersion") ? version(values.endingVersion, "endingVersion") : undefined;
  if (end !== undefined && end < start) {
    throw refuse(`endingVersion ${end} is before startingVersion ${start}`);
  }
  return { by: "version", start, end };
}

function version(value: unknown, name: string): number {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw refuse(`${name} must be a non-negative integer, got ${describe(value)}`);
}

/** Epoch milliseconds of a Date, a number or ISO 8601 text (a zone-less date-time is UTC). */
export function instantMs(value: unknown, name: string): number {
  let ms = Number.NaN;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === "number") ms = value;
  else if (typeof value === "string") {
    const zoneless = /T\d{2}:\d{2}/.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/i.test(value);
    ms = Date.parse(zoneless ? `${value}Z` : value);
  }
  if (!Number.isFinite(ms)) {
    throw refuse(`${name} must be a Date, epoch milliseconds or ISO 8601 text, got ${describe(value)}`);
  }
  return ms;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Date) return "an invalid Date";
  return typeof value === "bigint" ? `${value}n` : String(value);
}
