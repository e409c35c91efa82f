/**
 * An ObjectStore object as hyparquet's AsyncBuffer: the size comes from the caller (the Add action's
 * `size`), so opening a file costs no HEAD request; every slice is one ranged GET.
 */
import type { ObjectStore } from "@deltalite/object-store";
import type { AsyncBuffer } from "hyparquet";

export interface ByteSourceOptions {
  signal?: AbortSignal | undefined;
}

/** Wraps `store`/`key` of a known `size` as an AsyncBuffer. */
export function storeByteSource(
  store: ObjectStore,
  key: string,
  size: number,
  options: ByteSourceOptions = {},
): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const bytes = await store.get(key, { range: { start, end: end ?? size }, signal: options.signal });
      return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? (bytes.buffer as ArrayBuffer)
        : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    },
  };
}
