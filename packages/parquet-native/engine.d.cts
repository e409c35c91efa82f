/**
 * Types of engine.cjs: the part of parquet-wasm's API the encoder worker uses, served natively. Arrow values
 * are opaque handles; `free()` releases one at once.
 */
export declare const available: boolean;
/** Why the addon did not load, when it did not. */
export declare const loadFailure: string | undefined;
export declare const Compression: {
  readonly UNCOMPRESSED: string;
  readonly SNAPPY: string;
  readonly ZSTD: string;
};
export declare const WriterVersion: { readonly V1: string; readonly V2: string };
export declare const EnabledStatistics: {
  readonly None: string;
  readonly Chunk: string;
  readonly Page: string;
};
export interface WriterProperties {
  readonly [key: string]: unknown;
}
export declare class WriterPropertiesBuilder {
  setWriterVersion(version: string): this;
  setCompression(codec: string): this;
  setMaxRowGroupSize(rows: number): this;
  setMaxRowGroupBytes(bytes: number): this;
  setStatisticsEnabled(level: string): this;
  setCreatedBy(createdBy: string): this;
  setKeyValueMetadata(entries: Map<string, string>): this;
  setColumnDictionaryEnabled(column: string, enabled: boolean): this;
  /** `column` (a column path) written with `codec` whatever `setCompression` says. */
  setColumnCompression(column: string, codec: string): this;
  build(): WriterProperties;
}
/** An Arrow schema held natively (opaque). */
export interface NativeSchema {
  readonly __nativeSchema?: never;
}
export interface NativeBatch {
  readonly numRows: number;
  readonly schema: NativeSchema;
  slice(offset: number, length: number): NativeBatch;
  /** The rows of the ranges [starts[i], ends[i]) (ascending, apart), copied into one batch. */
  keepRanges(starts: number[], ends: number[]): NativeBatch;
  /**
   * The columns of `fields` (top-level; fixed-width, string or binary) to write PLAIN: those whose values are
   * mostly distinct in `sampleRows` rows spread over this batch (at least `minValues` non-null, more than
   * `maxShare` distinct), a string or binary one only when the batch's dictionary would reach `dictionaryLimit`
   * bytes: parquet-stream's dictionary policy (`plainColumns`), rule for rule.
   */
  plainColumns(
    fields: string[],
    sampleRows: number,
    maxShare: number,
    minValues: number,
    dictionaryLimit: number,
  ): string[];
  withSchema(schema: NativeSchema): NativeBatch;
  free(): void;
}
export interface NativeTable {
  readonly numRows: number;
  readonly schema: NativeSchema;
  recordBatches(): NativeBatch[];
  free(): void;
}
export declare const Table: { fromIPCStream(ipc: Uint8Array): NativeTable };
export declare function readParquet(
  bytes: Uint8Array,
  options?: { rowGroups?: number[]; batchSize?: number },
): NativeTable;
export declare function releaseParquet(bytes: Uint8Array): void;
/** Batches of a file's row groups, each decoded when asked for; null once read (the stream is then freed). */
export interface NativeBatchStream {
  nextTable(): NativeTable | null;
  free(): void;
  /** True once the buffer it reads in place may be changed or transferred. */
  readonly released: boolean;
}
export declare function readParquetBatches(
  bytes: Uint8Array,
  options?: { rowGroups?: number[]; batchSize?: number },
): NativeBatchStream;
/** The same from the local file at `path` (its pages read as they are decoded); refused unless `size` bytes long. */
export declare function readParquetFileBatches(
  path: string,
  size: number,
  options?: { rowGroups?: number[]; batchSize?: number },
): NativeBatchStream;
/** A file below `options.holdBelowBytes` comes out whole, as one buffer, at its end. */
export declare function transformParquetStream(
  batches: AsyncIterable<NativeBatch> | ReadableStream<NativeBatch>,
  props: WriterProperties,
  options?: { holdBelowBytes?: number },
): AsyncIterable<Uint8Array>;
/** A Parquet file a writer stream passes through (from its path or bytes). */
export interface WriterStreamInput {
  path?: string;
  size?: number;
  bytes?: Uint8Array;
  rowGroups?: number[];
  batchRows?: number;
  skipRows?: Int32Array;
}
/** A writer stream encoded on the addon's CPU threads into local files written in place (the addon's stream.rs). */
export interface NativeWriterStream {
  push(input: WriterStreamInput): void;
  /**
   * Queues an Arrow IPC stream given as `parts` at byte `offsets` in a stream of `byteLength` bytes (gaps are
   * zeros), joined on libuv's pool: change or transfer no part, and push nothing else, until it resolves.
   */
  pushIpc(parts: Uint8Array[], offsets: number[], byteLength: number): Promise<void>;
  end(): void;
  /** Encodes until the queue is empty, a batch waits for a file's path, the file is full, or the stream ended. */
  run(): Promise<{ state: "drained" | "fileStart" | "full" | "ended"; taken: number }>;
  setTarget(path: string): void;
  /** The open file's footer written and the file synced to disk. */
  finishFile(): Promise<{ size: number; footer: Uint8Array; numRows: number }>;
  abort(): void;
}
export declare function openWriterStream(
  schemaIpc: Uint8Array,
  props: WriterProperties,
  settings: {
    targetFileSize: number;
    maxRowGroupRows: number;
    judge?:
      | {
          fields: string[];
          batchRows: number;
          sampleRows: number;
          maxShare: number;
          minValues: number;
          dictionaryLimit: number;
        }
      | undefined;
  },
): NativeWriterStream;
export declare function writeParquet(table: NativeTable, props: WriterProperties): Uint8Array;
export declare function wasmMemory(): { buffer: { byteLength: number } };
/**
 * Frees now, not at V8's next collection, the bytes of a buffer a hash call returned (pass its `.buffer`): the
 * buffer is detached, so every view of it reads as empty from then on. False when it cannot be detached.
 */
