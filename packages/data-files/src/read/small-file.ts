/**
 * The small-file single GET (`DELTALITE_SMALL_FILE_SINGLE_GET`, on by default): a data file whose Add says it
 * is at most 64 KiB is fetched whole in one GET, under a fetch admission for the whole file, and its reader
 * serves the footer and every column chunk from those bytes. The size is the Add's (never a HEAD); bytes of
 * another length are dropped and the file is opened the usual way (the hinted footer GET), as it is with the
 * switch off or when the caller already has the file's footer.
 */
import type { FileView } from "@deltalite/delta-log";
import { requestSwitchOn } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import type { OpenParquetReaderOptions, ParquetReader } from "@deltalite/parquet-stream";
import { fetchWholeFile, readerOverBytes } from "./whole-file.js";

/** The largest file (by its Add size) read in one GET: the footer hint, 64 KiB. */
export const SMALL_FILE_MAX_BYTES = 64 * 1024;

/** Whether `file` is read with one whole-file GET (switch on, small by its Add, no footer at hand). */
export function readsInOneGet(file: FileView, hasFooter: boolean): boolean {
  return !hasFooter && file.size <= SMALL_FILE_MAX_BYTES && requestSwitchOn("smallFileSingleGet");
}

/**
 * Opens `file` from one whole-file GET; undefined when the object's length is not the Add's size (nothing is
 * then held: the caller opens it the usual way).
 */
export async function openSmallFile(
  store: ObjectStore,
  file: FileView,
  options: OpenParquetReaderOptions,
): Promise<ParquetReader | undefined> {
  const whole = await fetchWholeFile(store, file, options);
  if (!whole) return undefined;
  try {
    return await readerOverBytes(store, file, options, whole);
  } catch (error) {
    whole.release();
    throw error;
  }
}
