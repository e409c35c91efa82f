/**
 * File pruning for scans: a file is skipped when its partition values, or its Add stats, prove that no row
 * of it can satisfy the filter.
 *
 * Partition values are parsed with the column's Delta type (an empty string is null, as PROTOCOL.md says)
 * and tested exactly. Stats are used only where delta-log's `columnBounds` trusts them
 * (integer, date and string columns; no long beyond 2^53; no possibly truncated string max).
 * Timestamps, floats, decimals, booleans and binary are never pruned by stats. Null counts prune `isNull`
 * (no nulls) and every other op when all values are null. The converse — stats proving that every row
 * matches — is `statsProveAllMatch` (a delete removes such files without reading them).
 */
import {
  allNull,
  columnBounds,
  type FileStats,
  type FileView,
  parsePartitionValue,
  STATS_PRUNABLE_TYPES,
} from "@deltalite/delta-log";
import { type Comparable, compareValues, type ResolvedCondition, satisfies } from "./filter.js";

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

/** True when the file's stats leave open that some row satisfies `condition` (always true without stats). */
export function statsMayMatch(stats: FileStats | undefined, condition: ResolvedCondition): boolean {
  if (!stats) return true;
  const bounds = columnBounds(stats, condition.column, condition.deltaType);
  const { nullCount } = bounds;
  const min = bounds.min as Comparable | undefined;
  const max = bounds.max as Comparable | undefined;
  if (condition.op === "isNull") return nullCount === undefined || nullCount > 0;
  if (allNull(bounds)) return false; // no non-null value can satisfy a comparison
  if (condition.op === "isNotNull") return true;
  if (!STATS_PRUNABLE_TYPES.has(condition.deltaType)) return true;
  const kind = condition.kind;
  const cmp = (a: Comparable, b: Comparable) => compareValues(a, b, kind);
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

/**
 * True when the file's stats prove that EVERY row satisfies `condition` (a delete may then remove the file
 * without reading it). Needs the row count and a tight null count; comparisons also need no NULLs (a NULL
 * satisfies no comparison) and trusted bounds (the same types and rules as pruning).
 */
export function statsProveAll(stats: FileStats | undefined, condition: ResolvedCondition): boolean {
  if (!stats) return false;
  const bounds = columnBounds(stats, condition.column, condition.deltaType);
  const { nullCount, numRecords } = bounds;
  if (nullCount === undefined || numRecords === undefined) return false;
  if (condition.op === "isNull") return nullCount >= numRecords;
  if (nullCount > 0) return false;
  if (condition.op === "isNotNull") return true;
  if (!STATS_PRUNABLE_TYPES.has(condition.deltaType)) return false;
  const min = bounds.min as Comparable | undefined;
  const max = bounds.max as Comparable | undefined;
  if (min === undefined || max === undefined) return false;
  const cmp = (a: Comparable, b: Comparable) => compareValues(a, b, condition.kind);
  const v = condition.operands[0]!;
  switch (condition.op) {
    case "eq":
      return cmp(min, v) === 0 && cmp(max, v) === 0;
    case "in":
      return cmp(min, max) === 0 && condition.operands.some((o) => cmp(min, o) === 0);
    case "ne":
      return cmp(max, v) < 0 || cmp(min, v) > 0;
    case "lt":
      return cmp(max, v) < 0;
    case "le":
      return cmp(max, v) <= 0;
    case "gt":
      return cmp(min, v) > 0;
    case "ge":
      return cmp(min, v) >= 0;
  }
}

/** True when the file's stats prove every row satisfies every non-partition condition. */
export function statsProveAllMatch(
  file: FileView,
  conditions: readonly ResolvedCondition[],
  partitionColumns: ReadonlySet<string>,
): boolean {
  for (const condition of conditions) {
    if (partitionColumns.has(condition.column)) continue;
    if (!statsProveAll(file.stats, condition)) return false;
  }
  return true;
}
