/**
 * One attempt's work per touched partition: its candidate files (the live files of that partition value,
 * compared by value), those the Add stats cannot rule out, the exact probe of each (the probe cache first)
 * and the rewrite of the files it hits (with its change-data files on a table with the change data feed
 * on) — partitions side by side under the budgets, the first failure stopping the others and nothing
 * running on once the call returns.
 */
import { randomUUID } from "node:crypto";
import { setImmediate } from "node:timers/promises";
import {
  type Budget,
  type CallBudgets,
  ChangeDataWriter,
  type LiveFileReadContext,
  mapLimit,
  partitionColumnsOf,
} from "@deltalite/data-files";
import {
  type CdcAction,
  type FileView,
  parsePartitionValue,
  type Snapshot,
  serializePartitionValue,
} from "@deltalite/delta-log";
import { utf8ReaderMemo, type WrittenFile } from "@deltalite/parquet-stream";
import { type HashCollection, type ProbeCache, ProbeKeys } from "@deltalite/probe-cache";
import type { KeyHasher } from "../keys/key-hasher.js";
import type { InternalUpsertOptions } from "./hooks.js";
import { fileHoldsSourceKey } from "./probe.js";
import { type RewriteResult, rewritePartition } from "./rewrite.js";
import { checkAborted, type TableShape, targetFileSizeOf } from "./shape.js";
import type { SourcePartition } from "./source-batch.js";
import { sourceKeyRanges, statsMayHoldKey } from "./stats-prune.js";

/** What one attempt shares across its partitions. */
export interface AttemptContext {
  snapshot: Snapshot;
  shape: TableShape;
  options: InternalUpsertOptions;
  budgets: CallBudgets;
  cache: ProbeCache;
  cacheTable: string;
  hasher: KeyHasher;
  read: LiveFileReadContext;
  signal: AbortSignal;
  /** Files written so far (deleted if the attempt fails). */
  written: WrittenFile[];
  /** The table has `delta.enableChangeDataFeed=true`: every partition writes its change data. */
  changeDataFeed: boolean;
  /** The largest hit file the rewrite passes through to the encoder worker (rewrite-passthrough.ts). */
  passthroughMaxBytes: number;
  /** The call's bound on the whole files held to pass through (rewrite-passthrough.ts). */
  passthroughHeld: Budget;
  /** One turn: the partitions' probes run one after the other (see runPartition). */
  probeTurn: Budget;
}

export interface PartitionPlan {
  partition: SourcePartition;
  candidates: FileView[];
  /**
   * The candidates the Add stats cannot rule out: pruned when first read, in the partition's probe turn, so
   * the first partition's probes (native reads, off this thread) start while the others are still to be
   * pruned. Pruning all partitions before the first probe was ~25 ms of a cold recent 1M call in which only
   * this thread worked (merge-engine BENCHMARKS.md, session 32).
   */
  readonly remaining: FileView[];
  /** The time pruning took (0 until `remaining` is first read). */
  readonly pruneMs: number;
}

export interface PartitionOutcome {
  hits: FileView[];
  probed: number;
  probeCached: number;
  probeMs: number;
  rewrite: RewriteResult;
  /** Key hashes of everything written for the partition: cached under its new files once the commit lands. */
  collection: HashCollection | undefined;
  /** The partition's change-data files (change data feed on). */
  cdc: CdcAction[];
}

/**
 * Each source partition's candidate files, and those its Add stats cannot rule out (when first asked). One
 * pass over the live files keeps only those of a touched partition (a table of thousands of partitions and a
 * batch touching one allocates nothing per other file).
 */
