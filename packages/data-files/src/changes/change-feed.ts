/**
 * `readChanges`: a table's change data feed over a range of commits, as Arrow RecordBatches with the
 * table's columns (projected to `columns`) followed by `_change_type`, `_commit_version` and
 * `_commit_timestamp`. The log decides which files hold each commit's changes (change-commits.ts); each
 * file is then read one row group at a time through the one live-file reader (the next file's footer
 * fetched while the current one is read), the change columns attached, and the filter applied — files are
 * first pruned by partition values, Add stats and the commit's constant change columns. Memory is bounded
 * by one decoded row group plus the log's file lists for the range, never by the table or the range's data.
 */
import type { Snapshot } from "@deltalite/delta-log";
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import { type ParquetReader, takeRows } from "@deltalite/parquet-stream";
import { type Field, type RecordBatch, Schema } from "apache-arrow";
import { type LiveFileReadContext, openLiveFile, readLiveFile } from "../read/live-file.js";
import { type ResolvedCondition, resolveFilter, type ScanFilterCondition } from "../scan/filter.js";
import { partitionsMatch, statsMatch } from "../scan/prune.js";
import { selectedRows } from "../scan/row-filter.js";
import { checkBatchSize, type SnapshotSource } from "../scan/table-scan.js";
import { attachChangeColumns, checkColumns, project } from "./change-batches.js";
import { CHANGE_ARROW_FIELDS, withChangeColumns } from "./change-columns.js";
import { changeCommits } from "./change-commits.js";
import { type ChangeRange, type CheckedRange, checkRange } from "./change-range.js";
import { type ChangeCommit, type ChangeSource, constantsMatch } from "./change-sources.js";

export interface ChangesOptions {
  /** Table columns to return, in this order (default: all); the three change columns always follow. */
  columns?: readonly string[] | undefined;
  /** Conditions, ANDed, on table columns and change columns (the scan filter language). */
  filter?: readonly ScanFilterCondition[] | undefined;
  /** Cut batches to at most this many rows (default: one batch per row group, after filtering). */
  batchSize?: number | undefined;
  readAheadRowGroups?: number | undefined;
  rangeGetPartSizeBytes?: number | undefined;
  rangeGetConcurrency?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** What a change read will read, decided (and every range error raised) before any data file is opened. */
export interface ChangesPlan {
  /** The latest snapshot: its schema is the feed's. */
  snapshot: Snapshot;
  /** The schema of every yielded batch: the table's columns (projected), then the change columns. */
  schema: Schema;
  /** First and last version read (undefined when a timestamp window selects no commit). */
  startingVersion: number | undefined;
  endingVersion: number | undefined;
  commits: number;
  /** Files holding the range's changes, and how many of them pruning leaves to read. */
  filesTotal: number;
  filesToRead: number;
}

export interface ChangesMetrics {
  filesRead: number;
  rowGroupsRead: number;
  /** Rows decoded from files (before the filter). */
  rowsRead: number;
  rowsReturned: number;
  batches: number;
}

interface Planned extends ChangesPlan {
  reads: { commit: ChangeCommit; source: ChangeSource }[];
  /** The table fields read from each file: the output ones, then filter-only ones. */
  tableFields: Field[];
  outputTableCount: number;
  rowConditions: ResolvedCondition[];
  partitionTypes: ReadonlyMap<string, string>;
}

/** The change data feed of `source` (the latest snapshot, or a function loading it) over `range`. */
export function readChanges(
  source: SnapshotSource,
  range: ChangeRange,
  options: ChangesOptions = {},
): ChangeFeed {
  return new ChangeFeed(source, range, options);
}

export class ChangeFeed implements AsyncIterable<RecordBatch> {
  readonly #source: SnapshotSource;
  readonly #range: CheckedRange;
  readonly #options: ChangesOptions;
  #plan: Promise<Planned> | undefined;
  readonly metrics: ChangesMetrics = {
    filesRead: 0,
    rowGroupsRead: 0,
    rowsRead: 0,
    rowsReturned: 0,
    batches: 0,
  };

  /** Checks the range and options at once (`invalid_argument`); nothing is read until planned or iterated. */
  constructor(source: SnapshotSource, range: ChangeRange, options: ChangesOptions = {}) {
    this.#source = source;
    this.#range = checkRange(range);
    this.#options = options;
    checkBatchSize("changes", options.batchSize);
  }

  /** Loads the snapshot, resolves the range against the log, checks columns and filter (memoized). */
  plan(): Promise<ChangesPlan> {
    this.#plan ??= this.#makePlan();
    return this.#plan;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RecordBatch> {
    this.#plan ??= this.#makePlan();
    const plan = await this.#plan;
    const { reads } = plan;
    let next = reads.length > 0 ? this.#open(plan, reads[0]!) : undefined;
    for (let i = 0; i < reads.length; i++) {
      const current = next!;
      next = i + 1 < reads.length ? this.#open(plan, reads[i + 1]!) : undefined;
      yield* this.#readSource(plan, reads[i]!, current);
    }
  }

