/**
 * A data file fetched whole in one GET and read from memory: the GET is taken under a fetch admission for the
 * file's size (its Add's, never a HEAD), and a reader over those bytes serves the footer and every column
 * chunk without another request. Used by the small-file single GET (small-file.ts) and by engines that pass
 * a file's bytes on to the encoder worker after reading a few of its columns (the upsert's rewrite).
 */
import type { FileView } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import {
  DEFAULT_RANGE_GET_CONCURRENCY,
  DEFAULT_RANGE_GET_PART_SIZE_BYTES,
  fetchRanges,
  type OpenParquetReaderOptions,
  type ParquetMetadata,
  ParquetReader,
  parquetFooterOfBytes,
  type Release,
  readerCompressors,
} from "@deltalite/parquet-stream";

/** A whole file's bytes and the release of the admission they were fetched under. */
export interface WholeFile {
  bytes: Uint8Array;
  release: Release;
}

/**
 * `file` under a fetch admission for its size: in one GET, or, above `rangeGetPartSizeBytes`, in parallel
 * ranged GETs of that size (as the reader fetches a large row group); undefined, with nothing held, when the
 * object's length is not the Add's size.
 */
export async function fetchWholeFile(
  store: ObjectStore,
  file: FileView,
  options: Pick<
    OpenParquetReaderOptions,
    "admission" | "signal" | "rangeGetPartSizeBytes" | "rangeGetConcurrency"
  >,
): Promise<WholeFile | undefined> {
  const admission = options.admission;
  const release = admission ? await admission.admitFetch(file.size, options.signal) : () => undefined;
  try {
    const partSize = options.rangeGetPartSizeBytes ?? DEFAULT_RANGE_GET_PART_SIZE_BYTES;
    const bytes =
      file.size <= partSize
        ? await store.get(file.path, { signal: options.signal })
        : (
            (await fetchRanges(store, file.path, [{ start: 0, end: file.size }], {
              partSizeBytes: partSize,
              concurrency: options.rangeGetConcurrency ?? DEFAULT_RANGE_GET_CONCURRENCY,
              coalesceGapBytes: 0,
              signal: options.signal,
            })) as [Uint8Array]
          )[0];
    if (bytes.length === file.size) return { bytes, release };
    release();
    return undefined;
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * A reader of `file` served from `whole.bytes` (footer parsed from them unless `metadata` is given); closing
 * it calls `whole.release`.
 */
export async function readerOverBytes(
  store: ObjectStore,
  file: FileView,
  options: OpenParquetReaderOptions,
  whole: WholeFile,
  metadata?: ParquetMetadata,
): Promise<ParquetReader> {
  const footer = metadata ?? parquetFooterOfBytes(whole.bytes, file.path);
  return new ParquetReader(store, file.path, options, footer, await readerCompressors(), {
    bytes: whole.bytes,
    start: 0,
    release: whole.release,
  });
}
