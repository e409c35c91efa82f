/**
 * `upsert(snapshot, data, options)`: the whole pipeline in one call — validate everything (options, source guard, schema, keys,
 * partition key, NULL partition values, duplicate keys) before any write; per touched partition take the
 * live files as candidates, prune them by Add stats and/or the exact key probe, rewrite the hit files with
 * the source rows; then ONE `MERGE` commit of all removes and adds. A retryable commit conflict re-plans
 * against the newest snapshot (the source stays in memory), up to `maxReplans` times. On a failure the
 * files this call wrote are deleted (best effort; no log entry references them) — except when the commit's
 * outcome is unknown, when they are kept.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import {
  alignToTable,
  CallBudgets,
  columnsToRelax,
  type LiveFileReadContext,
  mapLimit,
  withNullable,
} from "@deltalite/data-files";
import {
  type Action,
  type CommitResult,
  checkWriteSupport,
  commitTransaction,
  defaultMaintenanceHooks,
  discardWrittenFiles,
  type FileView,
  parsePartitionValue,
  type ReadSet,
  removeForFile,
  Snapshot,
  schemaToJson,
  serializePartitionValue,
} from "@deltalite/delta-log";
import {
  DeltaLiteError,
  DeltaLiteSchemaMismatchError,
  DeltaLiteSourceTooLargeError,
  DeltaLiteUnsupportedTableError,
  isCommitOutcomeUnknown,
  isDeltaLiteError,
} from "@deltalite/errors";
import type { WrittenFile } from "@deltalite/parquet-stream";
import { globalProbeCache, type HashCollection, type ProbeCache } from "@deltalite/probe-cache";
import { type Data, RecordBatch, Schema, Table } from "apache-arrow";
import { defaultKeyHasher, type KeyHasher } from "../keys/key-hasher.js";
import { validateUpsertOptions } from "./options.js";
import { fileHoldsSourceKey } from "./probe.js";
import { type RewriteResult, rewritePartition } from "./rewrite.js";
import { planSource, type SourcePartition } from "./source-batch.js";
import { sourceKeyRanges, statsMayHoldKey } from "./stats-prune.js";
import type { UpsertOptions, UpsertStats } from "./types.js";

export type UpsertSource = Table | RecordBatch | AsyncIterable<RecordBatch> | Iterable<RecordBatch>;

const now = () => performance.now();

interface TableShape {
  partitionColumn: string | undefined;
  partitionType: string | undefined;
  fileKeys: string[];
  dataSchema: Schema;
  keySchema: Schema;
  keyTypes: Record<string, string>;
}

/** Checks the table and the options against each other (no I/O). */
function tableShape(snapshot: Snapshot, options: UpsertOptions): TableShape {
  const table = snapshot.table;
  const partitions = snapshot.partitionColumns;
  if (partitions.length > 1) {
    throw new DeltaLiteUnsupportedTableError(
      `${table} is partitioned by ${partitions.length} columns (${partitions.join(", ")}); upsert supports at most one partition column`,
    );
  }
  const partitionColumn = partitions[0];
  if (options.partitionKey !== undefined && options.partitionKey !== partitionColumn) {
    throw new DeltaLiteError(
      "generic",
      partitionColumn === undefined
        ? `${table} is not partitioned, but partitionKey ${options.partitionKey} was given`
        : `${table} is partitioned by ${partitionColumn}, not by partitionKey ${options.partitionKey}`,
    );
  }
  const keys = [...options.primaryKeys];
  if (keys.length === 0) throw new DeltaLiteError("generic", `${table}: primaryKeys must not be empty`);
  if (new Set(keys).size !== keys.length) {
    throw new DeltaLiteError("generic", `${table}: primaryKeys lists a column twice (${keys.join(", ")})`);
  }
  const fields = snapshot.deltaSchema.fields;
  for (const key of keys) {
    if (!fields.some((f) => f.name === key)) {
      throw new DeltaLiteSchemaMismatchError(`${table}: primary-key column ${key} is not a table column`);
    }
  }
  // Inside one partition the partition value is constant: files never store it, so it is not matched on.
  const fileKeys = keys.filter((k) => k !== partitionColumn);
  if (fileKeys.length === 0) {
    throw new DeltaLiteError(
      "generic",
      `${table}: the primary key must include a column besides the partition column`,
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

/** Default of `maxSourceBytes` (the seed's 2 GiB; the table layer may take it from DELTALITE_MAX_SOURCE_BYTES). */
export const DEFAULT_MAX_SOURCE_BYTES = 2 * 1024 ** 3;

/** Bytes of the Arrow buffers of one batch (what the source guard counts). */
export function batchBytes(batch: RecordBatch): number {
  const walk = (data: Data): number =>
    [data.values, data.valueOffsets, data.nullBitmap, data.typeIds].reduce(
      (n: number, b: ArrayBufferView | undefined) => n + (b?.byteLength ?? 0),
      0,
    ) + (data.children ?? []).reduce((n: number, c: Data) => n + walk(c), 0);
  return walk(batch.data as Data);
}

async function collect(
  data: UpsertSource,
  maxBytes: number,
  table: string,
  signal: AbortSignal | undefined,
): Promise<RecordBatch[]> {
  let bytes = 0;
  const guard = (batch: RecordBatch) => {
    bytes += batchBytes(batch);
    if (maxBytes > 0 && bytes > maxBytes) {
      throw new DeltaLiteSourceTooLargeError(
        `${table}: the upsert source holds more than maxSourceBytes (${maxBytes} bytes); split it (keyBuckets) or raise the limit`,
      );
    }
    return batch;
  };
  // Checked first: a RecordBatch and a Table are also iterables (of rows).
  if (data instanceof RecordBatch) return [guard(data)];
  if (data instanceof Table) return data.batches.map(guard);
  if (
    typeof data !== "object" ||
    data === null ||
    !(Symbol.iterator in data || Symbol.asyncIterator in data)
  ) {
    throw new DeltaLiteError(
      "generic",
      "upsert data must be an Arrow Table, RecordBatch or (async) iterable of RecordBatches",
    );
  }
  const out: RecordBatch[] = [];
  for await (const batch of data as AsyncIterable<unknown>) {
    checkAborted(signal, table);
    if (!(batch instanceof RecordBatch)) {
      throw new DeltaLiteError("generic", "every item of the upsert data must be an Arrow RecordBatch");
    }
    out.push(guard(batch));
  }
  return out;
}

/** Commits the table's metadata with `columns` made nullable; returns the table after that commit. */
async function relaxColumns(
  snapshot: Snapshot,
  columns: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Snapshot> {
  const relax = new Set(columns);
  const schema = {
    ...snapshot.deltaSchema,
    fields: snapshot.deltaSchema.fields.map((f) => (relax.has(f.name) ? { ...f, nullable: true } : f)),
  };
  const commit = await commitTransaction(
    snapshot,
    [{ metaData: { ...snapshot.metadata, schemaString: schemaToJson(schema) } }],
    {
      operation: "CHANGE COLUMN",
      operationParameters: { columns: JSON.stringify(columns), nullable: "true" },
      hooks: defaultMaintenanceHooks(),
      signal,
    },
  );
  return commit.snapshot;
}

function checkAborted(signal: AbortSignal | undefined, table: string): void {
  if (signal?.aborted) {
    if (isDeltaLiteError(signal.reason)) throw signal.reason;
    throw new DeltaLiteError("aborted", `${table}: upsert aborted`, { cause: signal.reason });
  }
}

function targetFileSizeOf(snapshot: Snapshot, explicit: number | undefined): number | undefined {
  if (explicit !== undefined) return explicit;
  const n = Number(snapshot.configuration["delta.targetFileSize"]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function predicateOf(shape: TableShape): string {
  const q = (name: string) => `\`${name.replace(/`/g, "``")}\``;
  const columns =
    shape.partitionColumn === undefined ? shape.fileKeys : [shape.partitionColumn, ...shape.fileKeys];
  return columns.map((c) => `t.${q(c)} = s.${q(c)}`).join(" AND ");
}

/** Replaces rows whose primary key exists in the partition and inserts the rest, in one commit. */
export async function upsert(
  snapshot: Snapshot,
  data: UpsertSource,
  options: UpsertOptions,
): Promise<UpsertStats> {
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) {
    throw new DeltaLiteError("generic", `timeoutMs must be a positive integer (got ${timeoutMs})`);
  }
  // The whole-call deadline: one signal for every wait and request of this call.
  const deadline = new AbortController();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () =>
            deadline.abort(
              new DeltaLiteError("timeout", `${snapshot.table}: upsert exceeded timeoutMs (${timeoutMs} ms)`),
            ),
          timeoutMs,
        );
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  // Every permit wait and request of the call listens to this one signal.
  setMaxListeners(0, signal);
  try {
    return await upsertWithin(snapshot, data, options, signal);
  } catch (error) {
    // An unknown commit outcome is the answer even past the deadline (the caller must not retry blindly).
    if (deadline.signal.aborted && !options.signal?.aborted && !isCommitOutcomeUnknown(error)) {
      throw deadline.signal.reason;
    }
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

async function upsertWithin(
  snapshot: Snapshot,
  data: UpsertSource,
  options: UpsertOptions,
  signal: AbortSignal,
): Promise<UpsertStats> {
  const started = now();
  validateUpsertOptions(options, snapshot.table);
  const label = snapshot.table;
  checkAborted(signal, label);
  checkWriteSupport(snapshot.protocol, snapshot.metadata, label, "rewrite");
  let shape = tableShape(snapshot, options);
  const budgets = new CallBudgets(options, {
    process: options.processBudgets,
    permitWaitTimeoutMs: options.permitWaitTimeoutMs,
    signal,
    observer: options.budgetObserver,
    label,
  });

  // Ingest + validation: nothing is written (not even the relax commit) before this completes.
  let t = now();
  const maxSourceBytes = options.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  const collected = await collect(data, maxSourceBytes, label, signal);
  // A source without a key column would insert NULL keys (the alignment null-fills missing columns).
  for (const batch of collected) {
    const missing = options.primaryKeys.filter((k) => !batch.schema.fields.some((f) => f.name === k));
    if (missing.length > 0) {
      throw new DeltaLiteSchemaMismatchError(
        `${label}: the source lacks the primary-key column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
      );
    }
  }
  const relax = columnsToRelax(collected, snapshot.schema);
  const tableSchema = withNullable(snapshot.schema, relax);
  const batches = collected
    .map((b) => alignToTable(b, tableSchema, label, { noun: "source" }))
    .filter((b) => b.numRows > 0);
  const partitions = planSource({
    batches,
    tableSchema,
    dataSchema: withNullable(shape.dataSchema, relax),
    partitionColumn: shape.partitionColumn,
    partitionType: shape.partitionType,
    fileKeys: shape.fileKeys,
    label,
    hasher: options.keyHasher,
  });
  const ingestMs = now() - t;

  // Nullability relax: a separate metadata commit first.
  t = now();
  let current = snapshot;
  if (relax.length > 0) {
    current = await relaxColumns(snapshot, relax, signal);
    shape = tableShape(current, options);
  }
  const relaxMs = now() - t;

  const schemaJson = current.schemaJson;
  const maxReplans = options.maxReplans ?? 5;
  let openMs = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const stats = await planAndCommit(current, partitions, shape, options, attempt, budgets, signal);
      return {
        ...stats,
        columnsRelaxed: relax.length,
        ingestMs,
        openMs,
        relaxMs,
        executionTimeMs: now() - started,
      };
    } catch (error) {
      const replan =
        isDeltaLiteError(error) && error.kind === "conflict" && error.retryable && attempt <= maxReplans;
      if (!replan) throw error;
      t = now();
      current = await Snapshot.open(current.store, { signal });
      openMs += now() - t;
      // A concurrent schema change is never re-planned (it could null-fill a column).
      if (current.schemaJson !== schemaJson) throw error;
    }
  }
}

/** What one attempt shares across its partitions. */
interface AttemptContext {
  snapshot: Snapshot;
  shape: TableShape;
  options: UpsertOptions;
  budgets: CallBudgets;
  cache: ProbeCache;
  cacheTable: string;
  hasher: KeyHasher;
  read: LiveFileReadContext;
  signal: AbortSignal;
  /** Files written so far (deleted if the attempt fails). */
  written: WrittenFile[];
}

interface PartitionPlan {
  partition: SourcePartition;
  candidates: FileView[];
  remaining: FileView[];
}

interface PartitionOutcome {
  hits: FileView[];
  probed: number;
  probeCached: number;
  probeMs: number;
  rewrite: RewriteResult;
  /** Key hashes of everything written for the partition: cached under its new files once the commit lands. */
  collection: HashCollection | undefined;
}

/** Probes (cache first) and rewrites one partition under a partition permit. */
async function runPartition(ctx: AttemptContext, plan: PartitionPlan): Promise<PartitionOutcome> {
  const { snapshot, shape, options, budgets, cache, cacheTable, signal } = ctx;
  const permit = await budgets.acquirePartition();
  let collection: HashCollection | undefined;
  try {
    const strategy = options.pruneStrategy ?? "probe";
    let hits = plan.remaining;
    let probed = 0;
    let probeCached = 0;
    const p0 = now();
    if (strategy === "probe") {
      const keys = plan.partition.keys;
      const keySpace = keys.keySpace;
      const sourceWords = keys.hashWords();
      const found = await mapLimit(plan.remaining, options.probeConcurrency ?? 8, async (file) => {
        checkAborted(signal, snapshot.table);
        // Only NULL keys in this partition's source: nothing can match, nothing to read or ask.
        if (keys.size === 0) return false;
        const cached = cache.mayContainAny(cacheTable, file.path, keySpace, sourceWords);
        if (cached !== undefined) {
          probeCached++;
          return cached;
        }
        probed++;
        const filePermit = await budgets.acquireFile();
        try {
          return await fileHoldsSourceKey(
            snapshot.store,
            file,
            keys,
            shape.keySchema,
            ctx.read,
            cache.beginCollection(cacheTable, file.path, keySpace),
            ctx.hasher,
          );
        } finally {
          filePermit.release();
        }
      });
      hits = plan.remaining.filter((_, i) => found[i]);
    }
    const probeMs = now() - p0;
    checkAborted(signal, snapshot.table);
    collection = cache.beginCollection(
      cacheTable,
      `\u0000written:${randomUUID()}`,
      plan.partition.keys.keySpace,
    );
    const rewrite = await rewritePartition({
      store: snapshot.store,
      partition: plan.partition,
      partitionColumns: snapshot.partitionColumns,
      hitFiles: hits,
      dataSchema: shape.dataSchema,
      configuration: snapshot.configuration,
      targetFileSize: targetFileSizeOf(snapshot, options.targetFileSize),
      maxRowGroupBytes: options.maxRowGroupBytes,
      maxRowGroupRows: options.maxRowGroupRows,
      codec: options.codec ?? "snappy",
      multipartThresholdBytes: options.multipartThresholdBytes,
      multipartPartSizeBytes: options.multipartPartSizeBytes,
      multipartConcurrency: options.multipartConcurrency,
      read: ctx.read,
      acquireFile: () => budgets.acquireFile(),
      collection,
      hasher: ctx.hasher,
      signal,
      onFile: (file) => ctx.written.push(file),
    });
    return { hits, probed, probeCached, probeMs, rewrite, collection };
  } catch (error) {
    collection?.abort();
    throw error;
  } finally {
    permit.release();
  }
}

/**
 * Runs every partition (at most `limit` at once). The first failure aborts the others, and the call returns
 * only once every partition has stopped, so no file is written after the caller cleans up.
 */
async function runPartitions(
  ctx: AttemptContext,
  plans: readonly PartitionPlan[],
  limit: number,
  stop: AbortController,
): Promise<PartitionOutcome[]> {
  const done: PartitionOutcome[] = [];
  try {
    return await mapLimit(
      plans,
      limit,
      async (plan) => {
        const outcome = await runPartition(ctx, plan);
        done.push(outcome);
        return outcome;
      },
      (error) => stop.abort(error),
    );
  } catch (error) {
    for (const outcome of done) outcome.collection?.abort();
    throw error;
  }
}

async function planAndCommit(
  snapshot: Snapshot,
  partitions: readonly SourcePartition[],
  shape: TableShape,
  options: UpsertOptions,
  attempt: number,
  budgets: CallBudgets,
  callSignal: AbortSignal,
): Promise<Omit<UpsertStats, "ingestMs" | "openMs" | "relaxMs" | "columnsRelaxed" | "executionTimeMs">> {
  const store = snapshot.store;
  const strategy = options.pruneStrategy ?? "probe";
  const stats = {
    sourceRows: partitions.reduce((n, p) => n + p.rows, 0),
    nullPkRows: partitions.reduce((n, p) => n + p.keys.nullKeyRows, 0),
    partitionsTouched: partitions.length,
    filesCandidates: 0,
    filesPrunedByStats: 0,
    filesProbed: 0,
    filesProbeCached: 0,
    filesRemoved: 0,
    filesAdded: 0,
    rowsUpdated: 0,
    sourceRowsMatched: 0,
    rowsCopied: 0,
    bytesRead: 0,
    bytesWritten: 0,
    planMs: 0,
    probeMs: 0,
    rewriteMs: 0,
  };

  // Plan: candidates by partition, then stats.
  let t = now();
  const filesByPartition = new Map<string, FileView[]>();
  const partitionId = (values: Readonly<Record<string, string | null>>) =>
    shape.partitionColumn === undefined ? "" : `v:${values[shape.partitionColumn] ?? "\u0000null"}`;
  // A file's partition value is compared by value: parsed with the column's type and serialised the way
  // the source's values are (another writer may spell the same timestamp or number differently).
  const fileValues = (file: FileView): Record<string, string | null> => {
    const column = shape.partitionColumn;
    if (column === undefined) return {};
    const text = file.partitionValues[column] ?? null;
    if (shape.partitionType === undefined || shape.partitionType === "string") return { [column]: text };
    const type = shape.partitionType as Parameters<typeof parsePartitionValue>[1];
    return { [column]: serializePartitionValue(parsePartitionValue(text, type), type) };
  };
  for (const file of snapshot.files) {
    const id = partitionId(fileValues(file));
    const list = filesByPartition.get(id);
    if (list) list.push(file);
    else filesByPartition.set(id, [file]);
  }
  const plans: PartitionPlan[] = partitions.map((partition) => {
    const candidates = filesByPartition.get(partitionId(partition.values)) ?? [];
    stats.filesCandidates += candidates.length;
    let remaining = candidates;
    if (strategy !== "none") {
      const ranges = sourceKeyRanges(partition, shape.keyTypes);
      remaining = candidates.filter((f) => statsMayHoldKey(f.stats, ranges));
      stats.filesPrunedByStats += candidates.length - remaining.length;
    }
    return { partition, candidates, remaining };
  });
  stats.planMs = now() - t;

  // Partitions run side by side; one failing stops the others (this attempt's own abort).
  const stop = new AbortController();
  const signal = AbortSignal.any([callSignal, stop.signal]);
  setMaxListeners(0, signal);
  const cache = options.probeCache ?? globalProbeCache();
  const ctx: AttemptContext = {
    snapshot,
    shape,
    options,
    budgets,
    cache,
    cacheTable: probeCacheTable(snapshot),
    hasher: options.keyHasher ?? defaultKeyHasher,
    read: {
      knobs: {
        rangeGetPartSizeBytes: options.rangeGetPartSizeBytes,
        rangeGetConcurrency: options.rangeGetConcurrency,
        readAheadRowGroups: options.readAheadRowGroups,
      },
      batchRows: options.readBatchSize ?? 8192,
      admission: budgets.readAdmission(),
      observer: options.budgetObserver,
      signal,
    },
    signal,
    written: [],
  };
  let outcomes: PartitionOutcome[] = [];
  try {
    t = now();
    outcomes = await runPartitions(ctx, plans, budgets.partitions.total, stop);
    const adds: Action[] = [];
    const removes: Action[] = [];
    const deletionTimestamp = Date.now();
    outcomes.forEach((outcome) => {
      const result = outcome.rewrite;
      stats.filesProbed += outcome.probed;
      stats.filesProbeCached += outcome.probeCached;
      stats.probeMs += outcome.probeMs;
      stats.rowsUpdated += result.rowsUpdated;
      stats.sourceRowsMatched += result.keysMatched;
      stats.rowsCopied += result.rowsCopied;
      stats.bytesRead += result.bytesRead;
      stats.bytesWritten += result.bytesWritten;
      stats.filesAdded += result.adds.length;
      stats.filesRemoved += outcome.hits.length;
      for (const add of result.adds) adds.push({ add });
      for (const file of outcome.hits) removes.push({ remove: removeForFile(file, { deletionTimestamp }) });
    });
    stats.rewriteMs = now() - t;

    // One commit (post-commit maintenance timed apart).
    checkAborted(signal, snapshot.table);
    t = now();
    const rowsInserted = stats.sourceRows - stats.sourceRowsMatched;
    const read: ReadSet =
      partitions.length === 0
        ? { kind: "none" }
        : shape.partitionColumn === undefined
          ? { kind: "table" }
          : { kind: "partitions", partitions: partitions.map((p) => p.values) };
    const commit: CommitResult = await commitTransaction(snapshot, [...removes, ...adds], {
      operation: "MERGE",
      operationParameters: {
        predicate: predicateOf(shape),
        matchedPredicates: JSON.stringify([{ actionType: "update" }]),
        notMatchedPredicates: JSON.stringify([{ actionType: "insert" }]),
        notMatchedBySourcePredicates: "[]",
      },
      operationMetrics: {
        numSourceRows: stats.sourceRows,
        numTargetRowsInserted: rowsInserted,
        numTargetRowsUpdated: stats.rowsUpdated,
        numTargetRowsDeleted: 0,
        numTargetRowsCopied: stats.rowsCopied,
        numOutputRows: rowsInserted + stats.rowsUpdated + stats.rowsCopied,
        numTargetFilesAdded: stats.filesAdded,
        numTargetFilesRemoved: stats.filesRemoved,
        executionTimeMs: Math.round(now() - t + stats.planMs + stats.rewriteMs),
      },
      commitMetadata: options.commitMetadata,
      read,
      hooks: options.hooks ?? defaultMaintenanceHooks(),
      signal,
    });
    const commitMs = now() - t - commit.maintenanceMs;
    // The commit landed: new files answer from the cache, removed files leave it.
    cache.invalidate(
      ctx.cacheTable,
      outcomes.flatMap((o) => o.hits.map((f) => f.path)),
    );
    for (const outcome of outcomes) {
      outcome.collection?.commitTo(outcome.rewrite.keys);
    }
    return {
      version: commit.version,
      ...stats,
      rowsInserted,
      filesCarriedOver: stats.filesCandidates - stats.filesRemoved,
      planAttempts: attempt,
      commitMs,
      maintenanceMs: commit.maintenanceMs,
      ...(commit.maintenanceError !== undefined ? { maintenanceError: commit.maintenanceError } : {}),
    };
  } catch (error) {
    for (const outcome of outcomes) outcome?.collection?.abort();
    await discardWrittenFiles(
      store,
      ctx.written.map((f) => f.key),
      error,
    );
    throw error;
  }
}

/** The probe cache's table key: the root URL and the table id (a table recreated at a path is another table). */
function probeCacheTable(snapshot: Snapshot): string {
  return `${snapshot.store.root}#${snapshot.tableId}`;
}
