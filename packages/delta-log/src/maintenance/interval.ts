/**
 * Delta's `interval <n> <unit>` table-property syntax (`delta.logRetentionDuration`,
 * `delta.deletedFileRetentionDuration`, …) to milliseconds, accepting the units delta-rs accepts.
 */
import { DeltaLiteError } from "@deltalite/errors";

const UNIT_MS: Record<string, number> = {
  nanosecond: 1e-6,
  microsecond: 1e-3,
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

/** Parses `"interval 30 days"` (the `interval` word optional, units singular or plural) to milliseconds. */
export function parseIntervalMs(text: string, property = "interval"): number {
  const m = /^\s*(?:interval\s+)?(\d+)\s+([a-z]+?)s?\s*$/i.exec(text);
  const unit = m?.[2]?.toLowerCase();
  const perUnit = unit === undefined ? undefined : UNIT_MS[unit];
  if (!m || perUnit === undefined) {
    throw new DeltaLiteError("generic", `${property}: cannot parse interval ${JSON.stringify(text)}`);
  }
  return Number(m[1]) * perUnit;
}

/** Table property as an interval in ms, or the default when the property is absent. */
export function intervalProperty(
  configuration: Readonly<Record<string, string | null | undefined>>,
  key: string,
  defaultMs: number,
): number {
  const value = configuration[key];
  return value === undefined || value === null ? defaultMs : parseIntervalMs(value, key);
}

export const DAY_MS = 86_400_000;
/** `delta.logRetentionDuration` default: 30 days. */
export const DEFAULT_LOG_RETENTION_MS = 30 * DAY_MS;
/** `delta.deletedFileRetentionDuration` default: 1 week. */
export const DEFAULT_DELETED_FILE_RETENTION_MS = 7 * DAY_MS;
