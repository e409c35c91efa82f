/**
 * The exact probe: reads only the key columns of a candidate file, row group by row group, and answers
 * whether any of its keys is in the partition's source key set (stopping at the first hit). A file that
 * lacks a key column holds only NULL keys there, which never match.
 */
import type { FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import type { RecordBatch, Schema } from "apache-arrow";
import { encodeKeys } from "../keys/encode-keys.js";
import type { SourceKeySet } from "../keys/source-key-set.js";
import { openFile, type ReadKnobs, readConformed } from "./file-batches.js";

export async function fileHoldsSourceKey(
  store: ObjectStore,
  file: FileView,
  keys: SourceKeySet,
  keySchema: Schema,
  batchRows: number,
  knobs: ReadKnobs,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (keys.size === 0) return false;
  const reader = await openFile(store, file, knobs, signal);
  const present = new Set(reader.arrowSchema.fields.map((f) => f.name));
  if (!keySchema.fields.every((f) => present.has(f.name))) return false;
  const batches: AsyncGenerator<RecordBatch> = readConformed(reader, keySchema, batchRows, signal);
  for await (const batch of batches) {
    if (keys.containsAny(encodeKeys(batch, keys.columns))) {
      await batches.return(undefined);
      return true;
    }
  }
  return false;
}

/** Runs `task` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
