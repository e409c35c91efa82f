/**
 * Where the encoder worker reads a data file passed through the writer from, when it need not be fetched:
 * the file itself, in place, when the store is a local directory (`ObjectStore.localPath`) and this process
 * runs the native Parquet engine, which reads the file's pages from its path as it decodes them. Nothing of
 * the file is then fetched, held or admitted: a passed-through file costs the memory of the batch being
 * decoded, whatever its size (fetched whole, a file was held until the worker had decoded it, so memory grew
 * with the table's file size). Elsewhere (object stores, parquet-wasm) engines fetch the file whole.
 */
import type { FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { type PassthroughSource, parquetEngineName } from "@deltalite/parquet-stream";

/** `file` read in place from its local path (module comment); undefined when it must be fetched. */
export function localPassthroughSource(store: ObjectStore, file: FileView): PassthroughSource | undefined {
  if (store.localPath === undefined || parquetEngineName() !== "native") return undefined;
  return { path: store.localPath(file.path), size: file.size };
}
