/**
 * Owns the WebAssembly batch XXH64: xxh64.wat (compiled bytes in xxh64-wasm-bytes.ts) hashes every key of
 * a batch in one call with native 64-bit arithmetic, bit for bit equal to the JavaScript one in xxh64.ts.
 * Keys are copied into the module's fixed memory in chunks (at most CHUNK_KEYS keys, CHUNK_BYTES bytes),
 * so its memory never grows; a key longer than a chunk, offsets that are not an Int32Array, and every key
 * on a big-endian host are hashed by the JavaScript implementation. One instance per thread, made on first use. Measured against the JS
 * one, interleaved, copies in and out included (tools/bench/merge-engine/hash-bench.mjs, 1M keys, 2-core
 * VM, load 6–8, three runs): 8-byte words 3.9–4.6x, 16-byte strings 4.4–5.8x, 36-byte UUID strings 5.6–6.0x.
 */
import { type Seed64, xxh64Fixed, xxh64Ranges, xxh64Words8 } from "./xxh64.js";
import { XXH64_WASM_BASE64 } from "./xxh64-wasm-bytes.js";

/** Keys hashed per call into the module. */
const CHUNK_KEYS = 8192;
/** Key bytes copied in per call. */
const CHUNK_BYTES = 1 << 20;
/** Memory layout: outputs (8 bytes a key), then offsets (4 bytes a key, plus one), then key bytes. */
const OFFSETS_AT = 8 * CHUNK_KEYS;
const BYTES_AT = OFFSETS_AT + 4 * (CHUNK_KEYS + 1);
const MEMORY_BYTES = BYTES_AT + CHUNK_BYTES;
const PAGE = 65536;
/** Wasm memory is little-endian; the typed-array copies in and out agree with it only on such hosts. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

interface Xxh64Exports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  ranges(
    bytes: number,
    base: number,
    offsets: number,
    count: number,
    out: number,
    lo: number,
    hi: number,
  ): void;
  fixed(bytes: number, width: number, count: number, out: number, lo: number, hi: number): void;
  words8(words: number, count: number, out: number, lo: number, hi: number): void;
}

/** The part of the WebAssembly global used here (the project's Node types do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let instance: Xxh64Exports | undefined;

/** The compiled module's bytes (what xxh64.wat compiles to). */
export function xxh64WasmBytes(): Uint8Array {
  return new Uint8Array(Buffer.from(XXH64_WASM_BASE64, "base64"));
}

function exportsOf(): Xxh64Exports {
  if (instance !== undefined) return instance;
  const module = new wasmApi.Module(xxh64WasmBytes());
  const made = new wasmApi.Instance(module).exports as Xxh64Exports;
  const pages = Math.ceil(MEMORY_BYTES / PAGE) - made.memory.buffer.byteLength / PAGE;
  if (pages > 0) made.memory.grow(pages);
  instance = made;
  return made;
}

/** The last key index k1 (k0 < k1 ≤ end) whose keys k0..k1-1 fit one chunk's bytes (k0 + 1 when none does). */
function chunkEnd(offsets: Int32Array, k0: number, end: number): number {
  const base = offsets[k0] as number;
  if ((offsets[end] as number) - base <= CHUNK_BYTES) return end;
  let lo = k0 + 1;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((offsets[mid] as number) - base <= CHUNK_BYTES) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Same contract as xxh64Ranges (key i is bytes[offsets[i], offsets[i+1])). */
export function xxh64RangesWasm(
  bytes: Uint8Array,
  offsets: ArrayLike<number>,
  count: number,
  seed: Seed64,
  out: Uint32Array,
): void {
  if (!(offsets instanceof Int32Array) || !LITTLE_ENDIAN) {
    xxh64Ranges(bytes, offsets, count, seed, out);
    return;
  }
  const wasm = exportsOf();
  const memory = wasm.memory.buffer;
  const heap = new Uint8Array(memory);
  const offsetsIn = new Int32Array(memory, OFFSETS_AT, CHUNK_KEYS + 1);
  const hashesOut = new Uint32Array(memory, 0, 2 * CHUNK_KEYS);
  let k0 = 0;
  while (k0 < count) {
    const k1 = chunkEnd(offsets, k0, Math.min(count, k0 + CHUNK_KEYS));
    const n = k1 - k0;
    const base = offsets[k0] as number;
    const span = (offsets[k1] as number) - base;
    if (span > CHUNK_BYTES) {
      // One key longer than a chunk (k1 = k0 + 1): the JavaScript hash, in place.
      xxh64Ranges(bytes, offsets.subarray(k0, k1 + 1), 1, seed, out.subarray(2 * k0, 2 * k1));
    } else {
      offsetsIn.set(offsets.subarray(k0, k1 + 1));
      heap.set(bytes.subarray(base, base + span), BYTES_AT);
      wasm.ranges(BYTES_AT, base, OFFSETS_AT, n, 0, seed.lo, seed.hi);
      out.set(hashesOut.subarray(0, 2 * n), 2 * k0);
    }
    k0 = k1;
  }
}

/** Same contract as xxh64Fixed (`count` keys of `width` bytes from byte 0). */
export function xxh64FixedWasm(
  bytes: Uint8Array,
  width: number,
  count: number,
  seed: Seed64,
  out: Uint32Array,
): void {
  if (width === 0 || width > CHUNK_BYTES || !LITTLE_ENDIAN) {
    xxh64Fixed(bytes, width, count, seed, out);
    return;
  }
  const wasm = exportsOf();
  const heap = new Uint8Array(wasm.memory.buffer);
  const hashesOut = new Uint32Array(wasm.memory.buffer, 0, 2 * CHUNK_KEYS);
  const perChunk = Math.min(CHUNK_KEYS, Math.floor(CHUNK_BYTES / width));
  for (let k0 = 0; k0 < count; k0 += perChunk) {
    const n = Math.min(perChunk, count - k0);
    heap.set(bytes.subarray(k0 * width, (k0 + n) * width), BYTES_AT);
    wasm.fixed(BYTES_AT, width, n, 0, seed.lo, seed.hi);
    out.set(hashesOut.subarray(0, 2 * n), 2 * k0);
  }
}

/** Same contract as xxh64Words8 (`count` 8-byte keys as (lo, hi) word pairs). */
export function xxh64Words8Wasm(words: Uint32Array, count: number, seed: Seed64, out: Uint32Array): void {
  if (count === 0) return;
  if (!LITTLE_ENDIAN) {
    xxh64Words8(words, count, seed, out);
    return;
  }
  const wasm = exportsOf();
  const inPlace = new Uint32Array(wasm.memory.buffer, 0, 2 * CHUNK_KEYS);
  for (let k0 = 0; k0 < count; k0 += CHUNK_KEYS) {
    const n = Math.min(CHUNK_KEYS, count - k0);
    inPlace.set(words.subarray(2 * k0, 2 * (k0 + n)));
    wasm.words8(0, n, 0, seed.lo, seed.hi);
    out.set(inPlace.subarray(0, 2 * n), 2 * k0);
  }
}
