/**
 * The addon (parquet_native.node, built from native/ by build.mjs) behind the part of parquet-wasm's API that
 * parquet-stream's encoder worker uses, so the worker runs unchanged on either engine: writer-property
 * builders and enums, `Table.fromIPCStream`, `readParquet` (one file's footer parsed once while its row
 * groups are read, `releaseParquet` ends that), `readParquetBatches` (its row groups a batch at a time: native
 * only), `readParquetFileBatches` (the same from a local file's path, its pages read as they are decoded:
 * native only), `transformParquetStream`, `writeParquet`, and `wasmMemory`,
 * which here reports the addon's heap high-water mark. `available` is false when the addon is not built or
 * does not load on this platform; everything else then throws. `hashColumnValues` serves a JavaScript
 * reader: the values of a column chunk it fetched, hashed off its thread; `fileColumnLayout` and
 * `hashFileColumnValues` do the same for a local file from its path, reading it off the thread too.
 * `openWriterStream` encodes a writer stream on the addon's CPU threads into local files written in place (native
 * only; parquet-stream's native-stream.ts); `directFilesOpened` counts the files it wrote around the page cache
 * (Linux O_DIRECT), `syncsBehind` the syncs of files written through it made while they were being written,
 * `samplesFromCursor` the dictionary samples it took from a passed-through file's batches without a second decode,
 * `filesMapped` the local files it decoded through a read-only mapping (Linux, local file systems).
 */
"use strict";
const { join } = require("node:path");

let addon;
let loadFailure;
try {
  addon = require(join(__dirname, "parquet_native.node"));
} catch (error) {
  loadFailure = error;
}

function native() {
  if (addon === undefined)
    throw new Error(`@deltalite/parquet-native is not built here: ${loadFailure?.message}`);
  return addon;
}

const Compression = { UNCOMPRESSED: "uncompressed", SNAPPY: "snappy", ZSTD: "zstd" };
const WriterVersion = { V1: "1.0", V2: "2.0" };
const EnabledStatistics = { None: "none", Chunk: "chunk", Page: "page" };

/** Collects writer properties as parquet-wasm's builder does; `build()` gives the addon's properties object. */
class WriterPropertiesBuilder {
  #props = { plainColumns: [], columnCompression: {} };
  #set(key, value) {
    this.#props[key] = value;
    return this;
  }
  setWriterVersion(version) {
    return this.#set("writerVersion", version);
  }
  setCompression(codec) {
    return this.#set("compression", codec);
  }
  setMaxRowGroupSize(rows) {
    return this.#set("maxRowGroupSize", rows);
  }
  setMaxRowGroupBytes(bytes) {
    return this.#set("maxRowGroupBytes", bytes);
  }
  setStatisticsEnabled(level) {
    return this.#set("statistics", level);
  }
  setCreatedBy(createdBy) {
    return this.#set("createdBy", createdBy);
  }
  setKeyValueMetadata(entries) {
    return this.#set("keyValueMetadata", Object.fromEntries(entries));
  }
  setColumnDictionaryEnabled(column, enabled) {
    const plain = this.#props.plainColumns.filter((name) => name !== column);
    if (!enabled) plain.push(column);
    return this.#set("plainColumns", plain);
  }
  setColumnCompression(column, codec) {
    return this.#set("columnCompression", { ...this.#props.columnCompression, [column]: codec });
  }
  build() {
    return { ...this.#props };
  }
}

const Table = {
  fromIPCStream(ipc) {
    return native().tableFromIpcStream(ipc);
  },
};

/** Files whose row groups are being read: bytes → the addon's parsed file (until `releaseParquet`). */
const openFiles = new Map();

function readParquet(bytes, options = {}) {
  let file = openFiles.get(bytes);
  if (file === undefined) {
    file = native().openParquet(bytes);
    openFiles.set(bytes, file);
  }
  const rowGroups = options.rowGroups ?? Array.from({ length: file.numRowGroups }, (_, i) => i);
  return file.readRowGroups(rowGroups, options.batchSize ?? 1024);
}

/** Frees what `readParquet` holds for `bytes`: the caller reads no more of that file. */
function releaseParquet(bytes) {
  const file = openFiles.get(bytes);
  if (file === undefined) return;
  openFiles.delete(bytes);
  file.free();
}

