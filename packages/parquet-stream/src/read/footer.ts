/**
 * Reads and parses a Parquet footer from an ObjectStore with a size hint: one ranged GET of the last
 * `footerHintBytes` when the footer fits in it, a second GET of exactly the missing bytes when it does not.
 * The size comes from the caller (the Add action), so no HEAD is made.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import { type FileMetaData, parquetMetadata } from "hyparquet";
import type { ReadAdmission, Release } from "./admission.js";

export const DEFAULT_FOOTER_HINT_BYTES = 65536;

export interface ReadFooterOptions {
  /** Object size in bytes (from the Add action). */
  size: number;
  /** Bytes read from the end of the file by the first GET (default 64 KiB). */
  footerHintBytes?: number | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Asked before each footer GET. With it, the tail is kept only when it is the whole file (its admission is
   * handed back as `releaseTail`); a footer longer than the first GET is fetched whole in a second one, so no
   * byte is held without admission and no admission is held while waiting for another.
   */
  admission?: ReadAdmission | undefined;
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
  const { metadata, releaseTail } = await readFooterAndTail(store, key, options);
  releaseTail();
  return metadata;
}

/** The footer plus the tail bytes the first GET brought back (`tailStart` = their offset in the file). */
export interface FooterAndTail {
  metadata: FileMetaData;
  /** The footer's bytes with the file's 8-byte trailer (a copy: it outlives `tail`). */
  footer: Uint8Array;
  /** The bytes the first GET brought back, kept for serving column chunks (empty when not kept). */
  tail: Uint8Array;
  tailStart: number;
  /** Gives back the admission of `tail` (a no-op without admission). */
  releaseTail: Release;
}

const noRelease: Release = () => undefined;

/** Reads the footer with one GET of the last `footerHintBytes` (a second GET when the footer is longer). */
export async function readFooterAndTail(
  store: ObjectStore,
  key: string,
  options: ReadFooterOptions,
): Promise<FooterAndTail> {
  const admission = options.admission;
  if (admission === undefined) return { ...(await readTail(store, key, options)), releaseTail: noRelease };
  const first = Math.min(Math.max(options.footerHintBytes ?? DEFAULT_FOOTER_HINT_BYTES, 8), options.size);
  const release = await admission.admitFetch(first, options.signal);
  let result: Omit<FooterAndTail, "releaseTail">;
  try {
    result = await readTail(store, key, options, true);
  } catch (error) {
    release();
    if (!(error instanceof FooterBeyondTail)) throw error;
    const whole = await admission.admitFetch(error.footerLength, options.signal);
    try {
      const footer = await store.get(key, {
        range: { start: options.size - error.footerLength, end: options.size },
        signal: options.signal,
      });
      return {
        metadata: parseFooter(footer, key),
        footer,
        tail: new Uint8Array(0),
        tailStart: options.size,
        releaseTail: noRelease,
      };
    } finally {
      whole();
    }
  }
  if (result.tailStart === 0) return { ...result, releaseTail: release };
  release();
  return { ...result, tail: new Uint8Array(0), tailStart: options.size, releaseTail: noRelease };
}

/** Thrown by readTail (when asked) instead of a second GET: the footer is longer than the first read. */
class FooterBeyondTail extends Error {
  constructor(readonly footerLength: number) {
    super(`footer of ${footerLength} bytes`);
  }
}

async function readTail(
  store: ObjectStore,
  key: string,
  options: ReadFooterOptions,
  stopBeyondTail = false,
): Promise<Omit<FooterAndTail, "releaseTail">> {
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
  const footerLength = footerLengthOf(tail, size, key);
  let footer: Uint8Array;
  if (footerLength > first && stopBeyondTail) throw new FooterBeyondTail(footerLength);
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
  return { metadata: parseFooter(footer, key), footer: footer.slice(), tail, tailStart: size - first };
}

/** The footer's length with its 8-byte trailer, from the file's last bytes `tail` (magic and bounds checked). */
function footerLengthOf(tail: Uint8Array, size: number, key: string): number {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  if (tail.byteLength < 8 || view.getUint32(tail.byteLength - 4, true) !== 0x31524150) {
    throw new DeltaLiteError("generic", `Parquet file ${key} does not end with the PAR1 magic`);
  }
  const footerLength = view.getUint32(tail.byteLength - 8, true) + 8;
  if (footerLength > size - 4) {
    throw new DeltaLiteError(
      "generic",
      `Parquet file ${key} declares a ${footerLength}-byte footer in ${size} bytes`,
    );
  }
  return footerLength;
}

/** The footer of the whole Parquet file `bytes`, parsed as readParquetFooter parses it. */
export function parquetFooterOfBytes(bytes: Uint8Array, key: string): FileMetaData {
  return parseFooter(footerBytesOf(bytes, bytes.byteLength, key), key);
}

/** The footer with its trailer, from `end`: the last bytes of a file of `size` bytes (a view). */
export function footerBytesOf(end: Uint8Array, size: number, key: string): Uint8Array {
  const footerLength = footerLengthOf(end, size, key);
  if (footerLength > end.byteLength) {
    throw new DeltaLiteError("generic", `Parquet file ${key}: the footer lies beyond the bytes given`);
  }
  return end.subarray(end.byteLength - footerLength);
}

function parseFooter(footer: Uint8Array, key: string): FileMetaData {
  try {
    return parquetMetadata(footer, { parsers: RAW_STAT_PARSERS, geoparquet: false });
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
