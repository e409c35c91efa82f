/**
 * Stats pruning for the upsert: a candidate file is ruled out when, for some key
 * column whose stats may be trusted (delta-log's `columnBounds`: integer, date and string types; no long
 * beyond 2^53; no possibly truncated string max), no non-NULL-key source row of the partition has a value
 * inside the file's [min, max], or every key value in the file is NULL. Strings compare in code-point order
 * (= UTF-8 byte order).
 *
 * The null-safe mode (`{ nullSafe: true }`, the SCD2 history upsert's: a NULL key part matches a NULL key
 * part) takes each column's non-NULL values from every row, whatever its other key parts hold, and a file
 * is ruled out by a column only when no source key — a NULL in that column included — can be in it: a
 * column where some source key is NULL rules out nothing unless the file's stats say it has no NULL there.
 */

import { compareStrings } from "@deltalite/data-files";
import {
  allNull,
  columnBounds,
  type FileStats,
  STATS_PRUNABLE_TYPES,
  type StatBound,
} from "@deltalite/delta-log";
import { utf8Reader } from "@deltalite/parquet-stream";
import { type Data, type RecordBatch, Type } from "apache-arrow";

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

/** The source values of one prunable key column. */
export interface ColumnValues {
  column: string;
  deltaType: string;
  /** In any order until `sorted` (read them sorted with `sortedValues`). */
  values: Value[];
  sorted: boolean;
  /** The least and the greatest of `values` (undefined when there is none). */
  least: Value | undefined;
  greatest: Value | undefined;
  /** Null-safe mode only: some source key is NULL in this column. */
  hasNull: boolean;
}

export interface KeyRangeOptions {
  /** NULL key parts match NULL key parts (see module comment; default false: MERGE equality). */
  nullSafe?: boolean | undefined;
  /**
   * Reads a string key column (default parquet-stream's `utf8Reader`): the upsert passes one memo
   * (`utf8ReaderMemo`) for all its partitions, whose rows come from the same source columns.
   */
  utf8Readers?: ((data: Data) => (row: number) => string) | undefined;
}

/** A reader of one key column's values, valid rows only (undefined for a value stats cannot bound). */
function valueReader(
  data: Data,
  deltaType: string,
  utf8Readers: (data: Data) => (row: number) => string,
): (row: number) => Value | undefined {
  // Arrow slices keep `offset` for the validity bitmap but already start their value buffers at it.
  switch (data.type.typeId) {
    case Type.Int:
      if (deltaType === "long") return (row) => (data.values as BigInt64Array)[row] as bigint;
      return (row) => (data.values as Int32Array | Int16Array | Int8Array)[row] as number;
    case Type.Date:
      return deltaType === "date" && (data.type as { unit?: number }).unit === 0
        ? (row) => (data.values as Int32Array)[row] as number
        : () => undefined;
    case Type.Utf8:
      return utf8Readers(data);
    default:
      return () => undefined;
  }
}

/**
 * The rows whose key values count: a partition's rows of its source batches (`sources` at `sourceRows`), so
 * its rows need not be taken first, or every row of `batches`.
 */
export type KeyRangeSource =
  | { readonly sources: readonly RecordBatch[]; readonly sourceRows: readonly Int32Array[] }
  | { readonly batches: readonly RecordBatch[] };

/**
 * Prepares the source values per prunable key column of `partition`'s rows (MERGE equality: rows with any
 * NULL key part excluded; null-safe: see module comment).
 */
export function sourceKeyRanges(
  partition: KeyRangeSource,
  keyTypes: Readonly<Record<string, string>>,
  options: KeyRangeOptions = {},
): ColumnValues[] {
  const columns = Object.entries(keyTypes).filter(([, t]) => STATS_PRUNABLE_TYPES.has(t));
  // Null-safe: a row's NULL in another key part does not take its value of this column out.
  const skipRowsWithNullIn = options.nullSafe === true ? [] : Object.keys(keyTypes);
  const out: ColumnValues[] = [];
  for (const [column, deltaType] of columns) {
    const found: ColumnValues = {
      column,
      deltaType,
      values: [],
      sorted: false,
      least: undefined,
      greatest: undefined,
      hasNull: false,
    };
    const read = {
      skipRowsWithNullIn,
      nullSafe: options.nullSafe === true,
      utf8Readers: options.utf8Readers ?? utf8Reader,
    };
    if ("sources" in partition) {
      for (const [b, batch] of partition.sources.entries())
        collect(batch, partition.sourceRows[b], found, read);
    } else {
      for (const batch of partition.batches) collect(batch, undefined, found, read);
    }
    setEnds(found);
    out.push(found);
  }
  return out;
}

/**
 * Sets the least and greatest of `column`'s values: one pass, where sorting them (done only when a file's
 * bounds lie strictly inside them, `statsMayHoldKey`) was ~57 ms of the main thread in a cold recent 4M
 * upsert of random string keys (merge-engine BENCHMARKS.md, session 34).
 */
function setEnds(column: ColumnValues): void {
  const values = column.values;
  if (values.length === 0) return;
  let least = values[0] as Value;
  let greatest = least;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] as Value;
    if (compare(v, least) < 0) least = v;
    else if (compare(v, greatest) > 0) greatest = v;
  }
  column.least = least;
  column.greatest = greatest;
}

