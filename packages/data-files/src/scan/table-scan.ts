/**
 * `scanTable`: a table snapshot read as Arrow RecordBatches with the table's schema (projected to
 * `columns`). Files are pruned by partition values, then by Add stats (prune.ts); each remaining file is
 * read one row group at a time through parquet-stream (size from the Add: no HEAD; only the needed
 * columns' chunks are fetched; the next file's footer is fetched while the current file is read), its
 * columns conformed to the table's types, partition columns re-attached from the log, columns the file
 * lacks null-filled, and the row filter applied. Memory is bounded by one decoded row group (plus the
 * reader's read-ahead), never by the table.
 */
import type { FileView, Snapshot } from "@deltalite/delta-log";
import {
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  didYouMean,
  isDeltaLiteError,
} from "@deltalite/errors";
import { type ParquetReader, takeRows } from "@deltalite/parquet-stream";
import { type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import { type LiveFileReadContext, openLiveFile, readLiveFile } from "../read/live-file.js";
import { type ResolvedCondition, resolveFilter, type ScanFilterCondition } from "./filter.js";
import { partitionsMatch, statsMatch } from "./prune.js";
import { selectedRows } from "./row-filter.js";

export interface ScanOptions {
  /** Columns to return, in this order (default: every column in table order). */
  columns?: readonly string[] | undefined;
  /** Conditions, ANDed (see filter.ts for ops, value types and semantics). */
  filter?: readonly ScanFilterCondition[] | undefined;
  /** Cut batches to at most this many rows (default: one batch per row group, after filtering). */
  batchSize?: number | undefined;
  /** Row groups fetched ahead while the current one is decoded (default 1). */
  readAheadRowGroups?: number | undefined;
  /** Largest single ranged GET (parquet-stream's default 8 MiB). */
  rangeGetPartSizeBytes?: number | undefined;
  /** Ranged GETs in flight per file (parquet-stream's default 4). */
  rangeGetConcurrency?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** What a scan will read, decided before any data file is opened. */
export interface ScanPlan {
  snapshot: Snapshot;
  /** The schema of every yielded batch: the table's Arrow fields, projected. */
  schema: Schema;
  /** Files left to read after pruning, in path order. */
  files: readonly FileView[];
  filesTotal: number;
  filesSkippedByPartition: number;
  filesSkippedByStats: number;
}

/** Counters of a scan so far. */
export interface ScanMetrics {
  filesRead: number;
  rowGroupsRead: number;
  /** Rows decoded from files (before the row filter). */
  rowsRead: number;
  /** Rows yielded. */
  rowsReturned: number;
  batches: number;
}

export type SnapshotSource = Snapshot | (() => Promise<Snapshot>);

/** A scan of `source` (a snapshot, or a function that loads one on first use). */
export function scanTable(source: SnapshotSource, options: ScanOptions = {}): TableScan {
  return new TableScan(source, options);
}

export class TableScan implements AsyncIterable<RecordBatch> {
  readonly #source: SnapshotSource;
  readonly #options: ScanOptions;
  #plan: Promise<ResolvedPlan> | undefined;
  readonly metrics: ScanMetrics = {
    filesRead: 0,
    rowGroupsRead: 0,
    rowsRead: 0,
    rowsReturned: 0,
    batches: 0,
  };

  readonly #readContext: LiveFileReadContext;

  constructor(source: SnapshotSource, options: ScanOptions = {}) {
    this.#source = source;
    this.#options = options;
    this.#readContext = {
      knobs: {
        rangeGetPartSizeBytes: options.rangeGetPartSizeBytes,
        rangeGetConcurrency: options.rangeGetConcurrency,
        readAheadRowGroups: options.readAheadRowGroups,
      },
      signal: options.signal,
    };
    checkBatchSize("scan", options.batchSize);
  }

  /** Loads the snapshot, validates columns and filter, and prunes files (memoized). */
  plan(): Promise<ScanPlan> {
    this.#plan ??= this.#makePlan();
    return this.#plan;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RecordBatch> {
    this.#plan ??= this.#makePlan();
    const plan = await this.#plan;
    // The next file's footer is fetched while the current file is read (one file ahead).
    let next = plan.files.length > 0 ? this.#open(plan, plan.files[0]!) : undefined;
    for (let i = 0; i < plan.files.length; i++) {
      const current = next!;
      next = i + 1 < plan.files.length ? this.#open(plan, plan.files[i + 1]!) : undefined;
      yield* this.#readFile(plan, plan.files[i]!, current);
    }
  }

  #open(plan: ResolvedPlan, file: FileView): Promise<ParquetReader> {
    const opening = openLiveFile(plan.snapshot.store, file, this.#readContext);
    opening.catch(() => undefined); // surfaced when awaited; the caller may stop before that
    return opening;
  }

  async #makePlan(): Promise<ResolvedPlan> {
    const snapshot = typeof this.#source === "function" ? await this.#source() : this.#source;
    this.#readContext.version = snapshot.version;
    const table = snapshot.table;
    const tableFields = snapshot.schema.fields;
    const byName = new Map(tableFields.map((f) => [f.name, f]));
    const columns = this.#options.columns ?? tableFields.map((f) => f.name);
    checkColumns(columns, [...byName.keys()], table);
    const conditions = resolveFilter(this.#options.filter, snapshot.deltaSchema, table);
    const partitionColumns = new Set(snapshot.partitionColumns);
    const needed = [...columns];
    for (const c of conditions) if (!needed.includes(c.column)) needed.push(c.column);
    const files: FileView[] = [];
    let byPartition = 0;
    let byStats = 0;
    const all = [...snapshot.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const file of all) {
      if (!partitionsMatch(file, conditions, partitionColumns)) byPartition++;
      else if (!statsMatch(file, conditions, partitionColumns)) byStats++;
      else files.push(file);
    }
    const partitionTypes = new Map<string, string>();
    for (const f of snapshot.deltaSchema.fields) {
      if (partitionColumns.has(f.name))
        partitionTypes.set(f.name, typeof f.type === "string" ? f.type : "string");
    }
    return {
      snapshot,
      schema: new Schema(columns.map((name) => byName.get(name)!)),
      files,
      filesTotal: all.length,
      filesSkippedByPartition: byPartition,
      filesSkippedByStats: byStats,
      neededFields: needed.map((name) => byName.get(name)!),
      outputCount: columns.length,
      rowConditions: conditions.filter((c) => !partitionColumns.has(c.column)),
      partitionTypes,
    };
  }

  async *#readFile(
    plan: ResolvedPlan,
    file: FileView,
    opening: Promise<ParquetReader>,
  ): AsyncGenerator<RecordBatch> {
    const { snapshot } = plan;
    const signal = this.#options.signal;
    const label = `${snapshot.table.replace(/\/$/, "")}/${file.path}`;
    try {
      signal?.throwIfAborted();
      const reader = await opening;
      this.metrics.filesRead++;
      const columns = { fields: plan.neededFields, partitionTypes: plan.partitionTypes, label };
      for await (let batch of readLiveFile(reader, file, columns, this.#readContext)) {
        signal?.throwIfAborted();
        this.metrics.rowGroupsRead++;
        this.metrics.rowsRead += batch.numRows;
        const rows = selectedRows(batch, plan.rowConditions);
        if (rows) batch = takeRows(batch, rows);
        if (batch.numRows === 0) continue;
        const out = project(batch, plan.schema, plan.outputCount);
        yield* this.#cut(out);
      }
    } catch (error) {
      throw asScanError(error, label, signal);
    }
  }

  *#cut(batch: RecordBatch): Generator<RecordBatch> {
    const size = this.#options.batchSize;
    if (size === undefined || batch.numRows <= size) {
      this.metrics.batches++;
      this.metrics.rowsReturned += batch.numRows;
      yield batch;
      return;
    }
    for (let at = 0; at < batch.numRows; at += size) {
      const piece = batch.slice(at, at + size);
      this.metrics.batches++;
      this.metrics.rowsReturned += piece.numRows;
      yield piece;
    }
  }
}

