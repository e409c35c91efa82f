/**
 * Whole-file reads into plain row objects, for small files such as Delta checkpoints, where each row is
 * one action and nested structs are wanted as objects. Data files go through the Arrow reader instead.
 */
import type { ObjectStore } from "@deltalite/object-store";
import { parquetReadObjects } from "hyparquet";
import { storeByteSource } from "./byte-source.js";
import { readerCompressors } from "./decompressors.js";

export interface ReadObjectsOptions {
  /** Object size in bytes; a HEAD request finds it when omitted. */
  size?: number | undefined;
  /** Top-level columns to read (all when omitted). */
  columns?: string[] | undefined;
  signal?: AbortSignal | undefined;
}

/** Reads every row of a Parquet object as a plain object (int64 as bigint, nested structs as objects). */
export async function readParquetObjects(
  store: ObjectStore,
  key: string,
  options: ReadObjectsOptions = {},
): Promise<Record<string, unknown>[]> {
  const size = options.size ?? (await store.head(key, { signal: options.signal })).size;
  const file = storeByteSource(store, key, size, { signal: options.signal });
  return parquetReadObjects({
    file,
    compressors: await readerCompressors(),
    ...(options.columns ? { columns: options.columns } : {}),
  }) as Promise<Record<string, unknown>[]>;
}
