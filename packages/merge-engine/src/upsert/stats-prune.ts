/**
 * Stats pruning for the upsert: a candidate file is ruled out when, for some key
 * column whose stats may be trusted (delta-log's `columnBounds`: integer, date and string types; no long
 * beyond 2^53; no possibly truncated string max), no non-NULL-key source row of the partition has a value
 * inside the file's [min, max], or every key value in the file is NULL. Strings compare in code-point order
 * (= UTF-8 byte order).
 */

import { compareStrings } from "@deltalite/data-files";
import {
  allNull,
  columnBounds,
  type FileStats,
  STATS_PRUNABLE_TYPES,
  type StatBound,
} from "@deltalite/delta-log";
import { type Data, type RecordBatch, Type } from "apache-arrow";
import type { SourcePartition } from "./source-batch.js";

type Value = StatBound;

/** Code-point (= UTF-8 byte) order, the one string order of stats, pruning and the scan filter. */
export const compareCodePoints = compareStrings;

const compare = (a: Value, b: Value): number =>
  typeof a === "string"
    ? compareCodePoints(a, b as string)
    : (a as number) < (b as number)
      ? -1
      : (a as number) > (b as number)
        ? 1
        : 0;

/** Sorted distinct source values of one prunable key column. */
interface ColumnValues {
  column: string;
  deltaType: string;
  values: Value[];
}

function valueAt(data: Data, row: number, deltaType: string): Value | undefined {
  if (!data.getValid(row)) return undefined;
  // Arrow slices keep `offset` for the validity bitmap but already start their value buffers at it.
  const at = row;
  switch (data.type.typeId) {
    case Type.Int:
      if (deltaType === "long") return (data.values as BigInt64Array)[at] as bigint;
      return (data.values as Int32Array | Int16Array | Int8Array)[at] as number;
    case Type.Date:
      return deltaType === "date" && (data.type as { unit?: number }).unit === 0
        ? ((data.values as Int32Array)[at] as number)
        : undefined;
    case Type.Utf8: {
      const offsets = data.valueOffsets as Int32Array;
      return new TextDecoder().decode(
        (data.values as Uint8Array).subarray(offsets[at] as number, offsets[at + 1] as number),
      );
    }
    default:
      return undefined;
  }
}

/** Prepares the partition's source values per prunable key column (rows with any NULL key part excluded). */
export function sourceKeyRanges(
  partition: SourcePartition,
  keyTypes: Readonly<Record<string, string>>,
): ColumnValues[] {
  const columns = Object.entries(keyTypes).filter(([, t]) => STATS_PRUNABLE_TYPES.has(t));
  const out: ColumnValues[] = [];
  for (const [column, deltaType] of columns) {
    const values: Value[] = [];
    for (const batch of partition.batches) collect(batch, column, deltaType, Object.keys(keyTypes), values);
    values.sort(compare);
    out.push({ column, deltaType, values });
  }
  return out;
}

function collect(batch: RecordBatch, column: string, deltaType: string, keys: string[], into: Value[]): void {
  const index = batch.schema.fields.findIndex((f) => f.name === column);
  const data = batch.data.children[index] as Data;
  const keyData = keys.map(
    (k) => batch.data.children[batch.schema.fields.findIndex((f) => f.name === k)] as Data,
  );
  for (let row = 0; row < batch.numRows; row++) {
    if (keyData.some((d) => !d.getValid(row))) continue;
    const v = valueAt(data, row, deltaType);
    if (v !== undefined) into.push(v);
  }
}

/** False when the file's stats prove that no source key of the partition can be in it. */
export function statsMayHoldKey(stats: FileStats | undefined, ranges: readonly ColumnValues[]): boolean {
  if (!stats) return true;
  for (const { column, deltaType, values } of ranges) {
    const bounds = columnBounds(stats, column, deltaType);
    if (allNull(bounds)) return false; // every key in the file is NULL: nothing can match
    const { min, max } = bounds;
    if (min === undefined && max === undefined) continue;
    // First source value ≥ min, then check it is ≤ max.
    let lo = 0;
    let hi = values.length;
    if (min !== undefined) {
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compare(values[mid] as Value, min) < 0) lo = mid + 1;
        else hi = mid;
      }
    }
    if (lo >= values.length) return false;
    if (max !== undefined && compare(values[lo] as Value, max) > 0) return false;
  }
  return true;
}