interface ResolvedPlan extends ScanPlan {
  /** Output columns, then filter-only columns. */
  neededFields: Field[];
  outputCount: number;
  /** Conditions the row filter applies (those on partition columns were settled per file). */
  rowConditions: ResolvedCondition[];
  /** Delta type of each partition column (their values come from the log). */
  partitionTypes: ReadonlyMap<string, string>;
}

/** `invalid_argument` unless `columns` is a list of distinct names of the table (with a "did you mean"). */
function checkColumns(columns: unknown, names: readonly string[], table: string): void {
  if (!Array.isArray(columns))
    throw new DeltaLiteInvalidArgumentError("scan columns must be a list of names");
  const seen = new Set<string>();
  for (const name of columns) {
    if (!names.includes(name)) {
      throw new DeltaLiteInvalidArgumentError(
        `scan asks for column "${name}", which table ${table} does not have${didYouMean(String(name), names)} (columns: ${names.join(", ")})`,
      );
    }
    if (seen.has(name)) throw new DeltaLiteInvalidArgumentError(`scan asks for column "${name}" twice`);
    seen.add(name);
  }
}

function project(batch: RecordBatch, schema: Schema, count: number): RecordBatch {
  if (batch.schema.fields.length === count) return new RecordBatch(schema, batch.data);
  const children = batch.data.children.slice(0, count);
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }),
  );
}

function asScanError(error: unknown, label: string, signal: AbortSignal | undefined): unknown {
  if (isDeltaLiteError(error)) return error;
  if (signal?.aborted)
    return new DeltaLiteError("aborted", `scan aborted while reading ${label}`, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new DeltaLiteError("generic", `scan of ${label} failed: ${message}`, { cause: error });
}

/** A `batchSize` option (scan, changes): a positive integer when given, else `invalid_argument`. */
export function checkBatchSize(what: string, size: number | undefined): void {
  if (size !== undefined && !(Number.isSafeInteger(size) && size > 0)) {
    throw new DeltaLiteInvalidArgumentError(`${what} batchSize must be a positive integer, got ${size}`);
  }
}
