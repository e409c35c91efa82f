/** Small helpers over the ObjectStore interface that callers and tests share. */
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
