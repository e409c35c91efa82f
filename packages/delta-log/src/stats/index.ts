/**
 * Add-action statistics from a written file's Parquet footer, equal to delta-rs 1.6.6's for the same data, and
 * the rules for which of those bounds a reader may trust when skipping files.
 */
export { type AddStats, type AddStatsOptions, addStats, type StatsMap, statsJson } from "./add-stats.js";
export {
  DEFAULT_NUM_INDEXED_COLS,
  type LeafColumn,
  leafColumns,
  parseStatsColumns,
  type StatsColumnRules,
  selectStatsLeaves,
} from "./leaf-columns.js";
export {
  allNull,
  type ColumnBounds,
  columnBounds,
  mayBeTruncatedMax,
  STATS_PRUNABLE_TYPES,
  type StatBound,
  statBound,
} from "./prune-bounds.js";
export { formatTimestamp, type StatKind, type StatsScalar, statKind } from "./stat-values.js";
