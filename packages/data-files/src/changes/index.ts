/** The change data feed, read: `readChanges` over a range of versions or commit timestamps (change-feed.ts). */

export { CHANGE_COLUMNS, COMMIT_TIMESTAMP_COLUMN, COMMIT_VERSION_COLUMN } from "./change-columns.js";
export {
  ChangeFeed,
  type ChangesMetrics,
  type ChangesOptions,
  type ChangesPlan,
  readChanges,
} from "./change-feed.js";
export type { ChangeInstant, ChangeRange } from "./change-range.js";
