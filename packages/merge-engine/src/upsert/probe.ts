/**
 * The exact probe: reads only the key columns of a candidate file, row group by row group, and answers
 * whether any of its keys is in the partition's source key set (stopping at the first hit). A file that
 * lacks a key column holds only NULL keys there, which never match. While it reads, it collects the file's
 * key hashes for the probe cache; a file read to the end without a hit is cached (a file with a hit is about
 * to be removed, so its collection is dropped). A file with a hit hands its parsed footer to the rewrite
 * (`FooterHandoff`), which then opens it without a footer GET, and the key hashes it computed
 * (`HashHandoff`), which the rewrite then does not compute again.
 */
import { type LiveFileReadContext, openLiveFile, readLiveFile } from "@deltalite/data-files";
import { type FileView, requestSwitchOn } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import type { ParquetReader } from "@deltalite/parquet-stream";
import type { HashCollection } from "@deltalite/probe-cache";
import { DataType, type RecordBatch, type Schema } from "apache-arrow";
import { encodeKeys } from "../keys/encode-keys.js";
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

/**
 * Every row group's value hashes of the single key column when none is a source key's hash: the file holds
 * no source key. Undefined when one is (a key in common, or a collision: the exact probe decides), or when
 * the native engine cannot give them (the exact probe reads the column).
 */
async function missedByValueHashes(
  reader: ParquetReader,
  keys: SourceKeySet,
  signal: AbortSignal | undefined,
): Promise<{ hashWords: Uint32Array; nulls: Uint8Array | undefined }[] | undefined> {
  const column = keys.columns[0] as string;
  const groups: { hashWords: Uint32Array; nulls: Uint8Array | undefined }[] = [];
  for (let g = 0; g < reader.numRowGroups; g++) {
    const hashes = await reader.valueHashes(g, column, KEY_HASH_SEED, signal);
    if (hashes === undefined || keys.mayHoldAnyHash(hashes.hashWords, hashes.nulls)) return undefined;
    groups.push(hashes);
  }
  return groups;
}

export async function fileHoldsSourceKey(
  store: ObjectStore,
  file: FileView,
  keys: SourceKeySet,
  keySchema: Schema,
  context: LiveFileReadContext,
  collection: HashCollection | undefined,
  hasher: KeyHasher,
  valueHashes = true,
): Promise<boolean> {
  if (keys.size === 0) {
    collection?.abort();
    return false;
  }
  const reader = await openLiveFile(store, file, context);
  let keeper: HashKeeper | undefined;
  try {
    const present = new Set(reader.arrowSchema.fields.map((f) => f.name));
    if (!keySchema.fields.every((f) => present.has(f.name))) {
      collection?.commit(); // no non-NULL key at all: an empty set
      return false;
    }
    if (valueHashes && hashesSuffice(keys, keySchema, hasher)) {
      const missed = await missedByValueHashes(reader, keys, context.signal);
      if (missed !== undefined) {
        for (const { hashWords, nulls } of missed) collection?.add(hashWords, nulls);
        collection?.commit();
        return false;
      }
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
        const whole = requestSwitchOn("smallFileSingleGet") ? reader.wholeFileBytes() : undefined;
        footerHandoff(context).offer(file, reader.metadata, whole);
        keeper.handTo(file);
        return true;
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
