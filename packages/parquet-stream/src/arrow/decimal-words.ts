/**
 * Arrow's 128-bit decimals as four little-endian 32-bit words per slot: the one reader (a slot's signed
 * unscaled value as a bigint) and writer of those words, for the readers, the scan filter, partition
 * values, casts and the JSON encoder.
 */

/** The signed 128-bit unscaled value of decimal slot `index`. */
export function decimal128At(words: Uint32Array, index: number): bigint {
  const at = index * 4;
  const value =
    BigInt(words[at]!) |
    (BigInt(words[at + 1]!) << 32n) |
    (BigInt(words[at + 2]!) << 64n) |
    (BigInt(words[at + 3]!) << 96n);
  return BigInt.asIntN(128, value);
}

/** Stores `value` (signed, wrapped to 128 bits) as decimal slot `index`. */
export function setDecimal128(words: Uint32Array, index: number, value: bigint): void {
  const u = BigInt.asUintN(128, value);
  const at = index * 4;
  for (let k = 0; k < 4; k++) words[at + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
}