export function planPartitions(
  snapshot: Snapshot,
  partitions: readonly SourcePartition[],
  shape: TableShape,
  strategy: string,
): PartitionPlan[] {
  const column = shape.partitionColumn;
  const filesByValue = new Map<string | null, FileView[]>();
  for (const partition of partitions)
    filesByValue.set(column === undefined ? null : (partition.values[column] ?? null), []);
  for (const file of snapshot.files) filesByValue.get(fileValue(file, shape))?.push(file);
  // The partitions' rows come from the same source columns: each string column is decoded once.
  const utf8Readers = utf8ReaderMemo();
  return partitions.map((partition) => {
    const candidates =
      filesByValue.get(column === undefined ? null : (partition.values[column] ?? null)) ?? [];
    let remaining: FileView[] | undefined;
    let pruneMs = 0;
    return {
      partition,
      candidates,
      get remaining() {
        if (remaining === undefined) {
          const t = performance.now();
          remaining = candidates;
          if (strategy !== "none") {
            const ranges = sourceKeyRanges(partition, shape.keyTypes, { utf8Readers });
            remaining = candidates.filter((f) => statsMayHoldKey(f.stats, ranges));
          }
          pruneMs = performance.now() - t;
        }
        return remaining;
      },
      get pruneMs() {
        return pruneMs;
      },
    };
  });
}

/**
 * A file's partition value compared by value: parsed with the column's type and serialised the way the
 * source's values are (another writer may spell the same timestamp or number differently); null for NULL
 * and on an unpartitioned table.
 */
function fileValue(file: FileView, shape: TableShape): string | null {
  const column = shape.partitionColumn;
  if (column === undefined) return null;
  const text = file.partitionValues[column] ?? null;
  if (shape.partitionType === undefined || shape.partitionType === "string") return text;
  const type = shape.partitionType as Parameters<typeof parsePartitionValue>[1];
  return serializePartitionValue(parsePartitionValue(text, type), type);
}

/** The files of the plan that hold a source key (cache first, then the exact probe under file permits). */
async function probePartition(
  ctx: AttemptContext,
  plan: PartitionPlan,
): Promise<{ hits: FileView[]; probed: number; probeCached: number }> {
  const { snapshot, shape, options, budgets, cache, cacheTable, signal } = ctx;
  if ((options.pruneStrategy ?? "probe") !== "probe") {
    return { hits: plan.remaining, probed: 0, probeCached: 0 };
  }
  let probed = 0;
  let probeCached = 0;
  const keys = plan.partition.keys;
  const keySpace = keys.keySpace;
  // Built once per partition (when a file is left to ask about), asked of every cached file (ProbeKeys), and
  // its sorted hashes of every file the native engine probes (probe.ts).
  const sourceHashes = ProbeKeys.fromWords(plan.remaining.length > 0 ? keys.hashWords() : new Uint32Array());
  const words = sourceHashes.hashes.words;
  const nativeProbe =
    options.valueHashProbe !== false
      ? new Uint8Array(words.buffer, words.byteOffset, words.byteLength)
      : undefined;
  const found = await mapLimit(plan.remaining, options.probeConcurrency ?? 8, async (file) => {
    checkAborted(signal, snapshot.table);
    // Only NULL keys in this partition's source: nothing can match, nothing to read or ask.
    if (keys.size === 0) return false;
    const cached = cache.mayContainAny(cacheTable, file.path, keySpace, sourceHashes);
    if (cached !== undefined) {
      probeCached++;
      return cached;
    }
    probed++;
    // Reading a local file (or bytes at hand) never waits on I/O, so without this a partition's probe ran
    // as one long run of microtasks: the event loop, and with it the rewrite of the partition before (a hit
    // file's larger read, the encoder worker's messages), waited for the probe to end. With the probe turns
    // (runPartition), recent 1M, 8 interleaved pairs: 1,378 → 1,205 ms median call time, peak RSS 230 → 236
    // MB; the yield alone, partitions still probing side by side, did not help (BENCHMARKS.md, session 13).
    await setImmediate();
    const filePermit = await budgets.acquireFile();
    try {
      const collection = cache.beginCollection(cacheTable, file.path, keySpace);
      return await fileHoldsSourceKey(
        snapshot.store,
        file,
        keys,
        shape.keySchema,
        ctx.read,
        collection,
        ctx.hasher,
        nativeProbe,
      );
    } finally {
      filePermit.release();
    }
  });
  return { hits: plan.remaining.filter((_, i) => found[i]), probed, probeCached };
}

