/**
 * Rule 1 of the history upsert, applied to the aligned source before anything is compared with the table:
 * the rows of one key (key ids from the merge engine's `SourceKeySet` in its null-safe mode: a NULL key
 * part matches a NULL key part; ids in first-occurrence order) that share an order value collapse to the
 * one with the highest tie-break value (NULL lowest), the later row in source order winning a tie. What is
 * left per key are its candidate versions, ascending by order value. Rows are numbered across the
 * source's batches in source order ("global rows").
 */
import { encodeKeys, SourceKeySet } from "@deltalite/merge-engine";
import { type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import type { HistoryShape } from "./shape.js";
import { childOf, type HistorySource } from "./source.js";
import { type Cell, type CellReader, cellReader, compareNullsLowest, compareValues } from "./values.js";

export interface CollapsedSource {
  /** The source's distinct keys (null-safe); an entry index is the key's id. */
  index: SourceKeySet;
  /** Per global row: order and valid-from values. */
  orders: Cell[];
  validFroms: Cell[];
  /** Per key id: its candidate versions (global rows), ascending by order value. */
  versions: number[][];
  rowsDeduped: number;
  /** First global row of each batch (and the total at the end). */
  batchStarts: number[];
}

/** Builds the key index and collapses each key's rows (see module comment). */
export function collapseSource(source: HistorySource, shape: HistoryShape): CollapsedSource {
  const encoded = source.batches.map((batch) => encodeKeys(batch, shape.keyColumns));
  // An empty source still gets a set (of the table's key types), so table files compare against it.
  const index = SourceKeySet.build(
    encoded.length > 0
      ? encoded.map((keys) => ({ keys }))
      : { keys: encodeKeys(emptyKeyBatch(shape), shape.keyColumns) },
    { nullSafe: true },
  );
  const orders: Cell[] = [];
  const validFroms: Cell[] = [];
  const tieBreaks: (Cell | null)[] = [];
  const rowsOfKey: number[][] = [];
  const batchStarts: number[] = [0];
  for (const [b, batch] of source.batches.entries()) {
    const keys = encoded[b] as (typeof encoded)[number];
    const order = cellReader(childOf(batch, shape.orderColumn), shape.orderColumn);
    const validFrom = cellReader(childOf(batch, shape.validFromColumn), shape.validFromColumn);
    const tieData = source.tieBreaks[b];
    const tieBreak: CellReader = tieData ? cellReader(tieData, shape.tieBreakColumn as string) : () => null;
    const start = batchStarts[b] as number;
    for (let row = 0; row < batch.numRows; row++) {
      orders.push(order(row) as Cell);
      validFroms.push(validFrom(row) as Cell);
      tieBreaks.push(tieBreak(row));
      const id = index.find(keys, row);
      const rows = rowsOfKey[id];
      if (rows) rows.push(start + row);
      else rowsOfKey[id] = [start + row];
    }
    batchStarts.push(start + batch.numRows);
  }
  let rowsDeduped = 0;
  const versions = rowsOfKey.map((rows) => {
    // Ascending by (order, tie-break with NULL lowest, source position): the last of each order wins.
    const sorted = [...rows].sort(
      (a, b) =>
        compareValues(orders[a] as Cell, orders[b] as Cell) ||
        compareNullsLowest(tieBreaks[a] as Cell | null, tieBreaks[b] as Cell | null) ||
        a - b,
    );
    const winners: number[] = [];
    for (let i = 0; i < sorted.length; i++) {
      const row = sorted[i] as number;
      const next = sorted[i + 1];
      if (next !== undefined && compareValues(orders[row] as Cell, orders[next] as Cell) === 0) {
        rowsDeduped++;
        continue;
      }
      winners.push(row);
    }
    return winners;
  });
  return { index, orders, validFroms, versions, rowsDeduped, batchStarts };
}

/** A batch of no rows with the table's key columns. */
function emptyKeyBatch(shape: HistoryShape): RecordBatch {
  const fields = shape.keyColumns.map(
    (name) => shape.dataSchema.fields.find((f) => f.name === name) as Field,
  );
  const children = fields.map((f) => makeData({ type: f.type, length: 0 }));
  return new RecordBatch(new Schema(fields), makeData({ type: new Struct(fields), length: 0, children }));
}
