/**
 * The exact probe: reads only the key columns of a candidate file, row group by row group, and answers
 * whether any of its keys is in the partition's source key set (stopping at the first hit). A file that
 * lacks a key column holds only NULL keys there, which never match. While it reads, it collects the file's
 * key hashes for the probe cache; a file read to the end without a hit is cached (a file with a hit is about
 * to be removed, so its collection is dropped). A file with a hit hands its parsed footer to the rewrite
 * (`FooterHandoff`), which then opens it without a footer GET, and the key hashes it computed
 * (`HashHandoff`), which the rewrite then does not compute again. A single string or binary key column is
 * probed by the native engine (value hashes and values, decoded off this thread), which also says whether a
 * row group holds a source key's hash (given the partition's source key hashes): a row group that does is
 * matched exactly on its values, so the column is decoded in JavaScript only where the native engine cannot
 * (parquet-wasm, a reader opened from a parsed footer, another column kind). On a local
 * store the native engine reads such a file from its path (`probedInPlace`): this thread then neither reads
 * the file nor parses its footer unless a key hits. The rewrite encodes a passed-through file's keys the same
 * way when the probe handed over none of them (`nativelyEncodedKeys`).
 */
import {
  type LiveFileReadContext,
  openLiveFile,
  openLocalKeyColumn,
  readLiveFile,
} from "@deltalite/data-files";
import { type FileView, requestSwitchOn } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type ColumnValueHashes, conformData, type ParquetReader } from "@deltalite/parquet-stream";
import type { HashCollection } from "@deltalite/probe-cache";
import { type Data, DataType, type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import { type EncodedKeys, encodeKeys } from "../keys/encode-keys.js";
import { defaultKeyHasher, KEY_HASH_SEED, type KeyHasher } from "../keys/key-hasher.js";
import type { SourceKeySet } from "../keys/source-key-set.js";
import { footerHandoff } from "./footer-handoff.js";
import { type HashKeeper, hashHandoff } from "./hash-handoff.js";

/**
 * Whether the probe may first ask the native engine for the key column's value hashes: one string or binary
 * key column (its canonical bytes are the value's bytes, encode-keys.ts) hashed by the default hasher itself
 * (an injected hasher is always called, whatever its id).
 */
function hashesSuffice(keys: SourceKeySet, keySchema: Schema, hasher: KeyHasher): boolean {
  const type = keySchema.fields[0]?.type;
  return (
    keys.columns.length === 1 &&
    keySchema.fields.length === 1 &&
    !keys.nullSafe &&
    hasher === defaultKeyHasher &&
    type !== undefined &&
    (DataType.isUtf8(type) || DataType.isBinary(type))
  );
}

/** A file's single key column as the native engine hashes it, a row group at a time. */
interface KeyColumnHashes {
  numRowGroups: number;
  /** How conversion errors name the file. */
  label: string;
  valueHashes(rowGroup: number, withValues: boolean): Promise<ColumnValueHashes | undefined>;
}

/** The column of a reader the probe opened, its hashes asked against `sourceHashes`. */
function readerKeyColumn(
  reader: ParquetReader,
  field: Field,
  signal: AbortSignal | undefined,
  sourceHashes: Uint8Array,
): KeyColumnHashes {
  return {
    numRowGroups: reader.numRowGroups,
    label: reader.key,
    valueHashes: (g, withValues) =>
      reader.valueHashes(g, field.name, KEY_HASH_SEED, signal, withValues, sourceHashes),
  };
}

/**
 * The probe of a file by the native engine's value hashes of the single key column, row group by row group,
 * asked against the partition's source key hashes (the engine's `mayHit`; a row group it gives no answer for
 * counts as one that may hit): a row group with a source key's hash is decoded natively again with its
 * values, and its keys are matched exactly on them (a collision is no hit), so the column is never decoded in
 * JavaScript. Only such a row
 * group brings its values (a file without a source key's hash brings none: at 4M rows asking every row
 * group for its values cost 20 MB of peak RSS). The hashes go to the probe cache, and to the rewrite's
 * handoff with the encoded keys of the row group that hit (those of a file whose hit is past its first row
 * group are not handed: the rewrite reads them). True on a hit (`handOver` then hands the footer over),
 * false when no row group holds a source key (the collection committed), undefined when the native engine
 * cannot give a row group: the caller reads the column itself (the collection aborted if this probe had added
 * to it).
 */
async function probedByValueHashes(
  column: KeyColumnHashes,
  field: Field,
  keys: SourceKeySet,
  context: LiveFileReadContext,
  collection: HashCollection | undefined,
  hasher: KeyHasher,
  handOver: (keeper: HashKeeper) => Promise<true>,
): Promise<boolean | undefined> {
  const keeper = hashHandoff(context).keeper();
  // The native engine cannot give a row group: nothing half-collected may be cached.
  const unavailable = (collected: boolean) => {
    if (collected) collection?.abort();
    return undefined;
  };
  try {
    for (let g = 0; g < column.numRowGroups; g++) {
      const hashes = await column.valueHashes(g, false);
      if (hashes === undefined) return unavailable(g > 0);
      collection?.add(hashes.hashWords, hashes.nulls);
      if (hashes.mayHit === false) {
        keeper.add(hashes.hashWords);
        keeper.own(hashes.release); // read by the keeper alone from here on
        continue;
      }
      const withValues = await column.valueHashes(g, true);
      if (withValues?.values === undefined) {
        hashes.release();
        return unavailable(true);
      }
      const encoded = encodedValues(column.label, field, withValues.values, hashes.hashWords, keys, hasher);
      // The engine's hit rows (every row whose hash is a source key's) are the only ones asked, here and later.
      keeper.add(hashes.hashWords, encoded, withValues.hitRows);
      const hit = keys.containsAny(encoded, withValues.hitRows);
      keeper.own(hashes.release);
      keeper.own(withValues.release); // the kept keys are read from its values
      if (hit) {
        collection?.abort();
        return await handOver(keeper);
      }
    }
    collection?.commit();
    return false;
  } finally {
    keeper.drop(); // nothing left after handTo
  }
}

/**
 * The probe of a file of a local store by the native engine from the file's path (data-files'
 * openLocalKeyColumn): this thread neither reads the file nor parses its footer, unless a key hits (the
 * file is then opened to hand its footer to the rewrite). Undefined when the file cannot be probed so: the
 * caller opens it and probes it the usual way.
 */
async function probedInPlace(
  store: ObjectStore,
  file: FileView,
  keys: SourceKeySet,
  field: Field,
  context: LiveFileReadContext,
  collection: HashCollection | undefined,
  hasher: KeyHasher,
  sourceHashes: Uint8Array,
): Promise<boolean | undefined> {
  const local = await openLocalKeyColumn(store, file, field.name, context, KEY_HASH_SEED, sourceHashes);
  if (local === undefined) return undefined;
  if (local === null) {
    collection?.commit(); // no non-NULL key at all: an empty set
    return false;
  }
  const column: KeyColumnHashes = {
    numRowGroups: local.numRowGroups,
    label: file.path,
    valueHashes: (g, withValues) => local.valueHashes(g, KEY_HASH_SEED, withValues),
  };
  return probedByValueHashes(column, field, keys, context, collection, hasher, async (keeper) => {
    const reader = await openLiveFile(store, file, context);
    try {
      return handOverHit(reader, file, context, keeper);
    } finally {
      reader.close();
    }
  });
}

/**
 * A file with a source key (its hash collection already dropped: the file is about to be removed): its footer
 * (and a small file's bytes) and the key hashes kept so far handed to the rewrite.
 */
function handOverHit(
  reader: ParquetReader,
  file: FileView,
  context: LiveFileReadContext,
  keeper: HashKeeper,
): true {
  const whole = requestSwitchOn("smallFileSingleGet") ? reader.wholeFileBytes() : undefined;
  footerHandoff(context).offer(file, reader.metadata, whole);
  keeper.handTo(file);
  return true;
}

/** The keys of one row group encoded from the native engine's values and hashes of its single key column. */
function encodedValues(
  label: string,
  field: Field,
  values: Data,
  hashWords: Uint32Array,
  keys: SourceKeySet,
  hasher: KeyHasher,
): EncodedKeys {
  const batch = keyBatch(field, conformData(values, field.type, `${label}: column ${field.name}`));
  return encodeKeys(batch, keys.columns, { hasher, hashWords });
}

/** A file's encoded keys read from the native engine's buffers, and the release of those buffers. */
export interface NativeEncodedKeys {
  encoded: EncodedKeys[];
  /** Frees the buffers (ColumnValueHashes.release): call it once nothing reads `encoded` any more. */
  release(): void;
}

/**
 * The encoded keys of all of a file's rows, row group by row group in read order, from the native engine's
 * values and hashes of its single key column, as the probe encodes a row group that may hit (the rewrite's
 * match of a passed-through file whose keys the probe did not hand over); undefined when the key is not one
 * the native hashes serve, or the engine cannot give a row group: the caller decodes the column itself.
 */
export async function nativelyEncodedKeys(
  reader: ParquetReader,
  keys: SourceKeySet,
  keySchema: Schema,
  hasher: KeyHasher,
  signal: AbortSignal | undefined,
): Promise<NativeEncodedKeys | undefined> {
  if (!hashesSuffice(keys, keySchema, hasher)) return undefined;
  const field = keySchema.fields[0] as Field;
  const present = reader.arrowSchema.fields.find((f) => f.name === field.name);
  if (present === undefined) return undefined;
  const encoded: EncodedKeys[] = [];
  const given: ColumnValueHashes[] = [];
  const release = (): undefined => {
    for (const hashes of given) hashes.release();
  };
  try {
    for (let g = 0; g < reader.numRowGroups; g++) {
      const hashes = await reader.valueHashes(g, field.name, KEY_HASH_SEED, signal, true);
      if (hashes === undefined) return release();
      given.push(hashes);
      if (hashes.values === undefined) return release();
      encoded.push(encodedValues(reader.key, field, hashes.values, hashes.hashWords, keys, hasher));
    }
  } catch (error) {
    release();
    throw error;
  }
  return { encoded, release };
}

/** A one-column batch of `data` under `field`. */
function keyBatch(field: Field, data: Data): RecordBatch {
  const struct = makeData({ type: new Struct([field]), length: data.length, nullCount: 0, children: [data] });
  return new RecordBatch(new Schema([field]), struct);
}

/**
 * Whether `file` holds a key of `keys` (module comment). `sourceHashes`: the hashes of the set's keys (8
 * little-endian bytes each, ProbeKeys' words) for the native engine's value-hash probe; undefined: the key
 * columns are read and matched here (`UpsertOptions.valueHashProbe: false`).
 */
export async function fileHoldsSourceKey(
  store: ObjectStore,
  file: FileView,
  keys: SourceKeySet,
  keySchema: Schema,
  context: LiveFileReadContext,
  collection: HashCollection | undefined,
  hasher: KeyHasher,
  sourceHashes: Uint8Array | undefined,
): Promise<boolean> {
  if (keys.size === 0) {
    collection?.abort();
    return false;
  }
  const byHashes = sourceHashes !== undefined && hashesSuffice(keys, keySchema, hasher);
  const field = keySchema.fields[0] as Field;
  if (byHashes) {
    const probed = await probedInPlace(
      store,
      file,
      keys,
      field,
      context,
      collection,
      hasher,
      sourceHashes,
    ).catch((error: unknown) => {
      collection?.abort();
      throw error;
    });
    if (probed !== undefined) return probed;
  }
  const reader = await openLiveFile(store, file, context);
  let keeper: HashKeeper | undefined;
  try {
    const present = new Set(reader.arrowSchema.fields.map((f) => f.name));
    if (!keySchema.fields.every((f) => present.has(f.name))) {
      collection?.commit(); // no non-NULL key at all: an empty set
      return false;
    }
    if (byHashes) {
      const column = readerKeyColumn(reader, field, context.signal, sourceHashes);
      const probed = await probedByValueHashes(
        column,
        field,
        keys,
        context,
        collection,
        hasher,
        async (kept) => handOverHit(reader, file, context, kept),
      );
      if (probed !== undefined) return probed;
    }
    // The probe reads ahead the reader's default (one row group), whatever the rewrite's knob says.
    const probeContext = { ...context, knobs: { ...context.knobs, readAheadRowGroups: undefined } };
    const batches: AsyncGenerator<RecordBatch> = readLiveFile(
      reader,
      file,
      { fields: keySchema.fields },
      probeContext,
    );
    // This file's hashes so far, for the rewrite if a key hits (within the handoff's bound).
    keeper = hashHandoff(context).keeper();
    for await (const batch of batches) {
      const encoded = encodeKeys(batch, keys.columns, { hasher });
      const words = encoded.hashWords.subarray(0, 2 * encoded.length);
      collection?.add(words, encoded.nullKeys);
      keeper.add(words, encoded);
      if (keys.containsAny(encoded)) {
        await batches.return(undefined);
        collection?.abort();
        return handOverHit(reader, file, context, keeper);
      }
    }
    collection?.commit();
    return false;
  } catch (error) {
    collection?.abort();
    throw error;
  } finally {
    keeper?.drop(); // nothing left after handTo
    reader.close();
  }
}
