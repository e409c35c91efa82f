/**
 * The rewrite of one partition: streams each hit file one row-group slice at a time, drops the rows whose
 * key the source replaces, and writes the survivors followed by the partition's source rows through one
 * streaming Parquet writer (files named and placed as delta-rs places them, rolling over at the target
 * size). Returns the new files as Add actions with delta-rs-equal stats. Nothing is committed here. When
 * the partition keeps columns from the target (`missingColumns: "keep"`), each replaced row is written
 * in place, built from its decoded batch (fill-from-target.ts), and only the unmatched source rows follow.
 * Delete rows of the source (`deleteColumn`) drop the target rows with their key and are never written.
 * With a `changeData` writer (a table with the change data feed on) every change also goes there as it
 * streams: replaced rows as `update_preimage`, their replacements as `update_postimage`, deleted rows as
 * `delete`, inserted source rows as `insert` (delta-rs MERGE's change data). A hit file whose footer the
 * probe handed over (footer-handoff.ts) is opened without a footer GET, and the key hashes the probe
 * computed for it (hash-handoff.ts) are used instead of hashing those rows again. Such a file whose columns
 * are exactly the table's is passed through (rewrite-passthrough.ts): read in place from its local path or
 * fetched whole, its keys matched here (handed by the probe, else the native engine's values of the key
 * column, else its key columns decoded), and handed to the encoder worker with the rows to leave out, so its
 * other columns are never decoded in JS.
 */
