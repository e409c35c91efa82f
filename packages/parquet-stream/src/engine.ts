/**
 * Which Parquet engine this process uses: @deltalite/parquet-native (parquet-rs compiled for this platform)
 * when it is installed and loads, else parquet-wasm (the same parquet-rs in WebAssembly, portable, with a cold
 * phase of a few hundred ms per process before V8 optimises it). `DELTALITE_PARQUET_ENGINE=wasm` or `native`
 * forces one (`native` fails when the addon does not load). The encoder workers `require` the engine's entry by
 * path; a reader asks for the native engine's column-value hashers (none on parquet-wasm): of chunks it
 * fetched, and of a local file read from its path.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DeltaLiteError } from "@deltalite/errors";

const require = createRequire(import.meta.url);

/**
 * Entries found so far, by the engine asked for: finding one resolves a package path on disk, and an upsert
 * asks for every file it writes or passes through (a 1M-row upsert spent 10–20 ms of its main thread in
 * `require.resolve` before this, merge-engine BENCHMARKS.md, session 22).
 */
const entries = new Map<string | undefined, string>();

/** The engine's module path, for `require` (the encoder workers load it by path). */
export function parquetEngineEntry(env: NodeJS.ProcessEnv = process.env): string {
  const asked = env.DELTALITE_PARQUET_ENGINE;
  let entry = entries.get(asked);
  if (entry === undefined) {
    entry = findEngineEntry(asked);
    entries.set(asked, entry);
  }
  return entry;
}

/** `parquetEngineEntry` found from scratch (throws when `native` is asked for and does not load). */
function findEngineEntry(asked: string | undefined): string {
  if (asked !== "wasm") {
    let failure = "it is not installed";
    try {
      // engine.cjs at the package's root: CommonJS, which workers `require` by path (see its parquetNativeEngine).
      const entry = join(dirname(require.resolve("@deltalite/parquet-native/package.json")), "engine.cjs");
      const engine = require(entry) as { available: boolean; loadFailure?: string };
      if (engine.available) return entry;
      failure = engine.loadFailure ?? "its addon did not load";
    } catch {
      // not installed: parquet-wasm below
    }
    if (asked === "native") {
      throw new DeltaLiteError(
        "invalid_argument",
        `DELTALITE_PARQUET_ENGINE=native, but @deltalite/parquet-native: ${failure}`,
      );
    }
  }
  return require.resolve("parquet-wasm");
}

/**
 * Per-row hashes of a byte-array column: row i's as (lo, hi) words at 2i, 2i + 1; NULL rows flagged. Asked
 * for values: `offsets` (rows + 1 int32 LE, from 0) and `values`, row i's bytes at [offsets[i], offsets[i+1]).
 */
export interface ValueHashes {
  rows: number;
  hashes: Uint8Array;
  nulls: Uint8Array | null | undefined;
  offsets?: Uint8Array | null | undefined;
  values?: Uint8Array | null | undefined;
  /** Given a source probe: whether a non-NULL row's hash is one of its hashes. */
  mayHit?: boolean | null | undefined;
  /** Given a probe and asked for values: the rows whose non-NULL hash is one of the probe's (uint32 LE, ascending). */
  hitRows?: Uint8Array | null | undefined;
}

/**
 * Hashes (XXH64 under the seed (seedHi << 32) | seedLo) the values of leaf `leaf` in row group `rowGroup` of a
 * file of `size` bytes, given only `parts[i]` at `offsets[i]` (the footer with its trailer, and the chunk), off
 * the JavaScript thread, and returns the values too with `withValues`. Given `probe`, a source's key hashes (8
 * little-endian bytes each), it says too whether a non-NULL row's hash is one of them (`mayHit`). The parts
 * are read in place: none may change or move until it settles.
 */
export type ColumnValueHasher = (
  size: number,
  offsets: number[],
  parts: Uint8Array[],
  rowGroup: number,
  leaf: number,
  seedLo: number,
  seedHi: number,
  withValues?: boolean,
  probe?: Uint8Array,
) => Promise<ValueHashes>;

/** Which engine this process runs: "native" (@deltalite/parquet-native) or "wasm" (parquet-wasm). */
export function parquetEngineName(): "native" | "wasm" {
  return nativeEntry(parquetEngineEntry()) ? "native" : "wasm";
}