/** `column`'s values in `compare`'s order (sorted in place when first asked). */
export function sortedValues(column: ColumnValues): Value[] {
  if (!column.sorted) {
    sortValues(column.values);
    column.sorted = true;
  }
  return column.values;
}

/** A code unit at or above U+D800: where UTF-16 order and code-point order may part. */
const HIGH_CODE_UNIT = /[\uD800-\uFFFF]/;

/**
 * Sorts one column's source values in `compare`'s order. Strings without a code unit at or above U+D800 sort
 * the same by UTF-16 code units, the built-in order, as by code points, and V8 sorts them without calling
 * back into JavaScript: see the comment at the call's measurement in merge-engine BENCHMARKS.md, session 31.
 */
function sortValues(values: Value[]): void {
  const strings = values.length > 0 && typeof values[0] === "string";
  if (strings && !(values as string[]).some((v) => HIGH_CODE_UNIT.test(v))) values.sort();
  else values.sort(compare);
}

const childNamed = (batch: RecordBatch, name: string) =>
  batch.data.children[batch.schema.fields.findIndex((f) => f.name === name)] as Data;

interface CollectOptions {
  /** Key columns a NULL in which takes the row out (none in null-safe mode). */
  skipRowsWithNullIn: string[];
  nullSafe: boolean;
  utf8Readers: (data: Data) => (row: number) => string;
}

/**
 * Adds the key values of `batch`'s `rows` (every row when absent) to `into`. The rows that count are chosen
 * first and their values read in a loop of their own: one loop doing both took V8 ~45 ms of compiling (a
 * deopt on a wrong map, then a second compile) inside a cold recent-1M upsert (merge-engine BENCHMARKS.md,
 * session 33).
 */
function collect(
  batch: RecordBatch,
  rows: Int32Array | undefined,
  into: ColumnValues,
  options: CollectOptions,
): void {
  const data = childNamed(batch, into.column);
  const counted = countedRows(batch, rows, data, into, options);
  const valueAt = valueReader(data, into.deltaType, options.utf8Readers);
  const values = into.values;
  const count = counted === undefined ? batch.numRows : counted.length;
  for (let i = 0; i < count; i++) {
    const v = valueAt(counted === undefined ? i : (counted[i] as number));
    if (v !== undefined) values.push(v);
  }
}

/**
 * The rows of `rows` (every row when absent: then undefined when all count) whose key values count: no NULL
 * in a key column that takes a row out, and a non-NULL value in this column (a NULL there marks `hasNull`
 * in null-safe mode).
 */
function countedRows(
  batch: RecordBatch,
  rows: Int32Array | undefined,
  data: Data,
  into: ColumnValues,
  { skipRowsWithNullIn, nullSafe }: CollectOptions,
): Int32Array | undefined {
  // Only key columns with a NULL somewhere can take a row out.
  const keyData = skipRowsWithNullIn.map((k) => childNamed(batch, k)).filter((d) => d.nullCount !== 0);
  if (keyData.length === 0 && data.nullCount === 0) return rows;
  const count = rows === undefined ? batch.numRows : rows.length;
  const out = new Int32Array(count);
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const row = rows === undefined ? i : (rows[i] as number);
    if (keyData.some((d) => !d.getValid(row))) continue;
    if (data.nullCount !== 0 && !data.getValid(row)) {
      if (nullSafe) into.hasNull = true;
      continue;
    }
    out[kept++] = row;
  }
  return out.subarray(0, kept);
}

/** False when the file's stats prove that no source key of the partition can be in it. */
export function statsMayHoldKey(stats: FileStats | undefined, ranges: readonly ColumnValues[]): boolean {
  if (!stats) return true;
  for (const range of ranges) {
    const bounds = columnBounds(stats, range.column, range.deltaType);
    // Null-safe: a source NULL here may match the file's NULLs unless the stats say it has none.
    if (range.hasNull && (bounds.nullCount === undefined || bounds.nullCount > 0)) continue;
    if (allNull(bounds)) return false; // every key in the file is NULL: nothing can match
    const { min, max } = bounds;
    if (min === undefined && max === undefined) continue;
    if (!someValueWithin(range, min, max)) return false;
  }
  return true;
}

/** Whether some value of `range` lies in [min, max] (a side left undefined is unbounded). */
function someValueWithin(range: ColumnValues, min: Value | undefined, max: Value | undefined): boolean {
  const { least, greatest } = range;
  if (least === undefined || greatest === undefined) return false;
  if (max !== undefined && compare(least, max) > 0) return false;
  if (min !== undefined && compare(greatest, min) < 0) return false;
  // Now least ≤ max and greatest ≥ min: one of them inside [min, max] answers.
  if (min === undefined || compare(least, min) >= 0) return true;
  if (max === undefined || compare(greatest, max) <= 0) return true;
  // [min, max] lies strictly inside [least, greatest]: the first value ≥ min, if it is ≤ max.
  const values = sortedValues(range);
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compare(values[mid] as Value, min) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < values.length && compare(values[lo] as Value, max) <= 0;
}
