/**
 * Rules 2–4 of the history upsert, per key, once its open row is known: only candidate versions newer than
 * the open row are kept (equal ones count as re-read, older ones as backwards; a key without an open row
 * keeps them all); the kept versions form a chain in which each closes at the next one's valid-from and the
 * newest stays open; and a key that keeps a version closes its open row at the first kept version's
 * valid-from. The plan names the files holding an open row that closes — the only files rewritten.
 */
import type { FileView } from "@deltalite/delta-log";
import type { CollapsedSource } from "./collapse.js";
import type { OpenRows } from "./open-rows.js";
import { type Cell, compareValues } from "./values.js";

export interface HistoryPlan {
  rowsReread: number;
  rowsBackwards: number;
  versionsOpened: number;
  versionsClosed: number;
  chainRowsClosed: number;
  /** Global source rows written open (one per key that keeps a version). */
  opened: number[];
  /** Global source rows written closed, with their valid-to. */
  chain: { row: number; validTo: Cell }[];
  /** Per key id: the valid-to its open row gets (undefined: the open row stays as it is). */
  closeAt: (Cell | undefined)[];
  /** Current-partition files holding an open row that closes. */
  hitFiles: FileView[];
}

export function planHistory(collapsed: CollapsedSource, open: OpenRows): HistoryPlan {
  const plan: HistoryPlan = {
    rowsReread: 0,
    rowsBackwards: 0,
    versionsOpened: 0,
    versionsClosed: 0,
    chainRowsClosed: 0,
    opened: [],
    chain: [],
    closeAt: new Array(collapsed.index.size),
    hitFiles: [],
  };
  const hit = new Set<number>();
  const { orders, validFroms } = collapsed;
  collapsed.versions.forEach((versions, id) => {
    const openOrder = open.order[id];
    const kept =
      openOrder === undefined
        ? versions
        : versions.filter((row) => {
            const c = compareValues(orders[row] as Cell, openOrder);
            if (c === 0) plan.rowsReread++;
            else if (c < 0) plan.rowsBackwards++;
            return c > 0;
          });
    if (kept.length === 0) return;
    plan.versionsOpened++;
    plan.opened.push(kept[kept.length - 1] as number);
    for (let i = 0; i + 1 < kept.length; i++) {
      plan.chain.push({ row: kept[i] as number, validTo: validFroms[kept[i + 1] as number] as Cell });
    }
    plan.chainRowsClosed += kept.length - 1;
    if (openOrder !== undefined) {
      plan.versionsClosed++;
      plan.closeAt[id] = validFroms[kept[0] as number] as Cell;
      hit.add(open.file[id] as number);
    }
  });
  plan.hitFiles = [...hit].sort((a, b) => a - b).map((i) => open.probed[i] as FileView);
  return plan;
}
