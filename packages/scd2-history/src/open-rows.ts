/**
 * Finds each source key's open row: the current partition's live files, less those whose Add stats rule
 * out every source key (the merge engine's stats pruning in its null-safe mode: a column rules a file out
 * only when no source key's value there — a NULL included — can be in it), are read for their key and order columns only, one batch at a time under
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
import type { FileView, Snapshot } from "@deltalite/delta-log";
import { DeltaLiteError } from "@deltalite/errors";
import { encodeKeys, sourceKeyRanges, statsMayHoldKey } from "@deltalite/merge-engine";
import type { Field } from "apache-arrow";
import type { CollapsedSource } from "./collapse.js";
import type { HistoryShape } from "./shape.js";
import { childOf, type HistorySource } from "./source.js";
import { type Cell, cellReader } from "./values.js";

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
  const probed = collapsed.index.size === 0 ? [] : candidates.filter(statsMayHoldSourceKey(source, shape));
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
          collapsed.index.assertComparable(keys);
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
                `${snapshot.table}: the open row of key ${collapsed.index.describeEntry(id)} in ${view.path} has a NULL ${shape.orderColumn}; not a well-formed history table`,
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
    `${table}: key ${collapsed.index.describeEntry(id)} has more than one open row in the current partition (${probed[first]?.path}, ${second.path}); not a well-formed history table`,
  );
}

/** The merge engine's stats pruning in its null-safe mode, over the source's key columns. */
function statsMayHoldSourceKey(source: HistorySource, shape: HistoryShape): (file: FileView) => boolean {
  const keyTypes = Object.fromEntries(
    shape.keyColumns.map((column) => [column, shape.deltaTypes.get(column) as string]),
  );
  const ranges = sourceKeyRanges(source, keyTypes, { nullSafe: true });
  return (file) => statsMayHoldKey(file.stats, ranges);
}
