/**
 * Finds each source key's open row: the current partition's live files, less those whose Add stats rule
 * out every source key (null-safe: a column rules a file out only when no source key's value there — a
 * NULL included — can be in it), are read for their key and order columns only, one batch at a time under
 * the call's file permits and read budgets. The answer per key id is the open row's order value and the
 * file that holds it. A key with two open rows means the table is not a well-formed history table.
 */
import {
  type CallBudgets,
  type LiveFileReadContext,
  mapLimit,
  openLiveFile,
  readLiveFile,
} from "@deltalite/data-files";
import {
  allNull,
  columnBounds,
  type FileView,
  type Snapshot,
  STATS_PRUNABLE_TYPES,
} from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { encodeKeys } from "@deltalite/merge-engine";
import type { Field } from "apache-arrow";
import type { CollapsedSource } from "./collapse.js";
import type { HistoryShape } from "./shape.js";
import { childOf, type HistorySource } from "./source.js";
import { type Cell, cellReader, compareValues } from "./values.js";

export interface OpenRows {
  /** Live files of the current partition. */
  candidates: FileView[];
  /** Candidates the stats could not rule out (all were read). */
  probed: FileView[];
  /** Per key id: the open row's order value (undefined: no open row). */
  order: (Cell | undefined)[];
  /** Per key id: index into `probed` of the file holding the open row, or -1. */
  file: Int32Array;
}

export interface ProbeContext {
  snapshot: Snapshot;
  shape: HistoryShape;
  budgets: CallBudgets;
  read: LiveFileReadContext;
  probeConcurrency: number;
}

/** Reads the open rows of the source's keys (see module comment). */
export async function findOpenRows(
  ctx: ProbeContext,
  source: HistorySource,
  collapsed: CollapsedSource,
): Promise<OpenRows> {
  const { snapshot, shape } = ctx;
  const candidates = snapshot.files.filter(
    (f) => f.partitionValues[shape.partitionColumn] === shape.currentPartition,
  );
  const ranges = sourceKeyValues(source, shape);
  const probed = collapsed.index.size === 0 ? [] : candidates.filter((f) => statsMayHoldKey(f, ranges));
  const order: (Cell | undefined)[] = new Array(collapsed.index.size);
  const file = new Int32Array(collapsed.index.size).fill(-1);
  const fields = [...shape.keyColumns, shape.orderColumn].map(
    (name) => shape.dataSchema.fields.find((f) => f.name === name) as Field,
  );
  await mapLimit(
    probed.map((view, at) => ({ view, at })),
    ctx.probeConcurrency,
    async ({ view, at }) => {
      const permit = await ctx.budgets.acquireFile();
      const reader = await openLiveFile(snapshot.store, view, ctx.read).catch((error: unknown) => {
        permit.release();
        throw error;
      });
      try {
        for await (const batch of readLiveFile(reader, view, { fields }, ctx.read)) {
          const keys = encodeKeys(batch, shape.keyColumns);
          collapsed.index.checkComparable(keys);
          const orders = cellReader(childOf(batch, shape.orderColumn), shape.orderColumn);
          for (let row = 0; row < batch.numRows; row++) {
            const id = collapsed.index.find(keys, row);
            if (id < 0) continue;
            if (file[id] !== -1)
              throw twoOpenRows(snapshot.table, collapsed, id, probed, file[id] as number, view);
            const value = orders(row);
            if (value === null) {
              throw new DeltaLiteError(
                "generic",
                `${snapshot.table}: the open row of key ${collapsed.index.describe(id)} in ${view.path} has a NULL ${shape.orderColumn}; not a well-formed history table`,
              );
            }
            order[id] = value;
            file[id] = at;
          }
        }
      } finally {
        reader.close();
        permit.release();
      }
    },
  );
  return { candidates, probed, order, file };
}

function twoOpenRows(
  table: string,
  collapsed: CollapsedSource,
  id: number,
  probed: readonly FileView[],
  first: number,
  second: FileView,
): DeltaLiteError {
  return new DeltaLiteError(
    "generic",
    `${table}: key ${collapsed.index.describe(id)} has more than one open row in the current partition (${probed[first]?.path}, ${second.path}); not a well-formed history table`,
  );
}

/** Per stats-prunable key column: the source's sorted non-NULL values, and whether a key is NULL there. */
interface KeyColumnValues {
  column: string;
  deltaType: string;
  values: Cell[];
  hasNull: boolean;
}

function sourceKeyValues(source: HistorySource, shape: HistoryShape): KeyColumnValues[] {
  const out: KeyColumnValues[] = [];
  for (const column of shape.keyColumns) {
    const deltaType = shape.deltaTypes.get(column) as string;
    if (!STATS_PRUNABLE_TYPES.has(deltaType)) continue;
    const values: Cell[] = [];
    let hasNull = false;
    for (const batch of source.batches) {
      const cells = cellReader(childOf(batch, column), column);
      for (let row = 0; row < batch.numRows; row++) {
        const value = cells(row);
        if (value === null) hasNull = true;
        else values.push(value);
      }
    }
    values.sort(compareValues);
    out.push({ column, deltaType, values, hasNull });
  }
  return out;
}

/** False when the file's stats prove that no source key (compared null-safely) can be in it. */
function statsMayHoldKey(file: FileView, columns: readonly KeyColumnValues[]): boolean {
  const stats = file.stats;
  if (!stats) return true;
  for (const { column, deltaType, values, hasNull } of columns) {
    const bounds = columnBounds(stats, column, deltaType);
    if (hasNull && (bounds.nullCount === undefined || bounds.nullCount > 0)) continue;
    if (allNull(bounds)) return false;
    // The first source value ≥ min must also be ≤ max.
    let lo = 0;
    let hi = values.length;
    const { min, max } = bounds;
    if (min !== undefined) {
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compareValues(values[mid] as Cell, min) < 0) lo = mid + 1;
        else hi = mid;
      }
    }
    if (lo >= values.length) return false;
    if (max !== undefined && compareValues(values[lo] as Cell, max) > 0) return false;
  }
  return true;
}
