/**
 * apache-arrow RecordBatches → the slices handed to the encoder worker (encoder-worker.ts), as Arrow IPC
 * streams: small enough that parquet-rs can close a row group at its byte limit (it only checks between
 * batches) and that WebAssembly memory holds one slice plus the row group being encoded, and large enough
 * that the fixed cost of each crossing (an IPC schema and message, a WASM table, a batch through parquet-rs's
 * writer: ~1–3 ms) is paid rarely: consecutive small batches are appended into one slice first.
 */
import { DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import { type Data, type Field, makeData, RecordBatch, type Schema, Struct } from "apache-arrow";
import { canConcat, concatRows } from "../arrow/concat.js";
import { isPassthrough, type ParquetPassthrough } from "./passthrough-unit.js";

/** Upper bound of the decoded bytes handed to parquet-rs in one batch. */
export const MAX_SLICE_BYTES = 4 * 1024 * 1024;
export const MAX_SLICE_ROWS = 65_536;

/**
 * The decoded bytes per slice for a row-group byte cap: parquet-rs checks the cap between batches (and
 * splits a batch by its running bytes-per-row estimate once it has one), so slices well under the cap keep
 * row groups close to it.
 */
export function sliceBytesFor(maxRowGroupBytes: number): number {
  return Math.max(1, Math.min(MAX_SLICE_BYTES, Math.floor(maxRowGroupBytes / 8)));
}

/** Bytes held by a Data's buffers (offsets, values, validity, children), shared buffers counted once each. */
export function decodedBytes(data: Data): number {
  let total = (data.nullBitmap?.byteLength ?? 0) + (data.valueOffsets?.byteLength ?? 0);
  const values = data.values as ArrayBufferView | undefined;
  total += values?.byteLength ?? 0;
  for (const child of data.children) total += decodedBytes(child);
  return total;
}

/** Decoded bytes of a batch's rows (sliced batches count their share of the row-proportional buffers). */
export function batchDecodedBytes(batch: RecordBatch): number {
  return decodedBytes(batch.data);
}

function describe(schema: Schema): string {
  return schema.fields.map((f) => `${f.name}: ${String(f.type)}`).join(", ");
}

/** Throws `schema_mismatch` when a field declared non-nullable (at any depth) holds nulls. */
function checkNullability(field: Field, data: Data, path: string): void {
  if (!field.nullable && data.nullCount > 0) {
    throw new DeltaLiteSchemaMismatchError(
      `column ${path} is declared non-nullable but holds ${data.nullCount} nulls`,
    );
  }
  const children = (field.type.children ?? []) as Field[];
  children.forEach((child, i) => {
    const childData = data.children[i];
    if (childData) checkNullability(child, childData, `${path}.${child.name}`);
  });
}

/**
 * The batch re-labelled with the writer's schema (names, types, nullability and metadata all identical), so
 * that parquet-rs, which takes the first batch's schema for the file, accepts every batch. Throws
 * `schema_mismatch` when the columns' names or types differ, or a non-nullable column holds nulls.
 */
export function conformBatch(expected: Schema, batch: RecordBatch): RecordBatch {
  checkBatchSchema(expected, batch);
  expected.fields.forEach((field, i) => {
    checkNullability(field, batch.data.children[i] as Data, field.name);
  });
  if (batch.schema === expected) return batch;
  const data = makeData({
    type: new Struct(expected.fields),
    length: batch.numRows,
    nullCount: 0,
    children: batch.data.children,
  });
  return new RecordBatch(expected, data);
}

/** Throws `schema_mismatch` when a batch's columns differ from the writer's schema in names or types. */
export function checkBatchSchema(expected: Schema, batch: RecordBatch): void {
  const actual = batch.schema;
  if (batch.data.children.length !== actual.fields.length) {
    throw new DeltaLiteSchemaMismatchError(
      `batch has ${batch.data.children.length} column arrays for ${actual.fields.length} schema fields`,
    );
  }
  const same =
    actual.fields.length === expected.fields.length &&
    actual.fields.every((field, i) => {
      const want = expected.fields[i];
      return want !== undefined && want.name === field.name && String(want.type) === String(field.type);
    });
  if (!same) {
    throw new DeltaLiteSchemaMismatchError(
      `batch schema [${describe(actual)}] differs from the writer schema [${describe(expected)}]`,
    );
  }
}

/** Bytes of the ArrayBuffers a Data's buffers live in (each counted once): what holding the Data keeps alive. */
function retainedBytes(data: Data, seen = new Set<ArrayBufferLike>()): number {
  let total = 0;
  for (const view of [data.nullBitmap, data.valueOffsets, data.values] as (ArrayBufferView | undefined)[]) {
    if (!view || seen.has(view.buffer)) continue;
    seen.add(view.buffer);
    total += view.buffer.byteLength;
  }
  for (const child of data.children) total += retainedBytes(child, seen);
  return total;
}

export interface SliceLimits {
  maxSliceBytes: number;
  maxSliceRows: number;
}

/**
 * Appends consecutive small batches until the next one would pass a slice limit. Only batches that keep
 * little memory alive wait here (what they retain counts against `maxSliceBytes`), so the pending rows never
 * hold more than one slice's worth of memory; anything else flushes the pending rows and passes on alone.
 */
class SliceGatherer {
  readonly #limits: SliceLimits;
  readonly #enabled: boolean;
  #pending: RecordBatch[] = [];
  #rows = 0;
  #bytes = 0;

  constructor(schema: Schema, limits: SliceLimits) {
    this.#limits = limits;
    this.#enabled = schema.fields.every((f) => canConcat(f.type));
  }

  /** The slices ready to cross after adding `piece` (of `bytes` decoded bytes), in order. */
  add(piece: RecordBatch, bytes: number): RecordBatch[] {
    const { maxSliceBytes, maxSliceRows } = this.#limits;
    const retained = this.#enabled ? retainedBytes(piece.data) : Number.POSITIVE_INFINITY;
    const fits = (rows: number, size: number) => rows <= maxSliceRows && size <= maxSliceBytes;
    if (!fits(piece.numRows, retained)) return [...this.flush(), piece];
    const out = fits(this.#rows + piece.numRows, this.#bytes + Math.max(bytes, retained)) ? [] : this.flush();
    this.#pending.push(piece);
    this.#rows += piece.numRows;
    this.#bytes += Math.max(bytes, retained);
    return out;
  }

  /** The pending rows as one slice (none when nothing waits). */
  flush(): RecordBatch[] {
    if (this.#pending.length === 0) return [];
    const slice = concatRows(this.#pending);
    this.#pending = [];
    this.#rows = 0;
    this.#bytes = 0;
    return [slice];
  }
}

/** A batch cut into pieces of at most the slice limits (by its average decoded bytes per row). */
function* piecesOf(
  batch: RecordBatch,
  limits: SliceLimits,
): Generator<{ piece: RecordBatch; bytes: number }> {
  const rows = batch.numRows;
  const bytesPerRow = Math.max(1, batchDecodedBytes(batch) / rows);
  const sliceRows = Math.max(
    1,
    Math.min(limits.maxSliceRows, Math.floor(limits.maxSliceBytes / bytesPerRow)),
  );
  for (let start = 0; start < rows; start += sliceRows) {
    const end = Math.min(rows, start + sliceRows);
    const piece = start === 0 && end === rows ? batch : batch.slice(start, end);
    yield { piece, bytes: Math.ceil(bytesPerRow * (end - start)) };
  }
}

/**
 * Yields batches of at most `maxSliceBytes` decoded bytes and `maxSliceRows` rows each, conformed to `schema`,
 * in input order; consecutive small input batches come out appended into one. Passed-through files go on
 * as they are, in their place.
 */
export async function* encoderSlices(
  batches: AsyncIterable<RecordBatch | ParquetPassthrough> | Iterable<RecordBatch | ParquetPassthrough>,
  schema: Schema,
  limits: SliceLimits,
  signal: AbortSignal | undefined,
): AsyncGenerator<RecordBatch | ParquetPassthrough> {
  const gatherer = new SliceGatherer(schema, limits);
  for await (const input of batches) {
    signal?.throwIfAborted();
    if (isPassthrough(input)) {
      yield* gatherer.flush();
      yield input;
      continue;
    }
    const batch = conformBatch(schema, input);
    if (batch.numRows === 0) continue;
    for (const { piece, bytes } of piecesOf(batch, limits)) yield* gatherer.add(piece, bytes);
  }
  yield* gatherer.flush();
}
