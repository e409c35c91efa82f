/**
 * `missingColumns: "keep"` inside the rewrite of one partition: builds the rows that replace target rows,
 * taking the columns a source batch lacked from the target row being replaced and every other column from
 * the source row — what delta-rs MERGE `whenMatchedUpdateAll` writes for a partial source.
 *
 * Design (exact and bounded by one decoded batch). The rewrite streams each hit file one decoded batch at a
 * time and finds, per target row, the source key it matches. With `"keep"` the replacing row is built right
 * there, from that decoded batch, and written in place of the target row (after the batch's survivors); so
 * no target value outlives its batch, and a key that several target rows hold gets one row per target row,
 * each with its own target's values (as MERGE updates every matching row). The source rows whose key
 * matched nothing are written after the last hit file, as inserts (NULL in the columns they lack). Memory
 * beyond what the "null" mode holds: the replacing rows of the current batch (at most its row count) and,
 * per partition batch, one flag per column. The source itself is in memory already (it is the small side).
 */
import { takeData } from "@deltalite/parquet-stream";
import type { Data, RecordBatch, Schema } from "apache-arrow";
import { batchOf, type SourcePartition } from "./source-batch.js";

/** The replacing rows of one partition (see the module comment). */
export class TargetFill {
  private constructor(
    private readonly partition: SourcePartition,
    private readonly schema: Schema,
    /** Per partition batch, per column of `schema`: true when the value comes from the target row. */
    private readonly fromTarget: readonly boolean[][],
  ) {}

  /** The fill of `partition`, or undefined when no source batch lacked a column (rows replace whole). */
  static of(partition: SourcePartition, schema: Schema): TargetFill | undefined {
    const keep = partition.keepFromTarget;
    if (keep === undefined || keep.every((names) => names.length === 0)) return undefined;
    const fromTarget = keep.map((names) => schema.fields.map((f) => names.includes(f.name)));
    return new TargetFill(partition, schema, fromTarget);
  }

  /**
   * The rows that replace `targetRows` of `target` (a decoded batch in `schema`'s columns), where
   * `entries[i]` is the key-set entry that target row `targetRows[i]` matched: one batch per partition
   * batch the matching source rows come from, in the order first met.
   */
  replacingRows(target: RecordBatch, targetRows: Int32Array, entries: Int32Array): RecordBatch[] {
    const groups = new Map<number, { source: number[]; target: number[] }>();
    for (let i = 0; i < targetRows.length; i++) {
      const { part, row } = this.partition.keys.entrySource(entries[i] as number);
      let group = groups.get(part);
      if (!group) {
        group = { source: [], target: [] };
        groups.set(part, group);
      }
      group.source.push(batchRowOf(this.partition.sourceRows[part] as Int32Array, row));
      group.target.push(targetRows[i] as number);
    }
    const targetColumns = this.schema.fields.map((f) => columnOf(target, f.name));
    const out: RecordBatch[] = [];
    for (const [part, group] of groups) {
      const source = this.partition.batches[part] as RecordBatch;
      const fromTarget = this.fromTarget[part] as boolean[];
      const sourceRows = Int32Array.from(group.source);
      const targetRowsOfGroup = Int32Array.from(group.target);
      const children = this.schema.fields.map((f, c) =>
        fromTarget[c]
          ? takeData(targetColumns[c] as Data, targetRowsOfGroup)
          : takeData(columnOf(source, f.name), sourceRows),
      );
      out.push(batchOf(this.schema, sourceRows.length, children));
    }
    return out;
  }
}

/** The index of `row` in `rows` (ascending; `row` is in it: the key set only names rows it was built on). */
function batchRowOf(rows: Int32Array, row: number): number {
  if (rows[row] === row) return row; // every row of the source batch is in this partition
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as number) < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function columnOf(batch: RecordBatch, name: string): Data {
  const index = batch.schema.fields.findIndex((f) => f.name === name);
  return batch.data.children[index] as Data;
}
