/**
 * A hit file passed through the rewrite without decoding its other columns. A hit file of at most the
 * passthrough limit is read by the encoder worker in place from its local path when the store and the engine
 * allow (data-files `localPassthroughSource`: nothing fetched or held; its footer, unless the probe handed it,
 * and any column read here come by ranged reads); else it is fetched whole in one GET under the call's fetch
 * admission (its footer from the probe, footer-handoff.ts, or from those bytes); a small file the probe handed
 * over whole is read from its bytes with no GET, admitted again first. When its columns are exactly the
 * table's (parquet-stream's `passthroughFits`), its keys are matched against the source as the JS path
 * matches them (rewrite-match.ts): the probe's encoded keys when it handed over all of the file's rows
 * (hash-handoff.ts), else its key columns decoded here. The file then goes to the encoder worker with the
 * replaced and deleted rows to leave out: parquet-rs decodes it a batch at a time and writes the slices
 * between those rows. The first file a partition's writer takes also carries a decoded sample of its first
 * rows (the columns the writer's dictionary policy judges), so the policy judges it as it judges a decoded
 * first batch. On the native engine it carries none: the worker decodes the same rows natively and judges
 * them by the same rule in Rust (`judgeInWorker`), so no JavaScript decodes them (recent 1M, 8 interleaved
 * pairs: 561 -> 530 ms, CPU 860 -> 760 ms; BENCHMARKS.md, session 20). Fetched bytes' admission is given back
 * once the worker has decoded the file's last row group, so the bytes are held as the compaction's
 * passed-through files are. Any other such file is decoded in JS
 * (from the fetched bytes, under the same admission). The limit is `DELTALITE_UPSERT_PASSTHROUGH_MAX_BYTES`
 * (0: never), else 64 MiB, and never above the call's fetch budget. The whole files a call holds for passing
 * through are bounded together by PASSTHROUGH_HELD_BYTES as well (a larger file is held alone).
 */
import {
  Budget,
  fetchLiveFile,
  type LiveFileReadContext,
  localPassthroughSource,
  openLiveFile,
  openLiveFileOver,
  type Permit,
  readLiveFile,
  SMALL_FILE_MAX_BYTES,
  type WholeFile,
} from "@deltalite/data-files";
import { type FileView, requestSwitchOn } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import {
  judgedFields,
  type ParquetMetadata,
  type ParquetPassthrough,
  type ParquetReader,
  type PassthroughSource,
  parquetEngineName,
  parquetFooterOfBytes,
  passthroughFits,
  passthroughOf,
  takeRows,
} from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import type { EncodedKeys } from "../keys/encode-keys.js";
import type { NativeEncodedKeys } from "./probe.js";
import type { BatchMatch } from "./rewrite-match.js";

/** What a passthrough needs of the rewrite's input. */
export interface PassthroughInput {
  store: ObjectStore;
  dataSchema: Schema;
  read: LiveFileReadContext;
  /** The largest file passed through (0 or undefined: none). */
  passthroughMaxBytes?: number | undefined;
  /** The call's bound on whole files held to pass through (passthroughHeldBudget), in KiB; none when undefined. */
  passthroughHeld?: Budget | undefined;
}

/**
 * The most bytes of whole files a call holds fetched to pass through, from the fetch until the encoder worker
 * has decoded each one's last row group. Without it only the fetch budget (128 MiB) bounded them, so the held
 * files grew with the table's file size: a fixed 10k-row upsert into the 8M-row bench table (22 MB files)
 * held five at once and peaked at 610–629 MB, under this bound 487–524 MB; at 4M rows (11 MB files) medians
 * of 4 went 488 → 457 MB and 6.91 → 7.02 s (merge-engine BENCHMARKS.md, session 15). It holds two of the 8M
 * table's files at once, one for each of the two encoder workers a large rewrite uses.
 */
export const PASSTHROUGH_HELD_BYTES = 48 * 1024 * 1024;