/**
 * The rows of `options.rowGroups` (all by default) as a stream of batches of at most `options.batchSize` rows,
 * each decoded when `nextTable()` asks for it, so only one batch of the file is held decoded at a time. The
 * bytes are read in place, not copied: change or transfer them only once the stream's `released` is true (it
 * turns true when `nextTable()` has returned null or `free()` was called, and no decoded value shares them).
 */
function readParquetBatches(bytes, options = {}) {
  return native().streamParquet(bytes, options.rowGroups, options.batchSize ?? 1024);
}

/**
 * The rows of `options.rowGroups` (all by default) of the Parquet file at `path` as a stream of batches of at
 * most `options.batchSize` rows, as `readParquetBatches` gives them, each batch's pages read from the file
 * when `nextTable()` decodes it: nothing of the file is held in memory but those pages. A file whose length
 * is not `size` is refused (a Delta data file is never rewritten in place, so another length means another
 * file).
 */
function readParquetFileBatches(path, size, options = {}) {
  return native().streamParquetFile(path, size, options.rowGroups, options.batchSize ?? 1024);
}

/**
 * Encodes the batches `batches` yields (an async iterable, or a ReadableStream as parquet-wasm takes) into one
 * Parquet file; yields its bytes as row groups are flushed and the footer last, except that a file below
 * `options.holdBelowBytes` is yielded whole at its end (one buffer; parquet-wasm, which has no such option,
 * yields row groups and its caller joins them). Each batch is freed once encoded. A failure is thrown, never
 * swallowed.
 */
async function* transformParquetStream(batches, props, options = {}) {
  let writer;
  for await (const value of batches) {
    try {
      writer ??= new (native().NativeFileWriter)(value.schema, props, options.holdBelowBytes);
      const flushed = writer.write(value);
      if (flushed) yield flushed;
    } finally {
      value.free();
    }
  }
  if (writer === undefined) throw new Error("no batch to write a Parquet file from");
  yield writer.finish();
}

/**
 * A writer stream encoded on the addon's CPU threads (native/cpu_pool.rs) into local files written in place (native only; see the
 * addon's stream.rs): `push(input)`, `end()`, `run()` → `{ state, taken }`, `setTarget(path)`,
 * `finishFile()` → `{ size, footer, numRows }`, `abort()`. `schemaIpc` is an IPC stream of the schema
 * passed-through files' batches are relabelled with; `props` as `WriterPropertiesBuilder.build()` gives them;
 * `settings` `{ targetFileSize, maxRowGroupRows, judge? }`.
 */
function openWriterStream(schemaIpc, props, settings) {
  return new (native().NativeWriterStream)(schemaIpc, props, settings);
}

/** One whole table as one Parquet file's bytes; the table is freed, as parquet-wasm's writeParquet does. */
function writeParquet(table, props) {
  try {
    return native().writeParquet(table, props);
  } finally {
    table.free();
  }
}

/**
 * XXH64 (seed `(seedHi << 32) | seedLo`) of each value of byte-array leaf `leaf` in row group `rowGroup`,
 * decoded from a file of `size` bytes of which only `parts[i]` at `offsets[i]` are given (its footer and the
 * chunk): `{ rows, hashes, nulls }`, and with `withValues` the values too (`offsets`, `values`). Given
 * `probe`, a source's key hashes (8 little-endian bytes each), also `mayHit`: whether a non-NULL row's hash is
 * one of them (and with `withValues`, `hitRows`: those rows, as uint32 LE). It runs on the libuv thread pool and reads the parts in place: change or transfer none of them
 * until it settles.
 */
function hashColumnValues(size, offsets, parts, rowGroup, leaf, seedLo, seedHi, withValues = false, probe) {
  return native().hashColumnValues(size, offsets, parts, rowGroup, leaf, seedLo, seedHi, withValues, probe);
}

/**
 * Where the local file at `path` (refused unless `size` bytes long) keeps top-level column `column`: `{ present,
 * leaf, binary, rows, chunkBytes, uncompressedBytes }` (the last three per row group), read from its footer on
 * the addon's CPU threads; rejected when the column is there but is not a byte-array leaf `hashFileColumnValues`
 * serves. Given seed words, also `first`: the first row group's hashes under that seed, decoded with the same
 * footer (absent when that decode fails), with `mayHit` when `probe` is given (as `hashColumnValues`).
 */
