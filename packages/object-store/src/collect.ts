/** Small helpers over the ObjectStore interface that callers and tests share. */
import { MessageChannel } from "node:worker_threads";
import type { ListOptions, ObjectMeta, ObjectStore } from "./types.js";

/** Drains a listing into an array. */
export async function listAll(
  store: ObjectStore,
  prefix: string,
  options?: ListOptions,
): Promise<ObjectMeta[]> {
  const out: ObjectMeta[] = [];
  for await (const meta of store.list(prefix, options)) out.push(meta);
  return out;
}

/** Normalises sync or async chunk sources into an async iterator. */
export async function* asAsync(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncIterable<Uint8Array> {
  yield* chunks;
}

/**
 * Frees the memory of `bytes` now, when they span their whole ArrayBuffer (a view of part of a larger buffer,
 * such as Node's pooled small Buffers, is left alone): the buffer is transferred into a message that is
 * never delivered, which detaches it here and frees it at once (a chunk put with `handOver` is released this
 * way once stored). Detached buffers also stop counting as the isolate's external memory, whose growth is
 * what triggers full collections: an upsert streaming 1.3 GB of output through the main thread ran 61
 * mark-compacts without it and 26 with it (merge-engine BENCHMARKS.md, session 17).
 */
export function releaseBytes(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength)
    return;
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(null, [buffer]);
  port1.close();
  port2.close();
}