/** A call's bound on the whole files it holds to pass through (PASSTHROUGH_HELD_BYTES), counted in KiB. */
export function passthroughHeldBudget(bytes = PASSTHROUGH_HELD_BYTES): Budget {
  return new Budget("passthroughHeldKb", Math.max(1, Math.ceil(bytes / 1024)));
}

/** The environment variable of the largest hit file passed through (bytes; 0: none). */
export const UPSERT_PASSTHROUGH_VARIABLE = "DELTALITE_UPSERT_PASSTHROUGH_MAX_BYTES";

/** How a hit file's keys are matched: read from the file and matched batch by batch, or handed by the probe. */
export interface HitFileKeys {
  /** The key columns (data-file names). */
  columns: readonly string[];
  /** The probe's encoded keys of the file's rows in read order (hash-handoff.ts), when it handed them. */
  handed: readonly EncodedKeys[] | undefined;
  /** Per batch of `handed`: the native engine's hit rows, when it named them (HandedHashes.hits). */
  handedHits?: readonly (Uint32Array | undefined)[] | undefined;
  /** Matches one decoded batch of the key columns, its first row numbered `row` in the file. */
  match: (batch: RecordBatch, row: number) => BatchMatch;
  /** Matches one batch of the probe's encoded keys (given its hit rows, those alone: rewrite-match.ts). */
  matchKeys: (keys: EncodedKeys, hits?: Uint32Array) => BatchMatch;
  /**
   * The encoded keys of all of a file's rows from the native engine (probe.ts `nativelyEncodedKeys`), matched
   * instead of the decoded key columns; undefined when it cannot give them.
   */
  native?: ((reader: ParquetReader) => Promise<NativeEncodedKeys | undefined>) | undefined;
}

/** How the rewrite reads a hit file fetched whole: passed through, or decoded in JS from the fetched bytes. */
export type WholeHitFile = { unit: ParquetPassthrough } | { reader: ParquetReader };

/** Whether a hit file may pass through, and whether its unit must carry the dictionary policy's sample. */
export type PassThrough = "no" | "yes" | "with-sample";

/**
 * `file` fetched whole and, when it fits and `passThrough` allows, as a passthrough unit less the rows the
 * source replaces or deletes (module comment); else a reader over the fetched bytes for the JS path (its
 * close gives the admission back). Undefined when the file is above the limit or the object's length is not
 * the Add's: the rewrite then opens it the usual way. `match` matches one decoded batch of its key columns,
 * the batch's first row numbered `row` in the file.
 */
export async function readWholeHitFile(
  input: PassthroughInput,
  file: FileView,
  handed: { footer: ParquetMetadata | undefined; bytes: Uint8Array | undefined },
  passThrough: PassThrough,
  keys: HitFileKeys,
): Promise<WholeHitFile | undefined> {
  const inPlace =
    passThrough !== "no" && handed.bytes === undefined && file.size <= (input.passthroughMaxBytes ?? 0)
      ? await localPassthroughSource(input.store, file, input.read)
      : undefined;
  if (inPlace) return passedThroughInPlace(input, file, handed.footer, passThrough, keys, inPlace);
  const held = await holdForPassthrough(input, file, passThrough);
  const whole = await (handed.bytes ? admitHanded(input, file, handed.bytes) : fetchWhole(input, file)).catch(
    (error: unknown) => {
      held?.release();
      throw error;
    },
  );
  if (!whole) {
    held?.release();
    return undefined;
  }
  try {
    const metadata = handed.footer ?? parquetFooterOfBytes(whole.bytes, file.path);
    if (passThrough === "no" || !passthroughFits(metadata, input.dataSchema, file.path)) {
      held?.release();
      // The JS path's reader owns the bytes' admission (given back when it closes).
      return { reader: await openLiveFileOver(input.store, file, input.read, whole, metadata) };
    }
    // The reader borrows the bytes: their admission goes on with the unit.
    const borrowed = { bytes: whole.bytes, release: () => undefined };
    const reader = await openLiveFileOver(input.store, file, input.read, borrowed, metadata);
    const { skipRows, sample, judgeInWorker } = await rowsLeftOut(
      reader,
      file,
      passThrough,
      keys,
      input,
    ).finally(() => reader.close());
    const release = () => {
      whole.release();
      held?.release();
    };
    return {
      unit: passthroughOf({ bytes: whole.bytes }, metadata, release, skipRows, sample, judgeInWorker),
    };
  } catch (error) {
    whole.release();
    held?.release();
    throw error;
  }
}

