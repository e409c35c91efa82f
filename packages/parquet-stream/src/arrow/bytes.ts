/** Owns `bytesOf`: the bytes of a typed array's own range, as a view (nothing copied). */

/** The first `byteLength` bytes (all by default) of `view`'s range; an empty array for none. */
export function bytesOf(view: ArrayBufferView | undefined, byteLength = view?.byteLength ?? 0): Uint8Array {
  if (view === undefined || byteLength === 0) return new Uint8Array(0);
  return new Uint8Array(view.buffer, view.byteOffset, byteLength);
}
