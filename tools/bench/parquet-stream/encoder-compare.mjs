// Encoder comparison (not a test): 1M rows × 4 nullable columns (id int64, day string with 30 distinct
// values, val 16-char random hex string, amount float64) from an apache-arrow Table to Parquet bytes, with
// parquet-wasm 0.8.0 (arrow-rs 59) and hyparquet-writer 0.17.0. Run one encoder/codec per process:
//   node tools/bench/parquet-stream/encoder-compare.mjs <parquet-wasm|hyparquet-writer> <snappy|zstd|uncompressed> [rows]
// Prints one JSON line: wall ms of the encode (Arrow in → bytes out, conversion included), output bytes,
// and maxRSS of the whole process (data generation included). Run it several times: the VM is noisy.

import { makeData, makeVector, RecordBatchStreamWriter, Table, Utf8 } from "apache-arrow";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import * as pw from "parquet-wasm";

const [encoder = "parquet-wasm", codec = "snappy", rowsArg = "1000000"] = process.argv.slice(2);
const n = Number(rowsArg);
const ROW_GROUP = 131072;

const enc = new TextEncoder();
function utf8Vector(strings) {
  const offsets = new Int32Array(strings.length + 1);
  let data = new Uint8Array(strings.length * 17 + 64);
  let pos = 0;
  for (let i = 0; i < strings.length; i++) {
    pos += enc.encodeInto(strings[i], data.subarray(pos)).written;
    offsets[i + 1] = pos;
  }
  data = data.subarray(0, pos);
  return makeVector(
    makeData({ type: new Utf8(), length: strings.length, nullCount: 0, valueOffsets: offsets, data }),
  );
}
const id = new BigInt64Array(n);
const amount = new Float64Array(n);
const days = Array.from({ length: 30 }, (_, i) => `2026-01-${String(i + 1).padStart(2, "0")}`);
const dayStrings = new Array(n);
const valStrings = new Array(n);
for (let i = 0; i < n; i++) {
  id[i] = BigInt(i);
  amount[i] = Math.random() * 1000;
  dayStrings[i] = days[i % 30];
  valStrings[i] = `${Math.random().toString(16).slice(2)}0000000000000000`.slice(0, 16);
}
const table = new Table({
  id: makeVector(id),
  day: utf8Vector(dayStrings),
  val: utf8Vector(valStrings),
  amount: makeVector(amount),
});

let bytesOut = 0;
const started = performance.now();
if (encoder === "parquet-wasm") {
  const compression = {
    snappy: pw.Compression.SNAPPY,
    zstd: pw.Compression.ZSTD,
    uncompressed: pw.Compression.UNCOMPRESSED,
  }[codec];
  const props = new pw.WriterPropertiesBuilder()
    .setCompression(compression)
    .setMaxRowGroupSize(ROW_GROUP)
    .build();
  const batches = [];
  for (let start = 0; start < n; start += ROW_GROUP)
    batches.push(...table.slice(start, Math.min(n, start + ROW_GROUP)).batches);
  let next = 0;
  const input = new ReadableStream({
    pull(controller) {
      if (next >= batches.length) return controller.close();
      const ipc = RecordBatchStreamWriter.writeAll([batches[next++]]).toUint8Array(true);
      for (const b of pw.Table.fromIPCStream(ipc).recordBatches()) controller.enqueue(b);
    },
  });
  const output = await pw.transformParquetStream(input, props);
  for await (const chunk of output) bytesOut += chunk.byteLength;
} else {
  const compressors = {};
  if (codec === "zstd") {
    const zstd = await import("@bokuweb/zstd-wasm");
    await zstd.init();
    compressors.ZSTD = (input) => zstd.compress(input, 3);
  }
  const writer = new ByteWriter();
  const schema = [
    { name: "root", num_children: 4 },
    { name: "id", type: "INT64", repetition_type: "OPTIONAL" },
    { name: "day", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "val", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "amount", type: "DOUBLE", repetition_type: "OPTIONAL" },
  ];
  const pq = new ParquetWriter({ writer, schema, codec: codec.toUpperCase(), compressors });
  writer.flush = () => {
    bytesOut += writer.index;
    writer.index = 0;
  };
  for (let start = 0; start < n; start += ROW_GROUP) {
    const end = Math.min(n, start + ROW_GROUP);
    // Arrow → hyparquet-writer column data (strings must become JS strings).
    const columnData = [
      { name: "id", data: table.getChild("id").data[0].values.subarray(start, end) },
      { name: "day", data: table.getChild("day").slice(start, end).toArray() },
      { name: "val", data: table.getChild("val").slice(start, end).toArray() },
      { name: "amount", data: table.getChild("amount").data[0].values.subarray(start, end) },
    ];
    await pq.write({ columnData, rowGroupSize: end - start });
  }
  pq.finish();
  bytesOut += writer.index;
}
const ms = performance.now() - started;
console.log(
  JSON.stringify({
    encoder,
    codec,
    rows: n,
    ms: Math.round(ms),
    bytes: bytesOut,
    maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