  #context(version: number): LiveFileReadContext {
    const o = this.#options;
    return {
      knobs: {
        rangeGetPartSizeBytes: o.rangeGetPartSizeBytes,
        rangeGetConcurrency: o.rangeGetConcurrency,
        readAheadRowGroups: o.readAheadRowGroups,
      },
      version,
      signal: o.signal,
    };
  }

  #open(plan: Planned, read: Planned["reads"][number]): Promise<ParquetReader> {
    const opening = openLiveFile(plan.snapshot.store, read.source.file, this.#context(read.commit.version));
    opening.catch(() => undefined); // surfaced when awaited; the caller may stop before that
    return opening;
  }

  async #makePlan(): Promise<Planned> {
    const snapshot = typeof this.#source === "function" ? await this.#source() : this.#source;
    const table = snapshot.table;
    const byName = new Map(snapshot.schema.fields.map((f) => [f.name, f]));
    const columns = this.#options.columns ?? [...byName.keys()];
    checkColumns(columns, [...byName.keys()], table);
    const conditions = resolveFilter(this.#options.filter, withChangeColumns(snapshot.deltaSchema), table);
    const log = await changeCommits(snapshot, this.#range, this.#options.signal);
    const partitionColumns = new Set(snapshot.partitionColumns);
    const reads: Planned["reads"] = [];
    let filesTotal = 0;
    for (const commit of log.commits) {
      for (const source of commit.sources) {
        filesTotal++;
        if (!partitionsMatch(source.file, conditions, partitionColumns)) continue;
        if (!statsMatch(source.file, conditions, partitionColumns)) continue;
        if (constantsMatch(commit, source, conditions)) reads.push({ commit, source });
      }
    }
    const needed = [...columns];
    for (const c of conditions) {
      if (byName.has(c.column) && !needed.includes(c.column)) needed.push(c.column);
    }
    const partitionTypes = new Map<string, string>();
    for (const f of snapshot.deltaSchema.fields) {
      if (partitionColumns.has(f.name))
        partitionTypes.set(f.name, typeof f.type === "string" ? f.type : "string");
    }
    return {
      snapshot,
      schema: new Schema([...columns.map((name) => byName.get(name)!), ...CHANGE_ARROW_FIELDS]),
      startingVersion: log.startingVersion,
      endingVersion: log.endingVersion,
      commits: log.commits.length,
      filesTotal,
      filesToRead: reads.length,
      reads,
      tableFields: needed.map((name) => byName.get(name)!),
      outputTableCount: columns.length,
      rowConditions: conditions.filter((c) => !partitionColumns.has(c.column)),
      partitionTypes,
    };
  }

  async *#readSource(
    plan: Planned,
    { commit, source }: Planned["reads"][number],
    opening: Promise<ParquetReader>,
  ): AsyncGenerator<RecordBatch> {
    const signal = this.#options.signal;
    const label = `${plan.snapshot.table.replace(/\/$/, "")}/${source.file.path}`;
    const fromCdc = source.kind === "cdc";
    const typeField = CHANGE_ARROW_FIELDS[0]!;
    const fields = fromCdc ? [...plan.tableFields, typeField] : plan.tableFields;
    try {
      signal?.throwIfAborted();
      const reader = await opening;
      this.metrics.filesRead++;
      const columns = { fields, partitionTypes: plan.partitionTypes, label };
      for await (const read of readLiveFile(reader, source.file, columns, this.#context(commit.version))) {
        signal?.throwIfAborted();
        this.metrics.rowGroupsRead++;
        this.metrics.rowsRead += read.numRows;
        let batch = attachChangeColumns(read, plan.tableFields.length, commit, source);
        const rows = selectedRows(batch, plan.rowConditions);
        if (rows) batch = takeRows(batch, rows);
        if (batch.numRows === 0) continue;
        yield* this.#cut(project(batch, plan));
      }
    } catch (error) {
      throw asChangesError(error, label, signal);
    }
  }

  *#cut(batch: RecordBatch): Generator<RecordBatch> {
    const size = this.#options.batchSize ?? batch.numRows;
    for (let at = 0; at < batch.numRows; at += size) {
      const piece = size >= batch.numRows ? batch : batch.slice(at, at + size);
      this.metrics.batches++;
      this.metrics.rowsReturned += piece.numRows;
      yield piece;
    }
  }
}

function asChangesError(error: unknown, label: string, signal: AbortSignal | undefined): unknown {
  if (isDeltaLiteError(error)) return error;
  if (signal?.aborted) {
    return new DeltaLiteError("aborted", `change read aborted while reading ${label}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DeltaLiteError("generic", `change read of ${label} failed: ${message}`, { cause: error });
}
