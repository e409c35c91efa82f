/**
 * Owns the history upsert's view of the table, checked against the options with no I/O: the table must be
 * partitioned by exactly `partitionColumn`, a string column (else `DeltaLiteUnsupportedTableError`); every
 * named column must be a table column (kind `invalid_argument`, with a "did you mean" hint) and the roles
 * must not overlap; valid-from and valid-to share one time type; the order column has an ordered type.
 * The tie-break column may be absent from the table (it is then only read from the source, see source.ts).
 */
import type { Snapshot } from "@deltalite/delta-log";
import { DeltaLiteInvalidArgumentError, DeltaLiteUnsupportedTableError, didYouMean } from "@deltalite/errors";
import { Schema } from "apache-arrow";
import type { HistoryUpsertOptions } from "./types.js";

/** Delta types whose values have an order `historyUpsert` can compare. */
const ORDERED_TYPES = new Set([
  "byte",
  "short",
  "integer",
  "long",
  "float",
  "double",
  "date",
  "timestamp",
  "timestamp_ntz",
  "string",
]);

/** Delta types of a fixed width (a tie-break column stored in the table must have one). */
const FIXED_WIDTH_TYPES = new Set([...ORDERED_TYPES].filter((t) => t !== "string").concat("boolean"));

const TIME_TYPES = new Set(["timestamp", "timestamp_ntz", "date"]);

export interface HistoryShape {
  keyColumns: readonly string[];
  orderColumn: string;
  validFromColumn: string;
  validToColumn: string;
  partitionColumn: string;
  currentPartition: string;
  tieBreakColumn: string | undefined;
  /** True when the tie-break column is a table column (and so is written). */
  tieBreakInTable: boolean;
  /** The table's Arrow schema and the data-file schema (partition column dropped). */
  tableSchema: Schema;
  dataSchema: Schema;
  /** Delta type of each top-level table column ("struct" etc. for non-primitives). */
  deltaTypes: ReadonlyMap<string, string>;
}

/** Checks the table and the options against each other (see module comment). */
export function historyShape(snapshot: Snapshot, options: HistoryUpsertOptions): HistoryShape {
  const table = snapshot.table;
  checkPartitioning(snapshot, options.partitionColumn);
  const fields = snapshot.deltaSchema.fields;
  const deltaTypes = new Map(fields.map((f) => [f.name, typeof f.type === "string" ? f.type : "struct"]));
  const names = [...deltaTypes.keys()];
  const requireColumn = (option: string, name: string) => {
    if (!deltaTypes.has(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: ${option} ${name} is not a table column${didYouMean(name, names)}; the table's columns are ${names.join(", ")}`,
      );
    }
  };
  for (const key of options.keyColumns) requireColumn("key column", key);
  requireColumn("orderColumn", options.orderColumn);
  requireColumn("validFromColumn", options.validFromColumn);
  requireColumn("validToColumn", options.validToColumn);
  checkRoles(table, options);
  const typeOf = (name: string) => deltaTypes.get(name) as string;
  if (!ORDERED_TYPES.has(typeOf(options.orderColumn))) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: orderColumn ${options.orderColumn} has type ${typeOf(options.orderColumn)}, which historyUpsert cannot order; use a number, date, timestamp or string column`,
    );
  }
  const from = typeOf(options.validFromColumn);
  const to = typeOf(options.validToColumn);
  if (!TIME_TYPES.has(from) || from !== to) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: validFromColumn ${options.validFromColumn} (${from}) and validToColumn ${options.validToColumn} (${to}) must have one type: timestamp, timestamp_ntz or date`,
    );
  }
  const tieBreak = options.tieBreakColumn;
  const tieBreakInTable = tieBreak !== undefined && deltaTypes.has(tieBreak);
  if (tieBreakInTable && !FIXED_WIDTH_TYPES.has(typeOf(tieBreak))) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: tieBreakColumn ${tieBreak} has type ${typeOf(tieBreak)}; it must have a fixed-width type (an integer, float, decimal, boolean, date or timestamp)`,
    );
  }
  const partition = options.partitionColumn;
  return {
    keyColumns: [...options.keyColumns],
    orderColumn: options.orderColumn,
    validFromColumn: options.validFromColumn,
    validToColumn: options.validToColumn,
    partitionColumn: partition,
    currentPartition: options.currentPartition,
    tieBreakColumn: tieBreak,
    tieBreakInTable,
    tableSchema: snapshot.schema,
    dataSchema: new Schema(snapshot.schema.fields.filter((f) => f.name !== partition)),
    deltaTypes,
  };
}

/** `DeltaLiteUnsupportedTableError` unless the table is partitioned by exactly `partitionColumn`, a string. */
function checkPartitioning(snapshot: Snapshot, partitionColumn: string): void {
  const table = snapshot.table;
  const partitions = snapshot.partitionColumns;
  if (partitions.length !== 1 || partitions[0] !== partitionColumn) {
    const actual =
      partitions.length === 0 ? "is not partitioned" : `is partitioned by ${partitions.join(", ")}`;
    throw new DeltaLiteUnsupportedTableError(
      `${table} ${actual}; historyUpsert needs a table partitioned by exactly partitionColumn ${partitionColumn}${didYouMean(partitionColumn, partitions)}`,
    );
  }
  const type = snapshot.deltaSchema.fields.find((f) => f.name === partitionColumn)?.type;
  if (type !== "string") {
    throw new DeltaLiteUnsupportedTableError(
      `${table}: partition column ${partitionColumn} has type ${typeof type === "string" ? type : "struct"}; historyUpsert needs a string partition column`,
    );
  }
}

/** The key, order, valid-from, valid-to and partition columns are distinct; the tie-break is none of them but valid-from. */
function checkRoles(table: string, options: HistoryUpsertOptions): void {
  const roles: [string, string][] = [
    ...options.keyColumns.map((k): [string, string] => ["key column", k]),
    ["orderColumn", options.orderColumn],
    ["validFromColumn", options.validFromColumn],
    ["validToColumn", options.validToColumn],
    ["partitionColumn", options.partitionColumn],
  ];
  const seen = new Map<string, string>();
  for (const [role, name] of roles) {
    const other = seen.get(name);
    if (other !== undefined) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: column ${name} is both ${other} and ${role}; each role needs its own column`,
      );
    }
    seen.set(name, role);
  }
  const tieBreak = options.tieBreakColumn;
  const role = tieBreak === undefined ? undefined : seen.get(tieBreak);
  if (role !== undefined && role !== "validFromColumn") {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: tieBreakColumn ${tieBreak} is also the ${role}; pick another column`,
    );
  }
}
