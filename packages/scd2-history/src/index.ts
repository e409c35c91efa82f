/**
 * @deltalite/scd2-history: `historyUpsert`, the SCD type 2 history upsert — one row per version of a key,
 * open versions in the current partition, closed ones in the `%Y-%m` partition of their valid-to — in
 * bounded memory (only the current partition's key and order columns are read, and only the files holding
 * a closing open row are rewritten) and one atomic commit, on the merge engine's key encoding and
 * data-files' reader, writer and budgets.
 */
export { historyUpsert } from "./history-upsert.js";
export type {
  HistoryUpsertKnobs,
  HistoryUpsertOptions,
  HistoryUpsertStats,
  HistoryUpsertTimings,
} from "./types.js";
