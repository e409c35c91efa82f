/**
 * Add-action `stats` from a written Parquet file's parsed footer, as delta-rs 1.6.6 derives them: per leaf
 * column the row groups' statistics are merged (min of mins, max of maxes, sum of null counts), rendered per
 * type, and nested along struct paths; `numRecords` is the footer's row count. No data is scanned, so what
 * the Parquet writer truncated (strings beyond 64 bytes) stays truncated, exactly as in delta-rs.
 */
import type { FileMetaData } from "@deltalite/parquet-stream";
import { type LeafColumn, leafColumns, type StatsColumnRules, selectStatsLeaves } from "./leaf-columns.js";
import {
  compareValues,
  type FooterValue,
  normalize,
  renderValue,
  type StatKind,
  type StatsScalar,
  statKind,
} from "./stat-values.js";

/** A nested map of stats values, following struct paths. */
export interface StatsMap {
  [name: string]: StatsScalar | StatsMap;
}

/** The Delta `stats` object of one Add action (PROTOCOL.md "Per-file Statistics"). */
export interface AddStats {
  numRecords: number;
  minValues: StatsMap;
  maxValues: StatsMap;
  nullCount: StatsMap;
}

export interface AddStatsOptions extends StatsColumnRules {
  /** The written file's footer (parse it with parquet-stream's FOOTER_PARSERS to keep timestamps exact). */
  metadata: FileMetaData;
}

type Comparable = bigint | number | boolean | string;

interface LeafAggregate {
  min: Comparable | undefined;
  max: Comparable | undefined;
  nullCount: number;
}

type Statistics = NonNullable<
  NonNullable<FileMetaData["row_groups"][number]["columns"][number]["meta_data"]>["statistics"]
>;

/** Every row group's statistics per leaf path (joined with NUL). */
function statisticsByPath(metadata: FileMetaData): Map<string, Statistics[]> {
  const byPath = new Map<string, Statistics[]>();
  for (const rowGroup of metadata.row_groups) {
    for (const chunk of rowGroup.columns) {
      const statistics = chunk.meta_data?.statistics;
      if (!chunk.meta_data || !statistics) continue;
      const key = chunk.meta_data.path_in_schema.join("\u0000");
      const list = byPath.get(key);
      if (list) list.push(statistics);
      else byPath.set(key, [statistics]);
    }
  }
  return byPath;
}

function aggregate(perRowGroup: readonly Statistics[], leaf: LeafColumn, kind: StatKind): LeafAggregate {
  const result: LeafAggregate = { min: undefined, max: undefined, nullCount: 0 };
  for (const statistics of perRowGroup) {
    result.nullCount += Number(statistics.null_count ?? 0n);
    if (kind === "nullCountOnly") continue;
    const rawMin = (statistics.min_value ?? statistics.min) as FooterValue | undefined;
    const rawMax = (statistics.max_value ?? statistics.max) as FooterValue | undefined;
    if (rawMin !== undefined && rawMin !== null) {
      const value = normalize(kind, leaf.element, rawMin);
      if (result.min === undefined || compareValues(value, result.min) < 0) result.min = value;
    }
    if (rawMax !== undefined && rawMax !== null) {
      const value = normalize(kind, leaf.element, rawMax);
      if (result.max === undefined || compareValues(value, result.max) > 0) result.max = value;
    }
  }
  return result;
}

/** The map at `path` (all but the last name) inside `root`, created on the way. */
function parentMap(root: StatsMap, path: readonly string[]): StatsMap {
  let map = root;
  for (const name of path.slice(0, -1)) {
    const existing = map[name];
    if (existing !== null && typeof existing === "object") {
      map = existing as StatsMap;
    } else {
      const created: StatsMap = {};
      map[name] = created;
      map = created;
    }
  }
  return map;
}

/** The Delta stats of one written file, equal to what delta-rs 1.6.6 writes for the same file. */
export function addStats(options: AddStatsOptions): AddStats {
  const { metadata } = options;
  const stats: AddStats = {
    numRecords: Number(metadata.num_rows),
    minValues: {},
    maxValues: {},
    nullCount: {},
  };
  const byPath = statisticsByPath(metadata);
  for (const leaf of selectStatsLeaves(leafColumns(metadata.schema), options)) {
    if (leaf.repeated) continue;
    const kind = statKind(leaf.element);
    if (kind === "skip") continue;
    const { min, max, nullCount } = aggregate(byPath.get(leaf.path.join("\u0000")) ?? [], leaf, kind);
    const name = leaf.path[leaf.path.length - 1] as string;
    const minParent = parentMap(stats.minValues, leaf.path);
    const maxParent = parentMap(stats.maxValues, leaf.path);
    parentMap(stats.nullCount, leaf.path)[name] = nullCount;
    if (min !== undefined) minParent[name] = renderValue(kind, min);
    if (max !== undefined) maxParent[name] = renderValue(kind, max);
  }
  return stats;
}

function jsonNumber(value: number): string {
  if (Object.is(value, -0)) return "-0.0";
  return JSON.stringify(value);
}

function jsonValue(value: StatsScalar | StatsMap): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return jsonNumber(value);
    case "boolean":
    case "string":
      return JSON.stringify(value);
    default:
      return `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}:${jsonValue(v)}`)
        .join(",")}}`;
  }
}

/** The `stats` string of an Add action: int64 printed exactly, -0.0 kept, fields in delta-rs's order. */
export function statsJson(stats: AddStats): string {
  return `{"numRecords":${stats.numRecords},"minValues":${jsonValue(stats.minValues)},"maxValues":${jsonValue(
    stats.maxValues,
  )},"nullCount":${jsonValue(stats.nullCount)}}`;
}
