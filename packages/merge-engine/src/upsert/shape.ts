/**
 * The upsert's view of the table: its single partition column, the key columns as stored in data files,
 * the data-file and key schemas and the key types stats pruning needs — checked against the options with
 * no I/O (an unknown key column or a `partitionKey` that is not the table's partition column is kind
 * `invalid_argument`, with a "did you mean" hint; so is a `deleteColumn` that is a table column) — and what follows from it (the MERGE predicate text, the
 * target file size).
 */
import type { Snapshot } from "@deltalite/delta-log";
import {
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  DeltaLiteUnsupportedTableError,
  didYouMean,
  isDeltaLiteError,
} from "@deltalite/errors";
import { Schema } from "apache-arrow";
import type { UpsertOptions } from "./types.js";

export interface TableShape {
  partitionColumn: string | undefined;
  partitionType: string | undefined;
  fileKeys: string[];
  dataSchema: Schema;
  keySchema: Schema;
  keyTypes: Record<string, string>;
}

/** Checks the table and the options against each other (no I/O). */
export function tableShape(snapshot: Snapshot, options: UpsertOptions): TableShape {
  const table = snapshot.table;
  const partitionColumn = singlePartitionColumn(snapshot, options);
  // validateUpsertOptions (options.ts) has checked the list itself: non-empty, distinct names.
  const keys = [...options.primaryKeys];
  const fields = snapshot.deltaSchema.fields;
  const names = fields.map((f) => f.name);
  if (options.deleteColumn !== undefined && names.includes(options.deleteColumn)) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: deleteColumn ${options.deleteColumn} is a table column; the delete flag must be a source-only column (it is never written)`,
    );
  }
  for (const key of keys) {
    if (!names.includes(key)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: primary-key column ${key} is not a table column${didYouMean(key, names)}; the table's columns are ${names.join(", ")}`,
      );
    }
  }
  // Inside one partition the partition value is constant: files never store it, so it is not matched on.
  const fileKeys = keys.filter((k) => k !== partitionColumn);
  if (fileKeys.length === 0) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: the primary key must include a column besides the partition column ${partitionColumn}`,
    );
  }
  const dataSchema = new Schema(snapshot.schema.fields.filter((f) => f.name !== partitionColumn));
  const keySchema = new Schema(fileKeys.map((k) => dataSchema.fields.find((f) => f.name === k)!));
  const typeOf = (name: string) => {
    const type = fields.find((f) => f.name === name)?.type;
    return typeof type === "string" ? type : undefined;
  };
  const keyTypes: Record<string, string> = {};
  for (const k of fileKeys) keyTypes[k] = typeOf(k) ?? "struct";
  return {
    partitionColumn,
    partitionType: partitionColumn === undefined ? undefined : typeOf(partitionColumn),
    fileKeys,
    dataSchema,
    keySchema,
    keyTypes,
  };
}

/** The table's partition column (at most one), which `partitionKey` must name when given. */
function singlePartitionColumn(snapshot: Snapshot, options: UpsertOptions): string | undefined {
  const table = snapshot.table;
  const partitions = snapshot.partitionColumns;
  if (partitions.length > 1) {
    throw new DeltaLiteUnsupportedTableError(
      `${table} is partitioned by ${partitions.length} columns (${partitions.join(", ")}); upsert supports at most one partition column`,
    );
  }
  const partitionColumn = partitions[0];
  const given = options.partitionKey;
  if (given !== undefined && given !== partitionColumn) {
    throw new DeltaLiteInvalidArgumentError(
      partitionColumn === undefined
        ? `${table} is not partitioned (it has no partition column), but partitionKey ${given} was given; leave partitionKey out`
        : `${table} is partitioned by ${partitionColumn}, not by partitionKey ${given}${didYouMean(given, partitions)}; pass partitionKey ${partitionColumn} or leave it out`,
    );
  }
  return partitionColumn;
}

/** `targetFileSize`, else the table's `delta.targetFileSize`, else undefined (the writer's default). */
export function targetFileSizeOf(snapshot: Snapshot, explicit: number | undefined): number | undefined {
  if (explicit !== undefined) return explicit;
  const n = Number(snapshot.configuration["delta.targetFileSize"]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The MERGE predicate as delta-rs records it (partition column first, then the file keys). */
export function predicateOf(shape: TableShape): string {
  const q = (name: string) => `\`${name.replace(/`/g, "``")}\``;
  const columns =
    shape.partitionColumn === undefined ? shape.fileKeys : [shape.partitionColumn, ...shape.fileKeys];
  return columns.map((c) => `t.${q(c)} = s.${q(c)}`).join(" AND ");
}

/** Throws the signal's reason (a deltalite error as it is, anything else as `aborted`) once it fired. */
export function checkAborted(signal: AbortSignal | undefined, table: string): void {
  if (signal?.aborted) {
    if (isDeltaLiteError(signal.reason)) throw signal.reason;
    throw new DeltaLiteError("aborted", `${table}: upsert aborted`, { cause: signal.reason });
  }
}