export declare function releaseBuffer(buffer: ArrayBuffer): boolean;
/** The bytes the addon's heap holds now, every thread's together. */
export declare function heapHeldBytes(): number;
/** Row `indices[i]`'s `width` bytes of `values` into `out[i * width..]`; throws on an index outside `values`. */
export declare function gatherFixed(
  values: Uint8Array,
  width: number,
  indices: Int32Array,
  out: Uint8Array,
): void;
/** Rows `indices` of a variable-width column: their bytes into `outValues`, their offsets from zero into `outOffsets`. */
export declare function gatherVariable(
  values: Uint8Array,
  offsets: Int32Array,
  indices: Int32Array,
  outValues: Uint8Array,
  outOffsets: Int32Array,
): void;
/** Bits `offset + indices[i]` of `bits` into bit i of `out` (all zero); returns how many are set; throws on an index outside `bits`. */
export declare function gatherBits(
  bits: Uint8Array,
  offset: number,
  indices: Int32Array,
  out: Uint8Array,
): number;
/** How many files writer streams (`openWriterStream`) wrote around the page cache in this process (Linux O_DIRECT, where the filesystem allows). */
export declare function directFilesOpened(): number;
/** How many times a file a writer stream wrote through the page cache was synced while being written, in this process (after a flushed row group; Linux). */
export declare function syncsBehind(): number;
/** How many local files this process decoded through a read-only mapping (a passed-through file read from its path, `readParquetFileBatches`; Linux, on a local file system). */
export declare function filesMapped(): number;
/**
 * How many times a writer stream with `judge` took the dictionary policy's sample of its first passed-through
 * file from the batches it decodes of that file anyway (their cut tiles the sample's), in this process; the
 * other times it decoded the sample apart.
 */
export declare function samplesFromCursor(): number;
/**
 * XXH64 (seed `(seedHi << 32) | seedLo`) of each value of byte-array leaf `leaf` (a Parquet leaf index) in row
 * group `rowGroup`, decoded from a file of `size` bytes of which only `parts[i]` at `offsets[i]` are given (its
 * footer with its trailer, and the chunk). Row i's hash is 8 little-endian bytes at 8i; `nulls[i]` is 1 for a
 * NULL (hashed as no bytes). Given `probe`, a source's key hashes (8 little-endian bytes each), `mayHit` says
 * whether a non-NULL row's hash is one of them, and with `withValues` `hitRows` names those rows. Runs on the libuv thread pool and reads the parts in place:
 * change or transfer none of them until the promise settles.
 */
export declare function hashColumnValues(
  size: number,
  offsets: number[],
  parts: Uint8Array[],
  rowGroup: number,
  leaf: number,
  seedLo: number,
  seedHi: number,
  withValues?: boolean,
  probe?: Uint8Array,
): Promise<{
  rows: number;
  hashes: Uint8Array;
  nulls?: Uint8Array | null;
  /** With `withValues`: row i's value is `values[o[i], o[i + 1])`, `o` the `rows + 1` int32 LE offsets from 0. */
  offsets?: Uint8Array | null;
  values?: Uint8Array | null;
  /** Given `probe`: whether a non-NULL row's hash is one of its hashes (a "yes" may be a hash collision). */
  mayHit?: boolean | null;
  /**
   * Given `probe` with `withValues`: the rows whose non-NULL hash is one of its hashes, ascending (uint32 LE):
   * every row that may hold a source key.
   */
  hitRows?: Uint8Array | null;
}>;
/** Where a local file keeps one top-level byte-array column (`fileColumnLayout`). */
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
  first?: Awaited<ReturnType<typeof hashColumnValues>> | null;
}
/**
 * Where the local file at `path` (refused unless `size` bytes long) keeps top-level column `column`, read from
 * its footer on the addon's CPU threads; rejected when the column is there but is not a byte-array leaf that
 * `hashFileColumnValues` serves (nested, repeated, another type). Given `seedLo` and `seedHi`, the first row
 * group's hashes under that seed come too (`first`), decoded with the same footer, and with `probe` their
 * `mayHit` (as `hashColumnValues`).
 */
export declare function fileColumnLayout(
  path: string,
  size: number,
  column: string,
  seedLo?: number,
  seedHi?: number,
  probe?: Uint8Array,
): Promise<FileColumnLayout>;
/** `hashColumnValues` of leaf `leaf` in row group `rowGroup` of the local file at `path`, read on the addon's CPU threads. */
export declare function hashFileColumnValues(
  path: string,
  size: number,
  rowGroup: number,
  leaf: number,
  seedLo: number,
  seedHi: number,
  withValues?: boolean,
  probe?: Uint8Array,
): ReturnType<typeof hashColumnValues>;
