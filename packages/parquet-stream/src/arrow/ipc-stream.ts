/**
 * Owns `batchIpcStream`: one RecordBatch as an Arrow IPC stream (the schema message, one record-batch
 * message, the end-of-stream marker) in a buffer of its own, with each column buffer copied once into place;
 * or laid out as parts for the native engine to join (`batchIpcLayout`), so this thread copies nothing.
 * apache-arrow's RecordBatchStreamWriter does the same through its generic visitor, rebuilt offsets and a
 * join of many chunks: the eight source slices of a 1M-row upsert took ~50–63 ms of the main thread there
 * (a cold process, CPU profile, merge-engine BENCHMARKS.md session 29), which is why this one exists.
 * Flat and nested types are assembled here (the IPC format's layouts); dictionaries, unions, views, large
 * offsets and the Null type go through apache-arrow's writer, which handles them.
 */

import { type Data, RecordBatchStreamWriter, type Schema, Table, Type, tableToIPC } from "apache-arrow";
import { Builder } from "flatbuffers";
import { bytesOf, copyBits } from "./bytes.js";

/** The IPC format's constants this module writes (Message.fbs, Schema.fbs). */
const METADATA_V5 = 4;
const HEADER_RECORD_BATCH = 3;
const CONTINUATION = 0xffffffff;
const EOS_BYTES = 8;
/** The end-of-stream marker: the continuation, then a zero length. */
const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** A field node of the record batch: its length and null count, in depth-first field order. */
interface FieldNode {
  length: number;
  nullCount: number;
}

/** The body as it is gathered: the nodes, and each buffer with its offset in the body. */
interface Body {
  nodes: FieldNode[];
  buffers: Uint8Array[];
  offsets: number[];
  byteLength: number;
}

const align8 = (n: number) => (n + 7) & ~7;

/**
 * An IPC stream laid out but not joined: each part (the schema message, the record batch's prefix and
 * metadata, each body buffer, the end-of-stream marker) with its byte offset in a stream of `byteLength`
 * bytes whose gaps are zeros. The native engine joins it off the JavaScript thread (native-stream.ts);
 * `joinIpc` makes the stream.
 */
export interface IpcLayout {
  parts: Uint8Array[];
  offsets: number[];
  byteLength: number;
}

/**
 * The IPC stream of `batch` (see module comment) laid out, its schema message that of `schema`: pass the
 * writer's own Schema object for batches conformed to it, as its message is encoded once per Schema object
 * and apache-arrow gives every RecordBatch it makes a new one. The parts are views of the batch's buffers.
 */
export function batchIpcLayout(
  batch: { schema: Schema; data: Data; numRows: number },
  schema: Schema = batch.schema,
): IpcLayout {
  const body: Body = { nodes: [], buffers: [], offsets: [], byteLength: 0 };
  const children = batch.data.children as Data[];
  if (!children.every((child) => assemble(child, body))) {
    const ipc = writerIpc(batch);
    return { parts: [ipc], offsets: [0], byteLength: ipc.byteLength };
  }
  const message = schemaMessage(schema);
  const metadata = recordBatchMetadata(batch.numRows, body);
  const metadataLength = align8(metadata.byteLength);
  const prefix = new Uint8Array(8);
  const prefixView = new DataView(prefix.buffer);
  prefixView.setUint32(0, CONTINUATION, true);
  prefixView.setInt32(4, metadataLength, true);
  const bodyStart = message.byteLength + 8 + metadataLength;
  const byteLength = bodyStart + body.byteLength + EOS_BYTES;
  const parts = [message, prefix, metadata, ...body.buffers, END_OF_STREAM];
  const offsets = [0, message.byteLength, message.byteLength + 8];
  for (const at of body.offsets) offsets.push(bodyStart + at);
  offsets.push(byteLength - EOS_BYTES);
  return { parts, offsets, byteLength };
}