import {
  type Budget,
  type ChangeDataWriter,
  type LiveFileReadContext,
  openLiveFile,
  type Permit,
  readLiveFile,
  writePartitionFiles,
} from "@deltalite/data-files";
import type { AddAction, FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import {
  type ColumnChunkSizes,
  columnChunkSizes,
  handOverPassthrough,
  type ParquetCodec,
  type ParquetPassthrough,
  type ParquetReader,
  takeRows,
  type WrittenFile,
} from "@deltalite/parquet-stream";
import type { HashCollection } from "@deltalite/probe-cache";
import type { RecordBatch, Schema } from "apache-arrow";
import { encodeKeys } from "../keys/encode-keys.js";
import type { KeyHasher } from "../keys/key-hasher.js";
import { TargetFill } from "./fill-from-target.js";
import { footerHandoff } from "./footer-handoff.js";
import { type HandedHashes, handedRows, hashHandoff } from "./hash-handoff.js";
import { nativelyEncodedKeys } from "./probe.js";
import { type BatchMatch, matchBatch, matchKeys } from "./rewrite-match.js";
import { readWholeHitFile } from "./rewrite-passthrough.js";
import type { SourcePartition } from "./source-batch.js";

export interface RewriteInput {
  store: ObjectStore;
  partition: SourcePartition;
  partitionColumns: readonly string[];
  hitFiles: readonly FileView[];
  dataSchema: Schema;
  configuration: Readonly<Record<string, string>>;
  targetFileSize: number | undefined;
  maxRowGroupBytes: number | undefined;
  maxRowGroupRows: number | undefined;
  codec: ParquetCodec;
  multipartThresholdBytes: number | undefined;
  multipartPartSizeBytes: number | undefined;
  multipartConcurrency: number | undefined;
  read: LiveFileReadContext;
  /** Taken before each hit file is opened and held while it is read (the call's and process's file budgets). */
  acquireFile: () => Promise<Permit>;
  /** Collects the key hashes of everything written (the probe cache entry of the new files). */
  collection: HashCollection | undefined;
  hasher: KeyHasher;
  signal: AbortSignal | undefined;
  /** Receives every file as soon as it is complete (for clean-up on a later failure). */
  onFile: (file: WrittenFile) => void;
  /**
   * Receives the target rows the rewrite drops, one batch per decoded batch and kind that lost rows, in
   * the data-file schema, before the survivors are written on: `"update"` for rows a source row replaces
   * (a change data feed's pre-images), `"delete"` for rows a delete row of the source removes.
   */
  onDroppedRows?: ((rows: RecordBatch, kind: DroppedKind) => void | Promise<void>) | undefined;
  /** Receives every change of the partition (see the module comment); none when undefined. */
  changeData?: ChangeDataWriter | undefined;
  /**
   * The key columns as the probe reads them: a passed-through file whose keys the probe did not hand over is
   * then matched on the native engine's values of them where it can (probe.ts `nativelyEncodedKeys`); never
   * when undefined.
   */
  keySchema?: Schema | undefined;
  /** The largest hit file passed through to the encoder worker (rewrite-passthrough.ts); 0 or undefined: none. */
  passthroughMaxBytes?: number | undefined;
  /** The call's bound on the whole files held to pass through (rewrite-passthrough.ts); none when undefined. */
  passthroughHeld?: Budget | undefined;
}

/** Why the rewrite dropped a target row: a source row replaces it, or a delete row removes it. */
export type DroppedKind = "update" | "delete";

export interface RewriteResult {
  adds: AddAction[];
  /** Store keys of the new files (the paths their Adds name, decoded). */
  keys: string[];
  /** Target rows replaced (MERGE's numTargetRowsUpdated). */
  rowsUpdated: number;
  /** Upserting source rows that replaced at least one target row (the rest were inserted). */
  keysMatched: number;
  /** Target rows removed by a delete row of the source (MERGE's numTargetRowsDeleted). */
  rowsDeleted: number;
  rowsCopied: number;
  /** Hit files passed through to the encoder worker undecoded (rewrite-passthrough.ts). */
  filesPassedThrough: number;
  bytesRead: number;
  bytesWritten: number;
}

export async function rewritePartition(input: RewriteInput): Promise<RewriteResult> {
  const { partition, signal } = input;
  const set = partition.keys;
  const counts = {
    rowsUpdated: 0,
    rowsCopied: 0,
    bytesRead: 0,
    keysMatched: 0,
    rowsDeleted: 0,
    filesPassedThrough: 0,
  };
  const deletes = partition.deletes;
  const changes = input.changeData;
  /** The dropped rows of a target batch to the hook and the change data. */
  async function dropped(batch: RecordBatch, rows: Int32Array, kind: DroppedKind): Promise<void> {
    if (rows.length === 0) return;
    const taken = takeRows(batch, rows);
    await input.onDroppedRows?.(taken, kind);
    await changes?.push(taken, kind === "update" ? "update_preimage" : "delete");
  }
  // Target rows each source key replaced: MERGE updates every matching target row, so a key that several
  // target rows hold (a table written without the upsert) is written that many times.
  const matches = new Uint32Array(set.size);
  // "keep": replaced rows are built from the target batch they replace (written in place of it).
  const fill = TargetFill.of(partition, input.dataSchema);
  /** Matches one decoded batch of target rows (`row`: its first row's number in the file) against the source. */
  function match(batch: RecordBatch, handed: HandedHashes | undefined, row: number): BatchMatch {
    const hashWords = handedRows(handed, row, batch.numRows);
    return counted(matchBatch(batch, set, deletes, matches, input.hasher, hashWords));
  }
  /** Adds one match to the counters and the probe cache's collection. */
  function counted(matched: BatchMatch): BatchMatch {
    // Replaced rows' keys come back with the source rows; deleted rows' keys leave the output.
    const { keys, gone, deleted } = matched;
    input.collection?.add(keys.hashWords.subarray(0, 2 * keys.length), skipOf(keys.nullKeys, gone, deleted));
    counts.rowsUpdated += matched.replaced;
    counts.rowsDeleted += deleted;
    counts.rowsCopied += matched.kept;
    return matched;
  }
  // Files pass through only when nothing needs the dropped rows as batches (change data, the hook, "keep"'s
  // fill). The writer judges its settings on the first rows it takes: until rows went by, a passed-through
  // file carries a decoded sample of them.
  const mayPassThrough = !fill && !changes && !input.onDroppedRows && (input.passthroughMaxBytes ?? 0) > 0;
  let judged = false;
  // The file the first decoded rows come from, for the writer's compression policy (a passed-through file
  // carries its own): the same judgement whether the first hit file is passed through or decoded.
  let firstInputSizes: ColumnChunkSizes[] | undefined;
  async function* rows(): AsyncGenerator<RecordBatch | ParquetPassthrough> {
    const collection = input.collection;
    for (const file of input.hitFiles) {
      counts.bytesRead += file.size;
      const permit = await input.acquireFile();
      let reader: ParquetReader | undefined;
      const handed = hashHandoff(input.read).take(file);
      const handedFile = footerHandoff(input.read).take(file);
      const footer = handedFile?.metadata;
      let row = 0; // the file's live rows read so far (the probe's row numbers)
      try {
        const whole =
          mayPassThrough || handedFile?.whole
            ? await readWholeHitFile(
                input,
                file,
                { footer, bytes: handedFile?.whole },
                !mayPassThrough ? "no" : judged ? "yes" : "with-sample",
                {
                  columns: set.columns,
                  handed: handed?.keys,
                  handedHits: handed?.hits,
                  match: (batch, at) => match(batch, handed, at),
                  matchKeys: (keys, hits) => counted(matchKeys(keys, set, deletes, matches, hits)),
                  native: input.keySchema
                    ? (reader) => nativelyEncodedKeys(reader, set, input.keySchema!, input.hasher, signal)
                    : undefined,
                },
              )
            : undefined;
        if (whole && "unit" in whole) {
          counts.filesPassedThrough++;
          if (whole.unit.sample || whole.unit.judgeInWorker) judged = true;
          yield* handOverPassthrough(whole.unit);
          continue;
        }
        reader = whole?.reader ?? (await openLiveFile(input.store, file, input.read, footer));
        const batches = readLiveFile(reader, file, { fields: input.dataSchema.fields }, input.read);
        for await (const batch of batches) {
          const { keep, kept, drop, replaced, entries, gone, deleted } = match(batch, handed, row);
          row += batch.numRows;
          if (input.onDroppedRows || changes) {
            await dropped(batch, drop.subarray(0, replaced), "update");
            if (gone) await dropped(batch, gone.subarray(0, deleted), "delete");
          }
          if (kept > 0) judged = true;
          if (kept > 0 || (fill && replaced > 0)) firstInputSizes ??= columnChunkSizes(reader.metadata);
          if (kept === batch.numRows) yield batch;
          else if (kept > 0) yield takeRows(batch, keep.subarray(0, kept));
          if (fill && replaced > 0) {
            const replacing = fill.replacingRows(
              batch,
              drop.subarray(0, replaced),
              entries.subarray(0, replaced),
            );
            if (changes) for (const rows of replacing) await changes.push(rows, "update_postimage");
            yield* replacing;
          }
        }
      } finally {
        reader?.close();
        permit.release();
        handed?.release?.(); // the probe's hashes and keys of this file are read no more
      }
    }
    if (!deletes) collection?.add(set.hashWords());
    for (const [b, batch] of partition.batches.entries()) {
      if (batch.numRows === 0) continue;
      const flags = deletes?.rows[b];
      // With deletes, only the written source rows' keys join the new files' cache entry.
      if (flags) {
        const keys = encodeKeys(batch, set.columns, { hasher: input.hasher });
        collection?.add(keys.hashWords.subarray(0, 2 * keys.length), orFlags(keys.nullKeys, flags));
      }
      const rowEntries = set.entriesOf(b); // the key set was built over these rows (source-batch.ts)
      const take: number[] = [];
      const inserted: number[] = [];
      for (let i = 0; i < batch.numRows; i++) {
        if (flags?.[i] === 1) continue; // a delete row is never written
        const entry = rowEntries[i] as number;
        const matched = entry >= 0 && (matches[entry] as number) > 0;
        if (matched) counts.keysMatched++;
        else inserted.push(i);
        // Without a fill a matched source row replaces each of its target rows here; with one, it did in place.
        const times = !matched ? 1 : fill ? 0 : (matches[entry] as number);
        for (let k = 0; k < times; k++) take.push(i);
      }
      if (changes) await sourceChanges(changes, batch, take, inserted);
      if (take.length === batch.numRows) yield batch;
      else if (take.length > 0) yield takeRows(batch, Int32Array.from(take));
    }
  }
  const files: WrittenFile[] = [];
  const adds: AddAction[] = [];
  const written = writePartitionFiles(input.store, rows(), input.dataSchema, partition.values, {
    partitionColumns: input.partitionColumns,
    configuration: input.configuration,
    codec: input.codec,
    targetFileSize: input.targetFileSize,
    maxRowGroupBytes: input.maxRowGroupBytes,
    maxRowGroupRows: input.maxRowGroupRows,
    multipartThresholdBytes: input.multipartThresholdBytes,
    multipartPartSizeBytes: input.multipartPartSizeBytes,
    multipartConcurrency: input.multipartConcurrency,
    // Passed-through files make the encoder the busy side: a partition with enough of them to rewrite
    // goes to the least busy worker (one more started if need be); smaller ones share the first.
    spreadEncoders: spreadsOverEncoders(mayPassThrough, input.hitFiles),
    firstInputSizes: () => firstInputSizes,
    signal,
  });
  for await (const { file, add } of written) {
    input.onFile(file);
    files.push(file);
    adds.push(add);
  }
  return {
    adds,
    keys: files.map((f) => f.key),
    ...counts,
    bytesWritten: files.reduce((n, f) => n + f.size, 0),
  };
}

/**
 * The hit-file bytes (by their Add size) from which a partition's rewrite gets an encoder worker of its own.
 * A second worker costs its start and a cold WebAssembly phase (the first files it decodes and encodes
 * run before V8 has optimised parquet-rs), several hundred ms of CPU on a 2-vCPU machine, which pays off
 * only on enough bytes. `pnpm bench upsert`'s 1M tables, interleaved (merge-engine BENCHMARKS.md, session
 * 10): the recent shape (8 MB of hit files per partition) ran 1.26 → 1.16 s and 324 → 298 MB on one worker
 * instead of two, the uniform shape (82 MB per partition) 2.06 → 2.34 s.
 */
export const SPREAD_MIN_HIT_BYTES = 32 * 1024 * 1024;

/** Whether a partition's rewrite asks for an encoder worker of its own (see SPREAD_MIN_HIT_BYTES). */
export function spreadsOverEncoders(mayPassThrough: boolean, hitFiles: readonly FileView[]): boolean {
  if (!mayPassThrough) return false;
  let bytes = 0;
  for (const file of hitFiles) bytes += file.size;
  return bytes >= SPREAD_MIN_HIT_BYTES;
}

/** The probe cache's skip mask of a target batch: its NULL keys and the rows deleted (`deleted` of `gone`). */
function skipOf(
  nullKeys: Uint8Array | undefined,
  gone: Int32Array | undefined,
  deleted: number,
): Uint8Array | undefined {
  if (!gone || deleted === 0) return nullKeys;
  const skip = new Uint8Array(gone.length);
  if (nullKeys) skip.set(nullKeys.subarray(0, skip.length));
  for (let k = 0; k < deleted; k++) skip[gone[k] as number] = 1;
  return skip;
}

/** `flags` OR `nullKeys`, as a new mask. */
function orFlags(nullKeys: Uint8Array | undefined, flags: Uint8Array): Uint8Array {
  const out = Uint8Array.from(flags);
  if (nullKeys) for (let i = 0; i < out.length; i++) out[i] = out[i]! | (nullKeys[i] ?? 0);
  return out;
}

/** The written source rows of one batch as change data: `inserted` as inserts, the rest of `take` as post-images. */
async function sourceChanges(
  changes: ChangeDataWriter,
  batch: RecordBatch,
  take: readonly number[],
  inserted: readonly number[],
): Promise<void> {
  const isInsert = new Uint8Array(batch.numRows);
  for (const i of inserted) isInsert[i] = 1;
  const updated = take.filter((i) => isInsert[i] === 0);
  if (inserted.length > 0) await changes.push(takeRows(batch, Int32Array.from(inserted)), "insert");
  if (updated.length > 0) await changes.push(takeRows(batch, Int32Array.from(updated)), "update_postimage");
}