/**
 * A hit file the encoder worker reads in place from its local path (data-files `localPassthroughSource`):
 * nothing fetched or held; its footer (unless handed) and the columns matching and the dictionary policy
 * need are read by ranged reads through one reader, which the JS path takes over when the file does not fit.
 */
async function passedThroughInPlace(
  input: PassthroughInput,
  file: FileView,
  footer: ParquetMetadata | undefined,
  passThrough: PassThrough,
  keys: HitFileKeys,
  source: PassthroughSource,
): Promise<WholeHitFile> {
  const reader = await openLiveFile(input.store, file, input.read, footer);
  try {
    if (!passthroughFits(reader.metadata, input.dataSchema, file.path)) return { reader };
    const { skipRows, sample, judgeInWorker } = await rowsLeftOut(reader, file, passThrough, keys, input);
    reader.close();
    return { unit: passthroughOf(source, reader.metadata, () => undefined, skipRows, sample, judgeInWorker) };
  } catch (error) {
    reader.close();
    throw error;
  }
}

/** The rows of the batches `policySample` reads (a whole row group when the read has no batch size). */
function sampleBatchRows(reader: ParquetReader, input: PassthroughInput): number {
  return input.read.batchRows ?? Math.max(1, ...reader.metadata.row_groups.map((g) => Number(g.num_rows)));
}

/**
 * The rows a passed-through file leaves out (the probe's handed keys matched when they cover all of its
 * rows, else its key columns read through `reader`) and, when its unit must carry one, the dictionary
 * policy's sample of the rows it keeps, or on the native engine word that the worker judges it instead.
 */
async function rowsLeftOut(
  reader: ParquetReader,
  file: FileView,
  passThrough: PassThrough,
  keys: HitFileKeys,
  input: PassthroughInput,
): Promise<{
  skipRows: Int32Array;
  sample: RecordBatch | undefined;
  judgeInWorker: { batchRows: number } | undefined;
}> {
  const skipRows =
    keys.handed && handedRowCount(keys.handed) === Number(reader.metadata.num_rows)
      ? skipped(keys.handed.map((encoded, b) => keys.matchKeys(encoded, keys.handedHits?.[b])))
      : await rowsToSkip(reader, file, keys, input);
  // On the native engine the worker decodes the sample's rows itself and judges them there: no JS decode.
  const judgeInWorker =
    passThrough === "with-sample" && parquetEngineName() === "native"
      ? { batchRows: sampleBatchRows(reader, input) }
      : undefined;
  const sample =
    passThrough === "with-sample" && judgeInWorker === undefined
      ? await policySample(reader, file, skipRows, input)
      : undefined;
  return { skipRows, sample, judgeInWorker };
}

/**
 * A share of the call's passthrough bound for `file`, taken before its bytes are fetched or admitted again
 * (a permit's release is idempotent); undefined when the file will not be held to pass through.
 */
async function holdForPassthrough(
  input: PassthroughInput,
  file: FileView,
  passThrough: PassThrough,
): Promise<Permit | undefined> {
  if (!input.passthroughHeld || passThrough === "no" || file.size > (input.passthroughMaxBytes ?? 0)) {
    return undefined;
  }
  return input.passthroughHeld.acquire(Math.ceil(file.size / 1024), { signal: input.read.signal });
}

