/**
 * Which Add-stats bounds a reader may trust for file skipping, shared by the scan
 * and the upsert: only integer (byte, short, integer, long), date and string columns; a long bound that JSON
 * cannot hold exactly is ignored; a string min is always a lower bound (writers truncate it to a prefix),
 * but a string max that may have been truncated — 32 or more code points (Spark cuts at 32 characters) or
 * 61 or more UTF-8 bytes (delta-rs/arrow-rs cut within 64 bytes and increment the last character) — is
 * unbounded above. Null counts count only when the bounds are tight (deletion vectors make them loose).
 */
import { parsePartitionValue } from "../partition/index.js";
import type { FileStats } from "../snapshot.js";

/** Delta types whose stats may rule a file out. */
export const STATS_PRUNABLE_TYPES: ReadonlySet<string> = new Set([
  "byte",
  "short",
  "integer",
  "long",
  "date",
  "string",
]);

/** A trusted bound: a number (byte/short/integer, and date as days since the epoch), bigint (long) or string. */
export type StatBound = number | bigint | string;

const utf8 = new TextEncoder();

/** Whether a string max may have been cut by a writer (and so may lie below the column's real max). */
export function mayBeTruncatedMax(max: string): boolean {
  let codePoints = 0;
  for (const _ of max) codePoints++;
  return codePoints >= 32 || utf8.encode(max).length >= 61;
}

/** The bound `raw` (a min or max from Add stats) proves for a column of `deltaType`, or undefined. */
export function statBound(raw: unknown, deltaType: string, side: "min" | "max"): StatBound | undefined {
  switch (deltaType) {
    case "byte":
    case "short":
    case "integer":
      return typeof raw === "number" && Number.isSafeInteger(raw) ? raw : undefined;
    case "long":
      return typeof raw === "number" && Number.isSafeInteger(raw) ? BigInt(raw) : undefined;
    case "date": {
      if (typeof raw !== "string" || !/^-?\d{4,}-\d{2}-\d{2}$/.test(raw)) return undefined;
      try {
        const days = parsePartitionValue(raw, "date");
        return typeof days === "number" ? days : undefined;
      } catch {
        return undefined;
      }
    }
    case "string":
      if (typeof raw !== "string") return undefined;
      return side === "max" && mayBeTruncatedMax(raw) ? undefined : raw;
    default:
      return undefined;
  }
}

export interface ColumnBounds {
  min: StatBound | undefined;
  max: StatBound | undefined;
  nullCount: number | undefined;
  numRecords: number | undefined;
}

/** The trusted bounds and counts of one column of a file. */
export function columnBounds(stats: FileStats, column: string, deltaType: string): ColumnBounds {
  const nulls = stats.nullCount?.[column];
  return {
    min: statBound(stats.minValues?.[column], deltaType, "min"),
    max: statBound(stats.maxValues?.[column], deltaType, "max"),
    nullCount:
      typeof nulls === "number" && Number.isSafeInteger(nulls) && stats.tightBounds !== false
        ? nulls
        : undefined,
    numRecords:
      typeof stats.numRecords === "number" && Number.isSafeInteger(stats.numRecords)
        ? stats.numRecords
        : undefined,
  };
}

/** True when the stats prove every value of the column in the file is NULL. */
export function allNull(bounds: ColumnBounds): boolean {
  return (
    bounds.nullCount !== undefined && bounds.numRecords !== undefined && bounds.nullCount >= bounds.numRecords
  );
}
