/**
 * File pruning for scans: a file is skipped when its partition values, or its Add stats, prove that no row
 * of it can satisfy the filter.
 *
 * Partition values are parsed with the column's Delta type (an empty string is null, as PROTOCOL.md says)
 * and tested exactly. Stats are used only where they are sound (SPEC §7 "Stats pruning"): on integer
 * (byte, short, integer, long), date and string columns. A long bound that JSON cannot hold exactly is
 * ignored; a string min is always a lower bound (writers truncate it to a prefix), but a string max that may
 * have been truncated — 32 or more code points (Spark truncates to 32 characters) or 61 or more UTF-8 bytes
 * (delta-rs/arrow-rs cut at a char boundary within 64 bytes and increment the last char) — is treated as
 * unbounded above. Timestamps, floats, decimals, booleans and binary are never pruned by stats. null counts
 * prune `isNull` (no nulls) and every other op when all values are null.
 */
import type { FileStats, FileView } from "@deltalite/delta-log";
import { parsePartitionValue } from "@deltalite/delta-log";
import {
  type Comparable,
  compareStrings,
  compareValues,
  type ResolvedCondition,
  satisfies,
} from "./filter.js";

const utf8 = new TextEncoder();

/** The typed value of a partition column in a file (null when absent, null or empty). */
export function partitionScalar(file: FileView, column: string, deltaType: string): Comparable | null {
  const text = file.partitionValues[column];
  if (text === null || text === undefined || text === "") return null;
  const value = parsePartitionValue(text, deltaType);
  return value === null ? null : (value as Comparable);
}

/** True when the file's partition values satisfy every condition on a partition column. */
export function partitionsMatch(
  file: FileView,
  conditions: readonly ResolvedCondition[],
  partitionColumns: ReadonlySet<string>,
): boolean {
  for (const condition of conditions) {
    if (!partitionColumns.has(condition.column)) continue;
    const value = partitionScalar(file, condition.column, condition.deltaType);
    const scaled =
      condition.kind === "decimal" && typeof value === "bigint" && condition.extraScale > 0
        ? value * 10n ** BigInt(condition.extraScale)
        : value;
    if (!satisfies(scaled, condition)) return false;
  }
  return true;
}

const STATS_TYPES = new Set(["byte", "short", "integer", "long", "date", "string"]);

interface Bounds {
  min: Comparable | undefined;
  max: Comparable | undefined;
  nullCount: number | undefined;
  numRecords: number | undefined;
}

function statBound(raw: unknown, deltaType: string, side: "min" | "max"): Comparable | undefined {
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
      if (side === "max" && mayBeTruncated(raw)) return undefined;
      return raw;
    default:
      return undefined;
  }
}

/** Whether a string max may have been cut by a writer (and so may lie below the column's real max). */
export function mayBeTruncated(max: string): boolean {
  let codePoints = 0;
  for (const _ of max) codePoints++;
  return codePoints >= 32 || utf8.encode(max).length >= 61;
}

function boundsOf(stats: FileStats, column: string, deltaType: string): Bounds {
  const min = stats.minValues?.[column];
  const max = stats.maxValues?.[column];
  const nulls = stats.nullCount?.[column];
  return {
    min: statBound(min, deltaType, "min"),
    max: statBound(max, deltaType, "max"),
    // Non-tight stats (files with deletion vectors) may count removed rows: their null counts prove nothing.
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

/** True when the file's stats leave open that some row satisfies `condition` (always true without stats). */
export function statsMayMatch(stats: FileStats | undefined, condition: ResolvedCondition): boolean {
  if (!stats) return true;
  const { nullCount, numRecords, min, max } = boundsOf(stats, condition.column, condition.deltaType);
  if (condition.op === "isNull") return nullCount === undefined || nullCount > 0;
  const allNull = nullCount !== undefined && numRecords !== undefined && nullCount >= numRecords;
  if (allNull && numRecords !== undefined) return false; // no non-null value can satisfy a comparison
  if (condition.op === "isNotNull") return true;
  if (!STATS_TYPES.has(condition.deltaType)) return true;
  const kind = condition.kind;
  const cmp = (a: Comparable, b: Comparable) =>
    kind === "string" ? compareStrings(a as string, b as string) : compareValues(a, b, kind);
  const below = (v: Comparable) => min !== undefined && cmp(v, min) < 0; // v < min
  const above = (v: Comparable) => max !== undefined && cmp(v, max) > 0; // v > max
  const v = condition.operands[0];
  switch (condition.op) {
    case "eq":
      return !(below(v!) || above(v!));
    case "in":
      return condition.operands.some((o) => !(below(o) || above(o)));
    case "ne":
      // Every non-null value equals v only when min = max = v (a max that may be truncated is unknown).
      return !(min !== undefined && max !== undefined && cmp(min, v!) === 0 && cmp(max, v!) === 0);
    case "lt":
      return min === undefined || cmp(min, v!) < 0;
    case "le":
      return min === undefined || cmp(min, v!) <= 0;
    case "gt":
      return max === undefined || cmp(max, v!) > 0;
    case "ge":
      return max === undefined || cmp(max, v!) >= 0;
  }
}

/** True when the file's stats leave open that some row satisfies every non-partition condition. */
export function statsMatch(
  file: FileView,
  conditions: readonly ResolvedCondition[],
  partitionColumns: ReadonlySet<string>,
): boolean {
  for (const condition of conditions) {
    if (partitionColumns.has(condition.column)) continue;
    if (!statsMayMatch(file.stats, condition)) return false;
  }
  return true;
}