function fileColumnLayout(path, size, column, seedLo, seedHi, probe) {
  return native().fileColumnLayout(path, size, column, seedLo, seedHi, probe);
}

/** `hashColumnValues` of the local file at `path` (refused unless `size` bytes long), read on the addon's CPU threads. */
function hashFileColumnValues(path, size, rowGroup, leaf, seedLo, seedHi, withValues = false, probe) {
  return native().hashFileColumnValues(path, size, rowGroup, leaf, seedLo, seedHi, withValues, probe);
}

/**
 * Bits `offset + indices[i]` of `bits` into bit i of `out` (one bit per index, all zero): parquet-stream's
 * `takeRows` of boolean values and validity bitmaps. Returns how many gathered bits are set; throws on an index
 * outside `bits`, before writing anything.
 */
function gatherBits(bits, offset, indices, out) {
  return native().gatherBits(bits, offset, indices, out);
}

/**
 * Frees now, not at V8's next collection, the bytes of a buffer a hash call returned (`hashes`, `nulls`,
 * `offsets` or `values`; pass its `.buffer`): the buffer is detached, so every view of it reads as empty from
 * then on. False when it cannot be (then nothing changed). The bytes go back at the event loop's next turn.
 */
function releaseBuffer(buffer) {
  return native().releaseBuffer(buffer);
}

/**
 * Row `indices[i]`'s `width` bytes of `values` into `out[i * width..]` (`out` exactly that long): parquet-stream's
 * `takeRows` of fixed-width columns. Throws on an index outside `values`, before copying anything.
 */
function gatherFixed(values, width, indices, out) {
  native().gatherFixed(values, width, indices, out);
}

/**
 * Rows `indices` of a variable-width column (`offsets` into `values`): their bytes into `outValues` (exactly
 * their total length) and their offsets, from zero, into `outOffsets` (one more than the indices).
 */
function gatherVariable(values, offsets, indices, outValues, outOffsets) {
  native().gatherVariable(values, offsets, indices, outValues, outOffsets);
}

/** The bytes the addon's heap holds now, every thread's together (tests: whether released bytes went back). */
function heapHeldBytes() {
  return native().heapHeldBytes();
}

/** How many files written in place this process wrote around the page cache (tests: whether direct I/O ran). */
function directFilesOpened() {
  return native().directFilesOpened();
}

/** How many times a file written in place was synced behind its writer (tests: whether that ran). */
function syncsBehind() {
  return native().syncsBehind();
}

/** How many times a writer stream took the dictionary policy's sample from batches it decoded anyway (tests). */
function samplesFromCursor() {
  return native().samplesFromCursor();
}

/** How many local files this process decoded through a read-only mapping (tests: whether that ran). */
function filesMapped() {
  return native().filesMapped();
}

function wasmMemory() {
  return { buffer: { byteLength: native().heapHighWaterBytes() } };
}

// One assignment per name, so that Node's ES module interop (cjs-module-lexer) sees every named export.
exports.available = addon !== undefined;
exports.loadFailure = loadFailure === undefined ? undefined : String(loadFailure.message ?? loadFailure);
exports.Compression = Compression;
exports.WriterVersion = WriterVersion;
exports.EnabledStatistics = EnabledStatistics;
exports.WriterPropertiesBuilder = WriterPropertiesBuilder;
exports.Table = Table;
exports.readParquet = readParquet;
exports.releaseParquet = releaseParquet;
exports.readParquetBatches = readParquetBatches;
exports.readParquetFileBatches = readParquetFileBatches;
exports.transformParquetStream = transformParquetStream;
exports.writeParquet = writeParquet;
exports.openWriterStream = openWriterStream;
exports.hashColumnValues = hashColumnValues;
exports.fileColumnLayout = fileColumnLayout;
exports.hashFileColumnValues = hashFileColumnValues;
exports.releaseBuffer = releaseBuffer;
exports.heapHeldBytes = heapHeldBytes;
exports.gatherFixed = gatherFixed;
exports.gatherVariable = gatherVariable;
exports.gatherBits = gatherBits;
exports.wasmMemory = wasmMemory;
exports.directFilesOpened = directFilesOpened;
exports.samplesFromCursor = samplesFromCursor;
exports.filesMapped = filesMapped;
exports.syncsBehind = syncsBehind;