const nativeEntry = (entry: string): boolean => entry.endsWith("engine.cjs");

/** What the upsert's reads take from the native engine module (engine.cjs in @deltalite/parquet-native). */
interface NativeEngineExports extends NativeGather {
  hashColumnValues: ColumnValueHasher;
  fileColumnLayout: FileValueHasher["layout"];
  hashFileColumnValues: FileValueHasher["hash"];
  releaseBuffer: (buffer: ArrayBuffer) => boolean;
}

/** The native engine's row gathers (parquet-native take.rs), what `takeRows` copies values with there. */
export interface NativeGather {
  /** Row `indices[i]`'s `width` bytes of `values` into `out[i * width..]`. */
  gatherFixed(values: Uint8Array, width: number, indices: Int32Array, out: Uint8Array): void;
  /** Rows `indices` of a variable-width column: bytes into `outValues`, offsets from zero into `outOffsets`. */
  gatherVariable(
    values: Uint8Array,
    offsets: Int32Array,
    indices: Int32Array,
    outValues: Uint8Array,
    outOffsets: Int32Array,
  ): void;
  /** Bits `offset + indices[i]` of `bits` into bit i of `out` (all zero); returns how many are set. */
  gatherBits(bits: Uint8Array, offset: number, indices: Int32Array, out: Uint8Array): number;
}

let engine: NativeEngineExports | null | undefined;

/** The native engine module (required once), or undefined when this process runs parquet-wasm. */
function nativeEngine(): NativeEngineExports | undefined {
  if (engine === undefined) {
    const entry = parquetEngineEntry();
    engine = nativeEntry(entry) ? (require(entry) as NativeEngineExports) : null;
  }
  return engine ?? undefined;
}

/** The native engine's column-value hasher, or undefined when this process runs parquet-wasm. */
export function nativeValueHasher(): ColumnValueHasher | undefined {
  return nativeEngine()?.hashColumnValues;
}

/** Where a local file keeps one top-level byte-array column (the native engine's `fileColumnLayout`). */
export interface FileColumnLayout {
  /** False when the file has no top-level column of that name. */
  present: boolean;
  /** The column's Parquet leaf index. */
  leaf: number;
  /** True for bytes without a string annotation, false for UTF-8 strings. */
  binary: boolean;
  /** Per row group: rows, the chunk's compressed bytes, its uncompressed bytes. */
  rows: number[];
  chunkBytes: number[];
  uncompressedBytes: number[];
  /** Asked for with seed words: the first row group's hashes (no values); absent when its decode failed. */
  first?: ValueHashes | null | undefined;
}

/** The native engine's hashing of a local file's column from its path: its layout, then a row group's hashes. */
export interface FileValueHasher {
  /**
   * Rejects when the file is not `size` bytes long, or the column is there but is not one it hashes. Given
   * seed words, the first row group's hashes under that seed come too (`first`), read with the same footer,
   * and given `probe` their `mayHit` (as ColumnValueHasher's).
   */
  layout(
    path: string,
    size: number,
    column: string,
    seedLo?: number,
    seedHi?: number,
    probe?: Uint8Array,
  ): Promise<FileColumnLayout>;
  hash(
    path: string,
    size: number,
    rowGroup: number,
    leaf: number,
    seedLo: number,
    seedHi: number,
    withValues?: boolean,
    probe?: Uint8Array,
  ): Promise<ValueHashes>;
}

let fileHasher: FileValueHasher | undefined;

/** The native engine's file hasher, or undefined when this process runs parquet-wasm. */
export function nativeFileValueHasher(): FileValueHasher | undefined {
  const native = nativeEngine();
  if (native === undefined) return undefined;
  fileHasher ??= { layout: native.fileColumnLayout, hash: native.hashFileColumnValues };
  return fileHasher;
}

/**
 * The native engine's release of a buffer a hash call returned (its bytes freed now, the buffer detached), or
 * undefined when this process runs parquet-wasm.
 */
export function nativeBufferRelease(): ((buffer: ArrayBuffer) => boolean) | undefined {
  return nativeEngine()?.releaseBuffer;
}

/** The native engine's row gathers, or undefined when this process runs parquet-wasm. */
export function nativeGather(): NativeGather | undefined {
  return nativeEngine();
}
