/**
 * Owns taking in a history upsert's source before anything is written: collected into memory under the
 * `maxSourceBytes` guard (it is the small side), checked — it must not carry the valid-to or partition
 * column (the operation sets them), it must carry the key, order and valid-from columns (and the tie-break
 * column when one is named), no order or valid-from value may be NULL — and aligned and cast to the table
 * (data-files' one alignment), keeping the tie-break column aside when the table does not have it. Also the
 * non-nullable table columns the written rows would put a NULL into (relaxed in the commit).
 */
import { alignToTable, columnsToRelax, peekBatches, withNullable } from "@deltalite/data-files";
import type { Snapshot } from "@deltalite/delta-log";
import {
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  DeltaLiteSchemaMismatchError,
  DeltaLiteSourceTooLargeError,
} from "@deltalite/errors";
import type { UpsertSource } from "@deltalite/merge-engine";
import { recordBatchBytes } from "@deltalite/parquet-stream";
import { type Data, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import type { HistoryShape } from "./shape.js";
import { isFixedWidth } from "./values.js";

/** Default of `maxSourceBytes`: 2 GiB, as the original deltalite (0 or less disables the guard). */
export const DEFAULT_MAX_SOURCE_BYTES = 2 * 1024 ** 3;

export interface HistorySource {
  /** Non-empty batches in the table schema (valid-to and partition column NULL), in source order. */
  batches: RecordBatch[];
  /** Per batch: the tie-break column (table-typed when the table has it), or undefined without one. */
  tieBreaks: (Data | undefined)[];
  rows: number;
  /** Non-nullable table columns the written rows put a NULL into. */
  relax: string[];
}

/** Collects, checks and aligns the source (see module comment); nothing is written. */
export async function ingestHistorySource(
  snapshot: Snapshot,
  shape: HistoryShape,
  data: UpsertSource,
  maxSourceBytes: number | undefined,
  signal: AbortSignal | undefined,
): Promise<HistorySource> {
  const label = snapshot.table;
  const collected = await collect(data, maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES, label, signal);
  const nonEmpty = collected.filter((b) => b.numRows > 0);
  for (const batch of collected) checkColumns(batch.schema, shape, label);
  const separate = shape.tieBreakColumn !== undefined && !shape.tieBreakInTable;
  const tieBreaks = nonEmpty.map((b) => (separate ? childOf(b, shape.tieBreakColumn as string) : undefined));
  const stripped = separate
    ? nonEmpty.map((b) => withoutColumn(b, shape.tieBreakColumn as string))
    : nonEmpty;
  const relax = columnsToRelax(stripped, snapshot.schema).filter((c) => c !== shape.partitionColumn);
  const target = withNullable(snapshot.schema, [...relax, shape.validToColumn, shape.partitionColumn]);
  const batches = stripped.map((b) => alignToTable(b, target, label, { noun: "source" }));
  let offset = 0;
  for (const [i, batch] of batches.entries()) {
    checkNoNulls(batch, shape.orderColumn, offset, label);
    checkNoNulls(batch, shape.validFromColumn, offset, label);
    if (shape.tieBreakInTable) tieBreaks[i] = childOf(batch, shape.tieBreakColumn as string);
    offset += batch.numRows;
  }
  return { batches, tieBreaks, rows: offset, relax };
}

async function collect(
  data: UpsertSource,
  maxBytes: number,
  table: string,
  signal: AbortSignal | undefined,
): Promise<RecordBatch[]> {
  let bytes = 0;
  const { batches } = await peekBatches(data);
  const out: RecordBatch[] = [];
  for await (const batch of batches) {
    if (signal?.aborted) throw new DeltaLiteError("aborted", `${table}: historyUpsert aborted`);
    bytes += recordBatchBytes(batch);
    if (maxBytes > 0 && bytes > maxBytes) {
      throw new DeltaLiteSourceTooLargeError(
        `${table}: the historyUpsert source holds more than maxSourceBytes (${maxBytes} bytes); split it by key (keyBuckets) or raise the limit`,
      );
    }
    out.push(batch);
  }
  return out;
}

/** The source's columns against the roles (see module comment). */
function checkColumns(schema: Schema, shape: HistoryShape, label: string): void {
  const has = (name: string) => schema.fields.some((f) => f.name === name);
  for (const set of [shape.validToColumn, shape.partitionColumn]) {
    if (has(set)) {
      throw new DeltaLiteError(
        "generic",
        `${label}: the source carries column ${set}, which historyUpsert sets itself; drop it from the source`,
      );
    }
  }
  const required = [...shape.keyColumns, shape.orderColumn, shape.validFromColumn];
  if (shape.tieBreakColumn !== undefined) required.push(shape.tieBreakColumn);
  const missing = required.filter((c) => !has(c));
  if (missing.length > 0) {
    throw new DeltaLiteSchemaMismatchError(
      `${label}: the source lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (key, order, valid-from and tie-break columns must be in it)`,
    );
  }
  const tieBreak = shape.tieBreakColumn;
  const tieType = tieBreak === undefined ? undefined : schema.fields.find((f) => f.name === tieBreak)?.type;
  if (tieType !== undefined && !shape.tieBreakInTable && !isFixedWidth(tieType)) {
    throw new DeltaLiteInvalidArgumentError(
      `${label}: tieBreakColumn ${tieBreak} has type ${String(tieType)} in the source; it must have a fixed-width type (an integer, float, decimal, boolean, date or timestamp)`,
    );
  }
}

function checkNoNulls(batch: RecordBatch, column: string, offset: number, label: string): void {
  const data = childOf(batch, column);
  if (data.nullCount === 0) return;
  let row = 0;
  while (data.getValid(row)) row++;
  throw new DeltaLiteError(
    "generic",
    `${label}: source row ${offset + row} has a NULL ${column}; every history row needs one`,
  );
}

export function childOf(batch: RecordBatch, name: string): Data {
  const index = batch.schema.fields.findIndex((f) => f.name === name);
  return batch.data.children[index] as Data;
}

function withoutColumn(batch: RecordBatch, name: string): RecordBatch {
  const keep = batch.schema.fields.flatMap((f, i) => (f.name === name ? [] : [i]));
  const fields = keep.map((i) => batch.schema.fields[i]!);
  const children = keep.map((i) => batch.data.children[i] as Data);
  const data = makeData({ type: new Struct(fields), length: batch.numRows, children, nullCount: 0 } as never);
  return new RecordBatch(new Schema(fields), data as never);
}
