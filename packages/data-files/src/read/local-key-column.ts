/**
 * One byte-array column of a data file hashed in place, from its local path, by the native engine (parquet-
 * stream's openLocalColumnHashes), when the store is a local directory (`ObjectStore.localPath`): nothing of
 * the file is read or parsed on the JavaScript thread. Elsewhere (object stores, parquet-wasm, a key the store
 * refuses, a file that cannot be read as its Add says) the answer is undefined and the caller opens the file
 * with openLiveFile, which reads it the usual way and reports what is wrong in its own words.
 */
import type { FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type LocalColumnHashes, openLocalColumnHashes } from "@deltalite/parquet-stream";
import type { LiveFileReadContext } from "./live-file.js";

/**
 * Column `column` of `file` hashed in place (module comment): null when the file stores no top-level column
 * of that name, undefined when it cannot be read in place. `firstSeed`: the seed its first row group's hashes
 * will be asked under, so that a small file whose Add counts its rows has them hashed with its layout
 * (parquet-stream's openLocalColumnHashes). `probe`: a source's key hashes (8 little-endian bytes each), each
 * row group's hashes then saying whether a row has one of them (`mayHit`).
 */
export async function openLocalKeyColumn(
  store: ObjectStore,
  file: FileView,
  column: string,
  context: Pick<LiveFileReadContext, "admission" | "signal">,
  firstSeed?: bigint,
  probe?: Uint8Array,
): Promise<LocalColumnHashes | null | undefined> {
  if (store.localPath === undefined) return undefined;
  let path: string;
  try {
    path = store.localPath(file.path);
  } catch {
    return undefined; // a key the store refuses: openLiveFile says so
  }
  const rows = file.stats?.numRecords;
  const counted = typeof rows === "number" && Number.isSafeInteger(rows) && rows >= 0;
  return openLocalColumnHashes(path, file.size, column, {
    admission: context.admission,
    signal: context.signal,
    first: firstSeed !== undefined && counted ? { seed: firstSeed, rows } : undefined,
    probe,
  });
}
