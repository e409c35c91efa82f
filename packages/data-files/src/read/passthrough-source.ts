/**
 * Where the encoder worker reads a data file passed through the writer from, when it need not be fetched:
 * the file itself, in place, when the store is a local directory (`ObjectStore.localPath`) and this process
 * runs the native Parquet engine, which reads the file's pages from its path as it decodes them. Nothing of
 * the file is then fetched, held or admitted: a passed-through file costs the memory of the batch being
 * decoded, whatever its size (fetched whole, a file was held until the worker had decoded it, so memory grew
 * with the table's file size). One HEAD first: a file the log names but storage lacks fails here with the
 * reader's own `not_found` (likely vacuumed), and a file of another length than its Add's is not read in
 * place (the caller reads it the usual way, as it does a fetched file of the wrong length). Elsewhere
 * (object stores, parquet-wasm) engines fetch the file whole.
 */
import type { FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type PassthroughSource, parquetEngineName } from "@deltalite/parquet-stream";
import { type LiveFileReadContext, missingFileError } from "./live-file.js";

/** `file` read in place from its local path (module comment); undefined when it must be fetched. */
export async function localPassthroughSource(
  store: ObjectStore,
  file: FileView,
  context: Pick<LiveFileReadContext, "version" | "signal">,
): Promise<PassthroughSource | undefined> {
  if (store.localPath === undefined || parquetEngineName() !== "native") return undefined;
  const path = store.localPath(file.path);
  const meta = await store
    .head(file.path, { signal: context.signal })
    .catch((error: unknown) => Promise.reject(missingFileError(error, store.root, file, context)));
  return meta.size === file.size ? { path, size: file.size } : undefined;
}