/** The stream laid out by `layout`, in a buffer that no other view shares. */
export function joinIpc(layout: IpcLayout): Uint8Array {
  const { parts, offsets, byteLength } = layout;
  const only = parts[0] as Uint8Array;
  if (parts.length === 1 && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength) return only;
  const out = new Uint8Array(byteLength);
  for (let i = 0; i < parts.length; i++) out.set(parts[i] as Uint8Array, offsets[i] as number);
  return out;
}

/** The IPC stream of `batch` (`batchIpcLayout`) in a buffer of its own. */
export function batchIpcStream(
  batch: { schema: Schema; data: Data; numRows: number },
  schema: Schema = batch.schema,
): Uint8Array {
  return joinIpc(batchIpcLayout(batch, schema));
}

/** apache-arrow's writer: what the types this module does not assemble go through. */
function writerIpc(batch: { schema: Schema; data: Data; numRows: number }): Uint8Array {
  const ipc = RecordBatchStreamWriter.writeAll([batch as never]).toUint8Array(true);
  return ipc.byteOffset === 0 && ipc.byteLength === ipc.buffer.byteLength ? ipc : ipc.slice();
}

/**
 * IPC streams of schemas already encoded: an upsert starts a stream per partition with the same schema, and
 * encoding it cost ~1.5 ms of the main thread each time (merge-engine BENCHMARKS.md, session 22). The bytes
 * are never transferred (they are copied where they go), so one buffer serves every caller.
 */
const schemaStreams = new WeakMap<Schema, Uint8Array>();

/** An IPC stream of `schema` alone: its schema message and the end-of-stream marker. */
export function schemaIpcStream(schema: Schema): Uint8Array {
  let stream = schemaStreams.get(schema);
  if (stream === undefined) {
    stream = tableToIPC(new Table(schema), "stream");
    schemaStreams.set(schema, stream);
  }
  return stream;
}

/** The schema message of a stream of `schema` (its stream without the end-of-stream marker). */
function schemaMessage(schema: Schema): Uint8Array {
  const stream = schemaIpcStream(schema);
  return stream.subarray(0, stream.byteLength - EOS_BYTES);
}

function addBuffer(body: Body, bytes: Uint8Array): void {
  body.buffers.push(bytes);
  body.offsets.push(body.byteLength);
  body.byteLength += align8(bytes.byteLength);
}

/** `length` bits of `bitmap` from bit `offset`, starting at bit 0 (a view when the offset is whole bytes). */
function bitsFrom(bitmap: Uint8Array, offset: number, length: number): Uint8Array {
  const bytes = (length + 7) >> 3;
  if ((offset & 7) === 0) return bitmap.subarray(offset >> 3, (offset >> 3) + bytes);
  const out = new Uint8Array(bytes);
  copyBits(bitmap, offset, out, 0, length);
  return out;
}

/** Offsets starting at zero: `offsets` itself when they do, else a rebased copy. */
function fromZero(offsets: Int32Array, length: number): Int32Array {
  const begin = offsets[0] as number;
  const used = offsets.subarray(0, length + 1);
  if (begin === 0) return used;
  const out = new Int32Array(length + 1);
  for (let i = 0; i <= length; i++) out[i] = (used[i] as number) - begin;
  return out;
}

/**
 * Adds `data`'s node and buffers (and its children's) to the body, in the IPC layout of its type; false when
 * the type is one this module leaves to apache-arrow. apache-arrow keeps fixed-width values and offsets sliced
 * to the Data's own rows; bitmaps (validity and Bool values) keep the slice's `offset`.
 */
