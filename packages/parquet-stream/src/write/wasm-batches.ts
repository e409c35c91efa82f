/**
 * apache-arrow RecordBatches → parquet-wasm (arrow-rs) RecordBatches, in slices small enough that parquet-rs
 * can close a row group at its byte limit (it only checks between batches) and that WebAssembly memory
 * holds one slice plus the row group being encoded. The batch crosses into WASM as an Arrow IPC stream.
 */
import { DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import { type Data, type RecordBatch, RecordBatchStreamWriter, type Schema } from "apache-arrow";
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
  for await (const batch of batches) {
    signal?.throwIfAborted();
    checkBatchSchema(schema, batch);
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
