/**
 * Reads and parses a Parquet footer from an ObjectStore with a size hint: one ranged GET of the last
 * `footerHintBytes` when the footer fits in it, a second GET of exactly the missing bytes when it does not.
 * The size comes from the caller (the Add action), so no HEAD is made.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import { type FileMetaData, parquetMetadata } from "hyparquet";

export const DEFAULT_FOOTER_HINT_BYTES = 65536;

export interface ReadFooterOptions {
  /** Object size in bytes (from the Add action). */
  size: number;
  /** Bytes read from the end of the file by the first GET (default 64 KiB). */
  footerHintBytes?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Footer statistics keep their raw values: bigint timestamps, day numbers, bytes for strings. */
const RAW_STAT_PARSERS = {
  timestampFromMilliseconds: (v: bigint) => v,
  timestampFromMicroseconds: (v: bigint) => v,
  timestampFromNanoseconds: (v: bigint) => v,
  dateFromDays: (v: number) => v,
};

/** Reads the footer of `key` (of known `size`) and returns hyparquet's parsed FileMetaData. */
export async function readParquetFooter(
  store: ObjectStore,
  key: string,
  options: ReadFooterOptions,
): Promise<FileMetaData> {
  return (await readFooterAndTail(store, key, options)).metadata;
}

/** The footer plus the tail bytes the first GET brought back (`tailStart` = their offset in the file). */
export async function readFooterAndTail(
  store: ObjectStore,
  key: string,
  options: ReadFooterOptions,
): Promise<{ metadata: FileMetaData; tail: Uint8Array; tailStart: number }> {
  const { size, signal } = options;
  const hint = Math.max(options.footerHintBytes ?? DEFAULT_FOOTER_HINT_BYTES, 8);
  if (!Number.isSafeInteger(size) || size < 12) {
    throw new DeltaLiteError("generic", `Parquet file ${key} is too small (${size} bytes) to be Parquet`);
  }
  const first = Math.min(hint, size);
  const tail = await store.get(key, { range: { start: size - first, end: size }, signal });
  if (tail.length !== first) {
    throw new DeltaLiteError(
      "generic",
      `Parquet file ${key}: read ${tail.length} footer bytes, expected ${first} (is the size ${size} right?)`,
    );
  }
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  if (view.getUint32(first - 4, true) !== 0x31524150) {
    throw new DeltaLiteError("generic", `Parquet file ${key} does not end with the PAR1 magic`);
  }
  const footerLength = view.getUint32(first - 8, true) + 8;
  if (footerLength > size - 4) {
    throw new DeltaLiteError(
      "generic",
      `Parquet file ${key} declares a ${footerLength}-byte footer in ${size} bytes`,
    );
  }
  let footer: Uint8Array;
  if (footerLength <= first) {
    footer = tail.subarray(first - footerLength);
  } else {
    const missing = await store.get(key, {
      range: { start: size - footerLength, end: size - first },
      signal,
    });
    footer = new Uint8Array(footerLength);
    footer.set(missing, 0);
    footer.set(tail, footerLength - first);
  }
  try {
    const metadata = parquetMetadata(footer, { parsers: RAW_STAT_PARSERS, geoparquet: false });
    return { metadata, tail, tailStart: size - first };
  } catch (error) {
    throw new DeltaLiteError(
      "generic",
      `cannot parse the Parquet footer of ${key}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