/** `file` in one GET (fetchWholeFile) when it is within the passthrough limit; else undefined. */
function fetchWhole(input: PassthroughInput, file: FileView): Promise<WholeFile | undefined> {
  if (file.size > (input.passthroughMaxBytes ?? 0)) return Promise.resolve(undefined);
  // A small file's whole GET is the small-file single GET: off, the file is read as before it existed.
  if (file.size <= SMALL_FILE_MAX_BYTES && !requestSwitchOn("smallFileSingleGet")) {
    return Promise.resolve(undefined);
  }
  return fetchLiveFile(input.store, file, input.read);
}

/**
 * The bytes of `file` the probe handed over (footer-handoff.ts), admitted again under the call's fetch
 * budget before they are read (the probe gave its admission back when it closed the file).
 */
async function admitHanded(input: PassthroughInput, file: FileView, bytes: Uint8Array): Promise<WholeFile> {
  const admission = input.read.admission;
  const release = admission ? await admission.admitFetch(file.size, input.read.signal) : () => undefined;
  input.read.observer?.fetchHandedOver?.(file.size);
  return { bytes, release };
}

/** Rows of the encoded key batches `handed`. */
function handedRowCount(handed: readonly EncodedKeys[]): number {
  return handed.reduce((n, keys) => n + keys.length, 0);
}

/**
 * The file's rows the source replaces or deletes, ascending: from the native engine's encoded keys where it
 * gives them, else from a read of its key columns alone.
 */
async function rowsToSkip(
  reader: ParquetReader,
  file: FileView,
  keys: HitFileKeys,
  input: PassthroughInput,
): Promise<Int32Array> {
  const native = await keys.native?.(reader);
  if (native) {
    try {
      return skipped(native.encoded.map((batch) => keys.matchKeys(batch)));
    } finally {
      native.release();
    }
  }
  const fields = input.dataSchema.fields.filter((field) => keys.columns.includes(field.name));
  const matched: BatchMatch[] = [];
  let row = 0;
  for await (const batch of readLiveFile(reader, file, { fields }, input.read)) {
    matched.push(keys.match(batch, row));
    row += batch.numRows;
  }
  return skipped(matched);
}

/**
 * The first decoded batch of the columns the writer's dictionary policy judges (parquet-stream
 * `judgedFields`), less the rows the rewrite drops (`skipRows`, ascending file row numbers): the JS path's
 * writer judges its first batch of kept rows, so a batch whose rows are all dropped is passed over as there.
 * Undefined when the table has no judged column (nothing to judge).
 */
async function policySample(
  reader: ParquetReader,
  file: FileView,
  skipRows: Int32Array,
  input: PassthroughInput,
): Promise<RecordBatch | undefined> {
  const fields = judgedFields(input.dataSchema);
  if (fields.length === 0) return undefined;
  let row = 0;
  let next = 0;
  for await (const batch of readLiveFile(reader, file, { fields }, input.read)) {
    const keep: number[] = [];
    for (let i = 0; i < batch.numRows; i++, row++) {
      if (next < skipRows.length && skipRows[next] === row) next++;
      else keep.push(i);
    }
    if (keep.length === 0) continue;
    return keep.length === batch.numRows ? batch : takeRows(batch, Int32Array.from(keep));
  }
  return undefined;
}

/** The replaced and deleted rows of consecutive batch matches, ascending, numbered from the first batch's first row. */
function skipped(matched: readonly BatchMatch[]): Int32Array {
  const skip: number[] = [];
  let row = 0;
  for (const { keys, drop, replaced, gone, deleted } of matched) {
    // Both lists ascend: merge them.
    let d = 0;
    let g = 0;
    while (d < replaced || g < deleted) {
      const next = g >= deleted || (d < replaced && (drop[d] as number) < (gone?.[g] as number));
      skip.push(row + (next ? (drop[d++] as number) : (gone?.[g++] as number)));
    }
    row += keys.length;
  }
  return Int32Array.from(skip);
}