function assemble(data: Data, body: Body): boolean {
  const { length, offset } = data;
  const typeId = data.type.typeId;
  if (!ASSEMBLED.has(typeId)) return false;
  const nullCount = data.nullCount;
  body.nodes.push({ length, nullCount });
  const bitmap = data.nullBitmap as Uint8Array | undefined;
  addBuffer(body, nullCount > 0 && bitmap ? bitsFrom(bitmap, offset, length) : new Uint8Array(0));
  switch (typeId) {
    case Type.Bool: {
      const values = data.values as Uint8Array | undefined;
      addBuffer(body, values ? bitsFrom(values, offset, length) : new Uint8Array((length + 7) >> 3));
      return true;
    }
    case Type.Utf8:
    case Type.Binary: {
      const offsets = data.valueOffsets as Int32Array;
      const values = data.values as Uint8Array;
      const begin = offsets[0] as number;
      addBuffer(body, bytesOf(fromZero(offsets, length)));
      addBuffer(body, values.subarray(begin, offsets[length] as number));
      return true;
    }
    case Type.List:
    case Type.Map: {
      const offsets = data.valueOffsets as Int32Array;
      const begin = offsets[0] as number;
      addBuffer(body, bytesOf(fromZero(offsets, length)));
      const child = (data.children[0] as Data).slice(begin, (offsets[length] as number) - begin);
      return assemble(child, body);
    }
    case Type.Struct:
    case Type.FixedSizeList:
      return (data.children as Data[]).every((child) => assemble(child, body));
    default: {
      const values = data.values as ArrayBufferView & { BYTES_PER_ELEMENT: number };
      addBuffer(body, bytesOf(values, values ? length * data.stride * values.BYTES_PER_ELEMENT : 0));
      return true;
    }
  }
}

/** The type ids `assemble` lays out itself. */
const ASSEMBLED = new Set<number>([
  Type.Bool,
  Type.Int,
  Type.Float,
  Type.Date,
  Type.Time,
  Type.Timestamp,
  Type.Decimal,
  Type.Interval,
  Type.Duration,
  Type.FixedSizeBinary,
  Type.Utf8,
  Type.Binary,
  Type.List,
  Type.Map,
  Type.Struct,
  Type.FixedSizeList,
]);

/**
 * Writes `value` (a whole number in [0, 2^53)) as a little-endian int64, the builder growing down: its high
 * word, then its low word. flatbuffers' own `writeInt64` takes a BigInt and splits it with BigInt arithmetic;
 * in a cold recent 1M upsert the eight source slices' metadata spent ~14 ms of the main thread there (CPU
 * profile, merge-engine BENCHMARKS.md session 31). `| 0` keeps a number's low 32 bits (modulo 2^32).
 */
function writeInt64(fb: Builder, value: number): void {
  fb.writeInt32(Math.floor(value / 2 ** 32) | 0);
  fb.writeInt32(value | 0);
}

/** A table's int64 field `slot` (left out at its default, 0), as `addFieldInt64` would write it. */
function addFieldInt64(fb: Builder, slot: number, value: number): void {
  if (value === 0) return;
  fb.prep(8, 0);
  writeInt64(fb, value);
  fb.slot(slot);
}

/** The flatbuffer of a Message holding a RecordBatch header over `body` (Message.fbs). */
function recordBatchMetadata(rows: number, body: Body): Uint8Array {
  const fb = new Builder(128 + 16 * (body.nodes.length + body.buffers.length));
  fb.startVector(16, body.buffers.length, 8);
  for (let i = body.buffers.length - 1; i >= 0; i--) {
    fb.prep(8, 16);
    writeInt64(fb, (body.buffers[i] as Uint8Array).byteLength);
    writeInt64(fb, body.offsets[i] as number);
  }
  const buffers = fb.endVector();
  fb.startVector(16, body.nodes.length, 8);
  for (let i = body.nodes.length - 1; i >= 0; i--) {
    const node = body.nodes[i] as FieldNode;
    fb.prep(8, 16);
    writeInt64(fb, node.nullCount);
    writeInt64(fb, node.length);
  }
  const nodes = fb.endVector();
  fb.startObject(5); // RecordBatch: length, nodes, buffers, compression, variadicBufferCounts
  addFieldInt64(fb, 0, rows);
  fb.addFieldOffset(1, nodes, 0);
  fb.addFieldOffset(2, buffers, 0);
  const header = fb.endObject();
  fb.startObject(5); // Message: version, header_type, header, bodyLength, custom_metadata
  fb.addFieldInt16(0, METADATA_V5, 0);
  fb.addFieldInt8(1, HEADER_RECORD_BATCH, 0);
  fb.addFieldOffset(2, header, 0);
  addFieldInt64(fb, 3, body.byteLength);
  fb.finish(fb.endObject());
  return fb.asUint8Array();
}
