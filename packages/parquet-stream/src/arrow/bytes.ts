/** Owns the bit and byte views the Arrow kernels share: `bytesOf` (a typed array's bytes) and `copyBits`. */

/** The first `byteLength` bytes (all by default) of `view`'s range; an empty array for none. */
export function bytesOf(view: ArrayBufferView | undefined, byteLength = view?.byteLength ?? 0): Uint8Array {
  if (view === undefined || byteLength === 0) return new Uint8Array(0);
  return new Uint8Array(view.buffer, view.byteOffset, byteLength);
}

const bit = (bytes: Uint8Array, i: number) => (bytes[i >> 3]! >> (i & 7)) & 1;

/** Sets in `out` (from bit `at`) the set bits of `length` bits of `source` from bit `from`. */
export function copyBits(
  source: Uint8Array,
  from: number,
  out: Uint8Array,
  at: number,
  length: number,
): void {
  if ((from & 7) === 0 && (at & 7) === 0) {
    const whole = length >> 3;
    out.set(source.subarray(from >> 3, (from >> 3) + whole), at >> 3);
    for (let i = whole << 3; i < length; i++)
      if (bit(source, from + i)) out[(at + i) >> 3]! |= 1 << ((at + i) & 7);
    return;
  }
  for (let i = 0; i < length; i++) if (bit(source, from + i)) out[(at + i) >> 3]! |= 1 << ((at + i) & 7);
}
