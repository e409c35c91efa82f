/**
 * What a delete does with each live file, decided from the log alone (no data read): files whose
 * partition values or Add stats prove that no row matches are left untouched; files whose partition values
 * and stats prove that every row matches are removed without being read; every other file may hold a
 * matching row and is probed (its filter columns read), then rewritten without the matching rows if it does.
 */
import type { FileView, Snapshot } from "@deltalite/delta-log";
import { type ResolvedCondition, resolveFilter, type ScanFilterCondition } from "../scan/filter.js";
import { partitionsMatch, statsMatch, statsProveAllMatch } from "../scan/prune.js";

export interface DeletePlan {
  /** Every condition, validated against the table. */
  conditions: ResolvedCondition[];
  /** The conditions on data columns (those on partition columns are settled per file). */
  rowConditions: ResolvedCondition[];
  /** Files every row of which matches: removed without reading. */
  wholeFiles: FileView[];
  /** Files that may hold a matching row. */
  mayMatch: FileView[];
  /** Files proven to hold no matching row (left untouched). */
  untouched: number;
}

/** Classifies the snapshot's live files for `filter` (validated first: `invalid_argument` when bad). */
export function planDelete(snapshot: Snapshot, filter: readonly ScanFilterCondition[]): DeletePlan {
  const conditions = resolveFilter(filter, snapshot.deltaSchema, snapshot.table);
  const partitionColumns = new Set(snapshot.partitionColumns);
  const rowConditions = conditions.filter((c) => !partitionColumns.has(c.column));
  const plan: DeletePlan = { conditions, rowConditions, wholeFiles: [], mayMatch: [], untouched: 0 };
  const files = [...snapshot.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of files) {
    if (!partitionsMatch(file, conditions, partitionColumns)) plan.untouched++;
    else if (rowConditions.length === 0) plan.wholeFiles.push(file);
    else if (!statsMatch(file, rowConditions, partitionColumns)) plan.untouched++;
    else if (statsProveAllMatch(file, rowConditions, partitionColumns)) plan.wholeFiles.push(file);
    else plan.mayMatch.push(file);
  }
  return plan;
}
