/**
 * apache-arrow RecordBatches → parquet-wasm (arrow-rs) RecordBatches, in slices small enough that parquet-rs
 * can close a row group at its byte limit (it only checks between batches) and that WebAssembly memory
 * holds one slice plus the row group being encoded. The batch crosses into WASM as an Arrow IPC stream.
 */
import { DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import {
  type Data,
  type Field,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  type Schema,
  Struct,
} from "apache-arrow";
import * as wasm from "parquet-wasm";

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

/**
 * Yields WASM batches of at most `maxSliceBytes` decoded bytes and `maxSliceRows` rows each, in input order.
 * Every yielded batch must be handed to parquet-wasm or freed.
 */
export async function* wasmSlices(
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  schema: Schema,
  limits: { maxSliceBytes: number; maxSliceRows: number },
  signal: AbortSignal | undefined,
): AsyncGenerator<wasm.RecordBatch> {
  for await (const input of batches) {
    signal?.throwIfAborted();
    const batch = conformBatch(schema, input);
    const rows = batch.numRows;
    if (rows === 0) continue;
    const bytesPerRow = Math.max(1, batchDecodedBytes(batch) / rows);
    const sliceRows = Math.max(
      1,
      Math.min(limits.maxSliceRows, Math.floor(limits.maxSliceBytes / bytesPerRow)),
    );
    for (let start = 0; start < rows; start += sliceRows) {
      const piece =
        start === 0 && sliceRows >= rows ? batch : batch.slice(start, Math.min(rows, start + sliceRows));
      const ipc = RecordBatchStreamWriter.writeAll([piece]).toUint8Array(true);
      const table = wasm.Table.fromIPCStream(ipc);
      const converted = table.recordBatches();
      table.free();
      for (const b of converted) yield b;
    }
  }
}