/**
 * Probes one partition (cache first) in its turn, then rewrites it under a partition permit. The probe takes
 * no partition permit: the next partition probes while those holding permits rewrite, so a freed permit
 * goes straight to a rewrite. Before, a partition probed under its permit and its encoder sat idle meanwhile;
 * recent 1M, interleaved pairs: BENCHMARKS.md, session 29. The probe's reads stay under the file, fetch and
 * decode budgets, and what it hands the rewrite (footers, key hashes) under the handoffs' bounds.
 */
async function runPartition(ctx: AttemptContext, plan: PartitionPlan): Promise<PartitionOutcome> {
  const { snapshot, budgets, signal } = ctx;
  // Probes take turns: partitions that start together no longer probe (main thread) and then rewrite
  // (mostly the encoder worker) in lockstep, each thread idle while the other worked.
  const turn = await ctx.probeTurn.acquire(1, { signal });
  const p0 = performance.now();
  const { hits, probed, probeCached } = await probePartition(ctx, plan).finally(() => turn.release());
  const probeMs = performance.now() - p0;
  checkAborted(signal, snapshot.table);
  const permit = await budgets.acquirePartition();
  try {
    return { hits, probed, probeCached, probeMs, ...(await rewriteProbed(ctx, plan, hits)) };
  } finally {
    permit.release();
  }
}

/** Rewrites one probed partition's hit files and source rows (and its change data, when the feed is on). */
async function rewriteProbed(
  ctx: AttemptContext,
  plan: PartitionPlan,
  hits: FileView[],
): Promise<Pick<PartitionOutcome, "rewrite" | "collection" | "cdc">> {
  const { snapshot, shape, options, budgets, cache, cacheTable, signal } = ctx;
  let collection: HashCollection | undefined;
  const changeData = ctx.changeDataFeed ? changeDataWriter(ctx, plan) : undefined;
  try {
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
      changeData,
      passthroughMaxBytes: ctx.passthroughMaxBytes,
      passthroughHeld: ctx.passthroughHeld,
      keySchema: options.valueHashProbe !== false ? shape.keySchema : undefined,
    });
    const cdc = (await changeData?.finish()) ?? [];
    return { rewrite, collection, cdc };
  } catch (error) {
    collection?.abort();
    await changeData?.abort(error);
    throw error;
  }
}

/** The change-data writer of one partition (its files join `ctx.written` for clean-up). */
function changeDataWriter(ctx: AttemptContext, plan: PartitionPlan): ChangeDataWriter {
  const { snapshot, options } = ctx;
  return new ChangeDataWriter(
    snapshot.store,
    ctx.shape.dataSchema,
    partitionColumnsOf(snapshot),
    plan.partition.values,
    {
      partitionColumns: snapshot.partitionColumns,
      configuration: snapshot.configuration,
      codec: options.codec ?? "snappy",
      maxRowGroupBytes: options.maxRowGroupBytes,
      maxRowGroupRows: options.maxRowGroupRows,
      multipartThresholdBytes: options.multipartThresholdBytes,
      multipartPartSizeBytes: options.multipartPartSizeBytes,
      multipartConcurrency: options.multipartConcurrency,
      signal: ctx.signal,
      onFile: (file) => ctx.written.push(file),
    },
  );
}

/**
 * Runs every partition: at most `limit` rewriting at once (the partition permits) and one more probing ahead
 * (runPartition). The first failure aborts the others, and the call returns only once every partition has
 * stopped, so no file is written after the caller cleans up.
 */
export async function runPartitions(
  ctx: AttemptContext,
  plans: readonly PartitionPlan[],
  limit: number,
  stop: AbortController,
): Promise<PartitionOutcome[]> {
  const done: PartitionOutcome[] = [];
  try {
    return await mapLimit(
      plans,
      limit + 1,
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
