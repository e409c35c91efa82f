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
import type { HashCollection } from "@deltalite/probe-cache";
import type { RecordBatch, Schema } from "apache-arrow";
import { encodeKeys } from "../keys/encode-keys.js";
import type { KeyHasher } from "../keys/key-hasher.js";
import type { SourceKeySet } from "../keys/source-key-set.js";
import { footerHandoff } from "./footer-handoff.js";
import { type HashKeeper, hashHandoff } from "./hash-handoff.js";

export async function fileHoldsSourceKey(
  store: ObjectStore,
  file: FileView,
  keys: SourceKeySet,
  keySchema: Schema,
  context: LiveFileReadContext,
  collection: HashCollection | undefined,
  hasher: KeyHasher,
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
