/**
 * batchIpcStream: the IPC stream it assembles reads back, value for value, in apache-arrow's reader and in
 * arrow-rs's (parquet-wasm's and, when built, the native engine's), for every column kind of the samples,
 * sliced at any row (bitmaps off byte boundaries, offsets not starting at zero); the types it leaves to
 * apache-arrow's writer come out as that writer writes them.
 */
import { createRequire } from "node:module";
import { parquetNativeEngine } from "@deltalite/parquet-native";
import {
  Dictionary,
  Field,
  Int32,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  tableFromIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { batchIpcStream, schemaIpcStream } from "../src/arrow/ipc-stream.js";
import { plain, sampleBatch } from "./arrow-samples.js";

const require = createRequire(import.meta.url);
const wasm = require("parquet-wasm") as {
  Table: { fromIPCStream(ipc: Uint8Array): { intoIPCStream(): Uint8Array } };
  readParquet(bytes: Uint8Array): { intoIPCStream(): Uint8Array };
};
const nativeEngine = parquetNativeEngine();
const native = require(nativeEngine.entry) as {
  available: boolean;
  Table: { fromIPCStream(ipc: Uint8Array): unknown };
  writeParquet(table: unknown, props: unknown): Uint8Array;
  WriterPropertiesBuilder: new () => { build(): unknown };
};

/** Every value of every column, as plain JSON (bigints and maps spelled out). */
function rowsOf(batch: { numCols: number; numRows: number; getChildAt(i: number): unknown }): unknown[][] {
  const out: unknown[][] = [];
  for (let c = 0; c < batch.numCols; c++) {
    const column = batch.getChildAt(c) as { get(i: number): { toJSON?: () => unknown } | null };
    const values: unknown[] = [];
    for (let i = 0; i < batch.numRows; i++) {
      const v = column.get(i);
      values.push(plain(v?.toJSON?.() ?? v));
    }
    out.push(values);
  }
  return out;
}

function readBack(ipc: Uint8Array): RecordBatch {
  const table = tableFromIPC(ipc);
  expect(table.batches.length).toBeLessThanOrEqual(1);
  return table.batches[0] ?? (new RecordBatch(table.schema) as RecordBatch);
}

describe("batchIpcStream", () => {
  it("reads back exactly in apache-arrow, sliced anywhere (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.integer(), fc.nat(), fc.nat(), (n, seed, a, b) => {
        const batch = sampleBatch(n, seed);
        const start = a % n;
        const slice = batch.slice(start, start + (b % (n - start + 1)));
        const ipc = batchIpcStream(slice);
        expect(ipc.byteOffset).toBe(0);
        expect(ipc.byteLength).toBe(ipc.buffer.byteLength);
        const back = readBack(ipc);
        expect(back.numRows).toBe(slice.numRows);
        expect(back.schema.fields.map(String)).toEqual(slice.schema.fields.map(String));
        expect(rowsOf(back)).toEqual(rowsOf(slice));
      }),
      { numRuns: 120 },
    );
  });

  it("reads back exactly in arrow-rs (parquet-wasm's IPC reader), sliced off byte boundaries", () => {
    for (const [n, start, length] of [
      [50, 0, 50],
      [50, 3, 41],
      [64, 9, 0],
      [33, 13, 20],
    ] as const) {
      const slice = sampleBatch(n, n + start).slice(start, start + length);
      const viaRust = tableFromIPC(wasm.Table.fromIPCStream(batchIpcStream(slice)).intoIPCStream());
      expect(viaRust.numRows).toBe(length);
      if (length > 0) expect(rowsOf(viaRust.batches[0] as RecordBatch)).toEqual(rowsOf(slice));
    }
  });

  it.runIf(native.available)("is read by the native engine (written to Parquet, read back)", () => {
    const slice = sampleBatch(80, 5).slice(11, 60);
    const bytes = native.writeParquet(
      native.Table.fromIPCStream(batchIpcStream(slice)),
      new native.WriterPropertiesBuilder().build(),
    );
    const back = tableFromIPC(wasm.readParquet(bytes).intoIPCStream());
    expect(back.numRows).toBe(49);
    expect(rowsOf(back.batches[0] as RecordBatch)).toEqual(rowsOf(slice));
  });

  it("leaves dictionary columns to apache-arrow's writer, byte for byte", () => {
    const dict = vectorFromArray(["a", "b", "a", null, "c"], new Dictionary(new Utf8(), new Int32()));
    const schema = new Schema([new Field("d", dict.type, true)]);
    const data = makeData({
      type: new Struct(schema.fields),
      length: 5,
      nullCount: 0,
      children: [dict.data[0]!],
    });
    const batch = new RecordBatch(schema, data as never);
    const ipc = batchIpcStream(batch);
    expect([...ipc]).toEqual([...RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true)]);
    expect(readBack(ipc).getChildAt(0)!.toArray()).toEqual(["a", "b", "a", null, "c"]);
  });

  it("encodes a schema once and hands back the same stream (schema message, end of stream)", () => {
    const schema = new Schema([new Field("x", new Int32(), true)]);
    const stream = schemaIpcStream(schema);
    expect(schemaIpcStream(schema)).toBe(stream);
    expect(tableFromIPC(stream).schema.fields.map(String)).toEqual(["x: Int32"]);
    expect([...stream.subarray(-8)]).toEqual([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
  });
});
