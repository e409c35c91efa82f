/**
 * Data page decoding (V1 and V2) built from hyparquet's encoders, with two departures from hyparquet's own
 * page readers: levels decode into Uint8Arrays and BYTE_ARRAY values into (bytes, starts, ends) instead of
 * one Uint8Array object per value (the garbage collector was a quarter of read time), and a V2 page's value
 * count is the number of definition levels at the maximum — writers (pyarrow among them) fill `num_nulls`
 * with leaf-level nulls only, so in a list<struct> hyparquet's V2 reader ran past the page.
 */
import type { ColumnMetaData, Compressors, DataPageHeader, DecodedArray, PageHeader } from "hyparquet";
import { decompressPage } from "hyparquet/src/datapage.js";
import { deltaBinaryUnpack, deltaByteArray, deltaLengthByteArray } from "hyparquet/src/delta.js";
import { byteStreamSplit, readRleBitPackedHybrid } from "hyparquet/src/encoding.js";
import { readPlain } from "hyparquet/src/plain.js";
import type { LeafNode } from "./schema.js";

/** BYTE_ARRAY values as ranges of one buffer: value j is `bytes[starts[j], ends[j])`. */
export interface ByteArrayValues {
  kind: "byte-array";
  bytes: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  length: number;
}

/** Dictionary indices into BYTE_ARRAY dictionary values (dereferenced when the Arrow column is built). */
export interface DictionaryByteArrayValues {
  kind: "dictionary-byte-array";
  indices: Int32Array;
  dictionary: ByteArrayValues;
  length: number;
}

/** The non-null physical values of one page. */
export type PageValues = DecodedArray | ByteArrayValues | DictionaryByteArrayValues;

export interface DecodedDataPage {
  numLevels: number;
  /** Definition levels, or null when the column has none. */
  definitionLevels: Uint8Array | null;
  /** Repetition levels, or null when the column is not repeated. */
  repetitionLevels: Uint8Array | null;
  values: PageValues;
}

type Reader = { view: DataView; offset: number };

const bitWidth = (value: number) => 32 - Math.clz32(value);

function countAt(levels: Uint8Array, max: number): number {
  let n = 0;
  for (let i = 0; i < levels.length; i++) if (levels[i] === max) n++;
  return n;
}

/** Decodes a DATA_PAGE (V1): levels and values are compressed together. */
export function readDataPageV1(
  body: Uint8Array,
  header: PageHeader,
  leaf: LeafNode,
  meta: ColumnMetaData,
  compressors: Compressors,
  dictionary: PageValues | undefined,
): DecodedDataPage {
  const h = header.data_page_header as DataPageHeader;
  const page = decompressPage(body, header.uncompressed_page_size, meta.codec, compressors);
  const reader: Reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
  let repetitionLevels: Uint8Array | null = null;
  if (leaf.slotRep > 0) {
    repetitionLevels = new Uint8Array(h.num_values);
    readRleBitPackedHybrid(reader, bitWidth(leaf.slotRep), repetitionLevels);
  }
  let definitionLevels: Uint8Array | null = null;
  let count = h.num_values;
  if (leaf.def > 0) {
    definitionLevels = new Uint8Array(h.num_values);
    readRleBitPackedHybrid(reader, bitWidth(leaf.def), definitionLevels);
    count = countAt(definitionLevels, leaf.def);
  }
  const values = readValues(reader, h.encoding, count, leaf, meta, dictionary, true);
  return { numLevels: h.num_values, definitionLevels, repetitionLevels, values };
}

/** Decodes a DATA_PAGE_V2: levels are never compressed; values are unless `is_compressed` is false. */
export function readDataPageV2(
  body: Uint8Array,
  header: PageHeader,
  leaf: LeafNode,
  meta: ColumnMetaData,
  compressors: Compressors,
  dictionary: PageValues | undefined,
): DecodedDataPage {
  const h = header.data_page_header_v2!;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let repetitionLevels: Uint8Array | null = null;
  if (leaf.slotRep > 0) {
    repetitionLevels = new Uint8Array(h.num_values);
    readRleBitPackedHybrid(
      { view, offset: 0 },
      bitWidth(leaf.slotRep),
      repetitionLevels,
      h.repetition_levels_byte_length,
    );
  }
  let definitionLevels: Uint8Array | null = null;
  let count = h.num_values;
  if (leaf.def > 0) {
    definitionLevels = new Uint8Array(h.num_values);
    readRleBitPackedHybrid(
      { view, offset: h.repetition_levels_byte_length },
      bitWidth(leaf.def),
      definitionLevels,
      h.definition_levels_byte_length,
    );
    count = countAt(definitionLevels, leaf.def);
  }
  const levelBytes = h.repetition_levels_byte_length + h.definition_levels_byte_length;
  const valueSize = header.uncompressed_page_size - levelBytes;
  let page = body.subarray(levelBytes);
  if (h.is_compressed !== false && valueSize > 0)
    page = decompressPage(page, valueSize, meta.codec, compressors);
  const reader: Reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
  const values = readValues(reader, h.encoding, count, leaf, meta, dictionary, false);
  return { numLevels: h.num_values, definitionLevels, repetitionLevels, values };
}

/** Decodes a dictionary page's values (PLAIN). */
export function readDictionaryPage(
  body: Uint8Array,
  header: PageHeader,
  leaf: LeafNode,
  meta: ColumnMetaData,
  compressors: Compressors,
): PageValues {
  const page = decompressPage(body, header.uncompressed_page_size, meta.codec, compressors);
  const reader: Reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
  const count = header.dictionary_page_header?.num_values ?? 0;
  if (meta.type === "BYTE_ARRAY") return readPlainByteArray(reader, count);
  return readPlain(reader, meta.type, count, leaf.element.type_length);
}

function readPlainByteArray(reader: Reader, count: number): ByteArrayValues {
  const { view } = reader;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let at = reader.offset;
  for (let i = 0; i < count; i++) {
    const len = view.getUint32(at, true);
    at += 4;
    starts[i] = at;
    at += len;
    ends[i] = at;
  }
  if (at > view.byteLength) throw new Error("BYTE_ARRAY values run past the end of the page");
  reader.offset = at;
  return { kind: "byte-array", bytes, starts, ends, length: count };
}

function readValues(
  reader: Reader,
  encoding: string,
  count: number,
  leaf: LeafNode,
  meta: ColumnMetaData,
  dictionary: PageValues | undefined,
  v1: boolean,
): PageValues {
  const type = meta.type;
  switch (encoding) {
    case "PLAIN":
      if (type === "BYTE_ARRAY") return readPlainByteArray(reader, count);
      return readPlain(reader, type, count, leaf.element.type_length);
    case "RLE": {
      // Booleans: RLE values carry a 4-byte length prefix.
      const bits = new Uint8Array(count);
      readRleBitPackedHybrid(reader, 1, bits);
      return Array.from(bits, (b) => b === 1);
    }
    case "PLAIN_DICTIONARY":
    case "RLE_DICTIONARY": {
      if (!dictionary) throw new Error("dictionary-encoded page without a dictionary page");
      const indices = new Int32Array(count);
      if (count > 0) {
        const width = reader.view.getUint8(reader.offset++);
        if (width > 0) readRleBitPackedHybrid(reader, width, indices, reader.view.byteLength - reader.offset);
      }
      return dereference(dictionary, indices);
    }
    case "DELTA_BINARY_PACKED": {
      const out = type === "INT32" ? new Int32Array(count) : new BigInt64Array(count);
      if (count > 0) deltaBinaryUnpack(reader, count, out);
      return out;
    }
    case "DELTA_LENGTH_BYTE_ARRAY": {
      const out: Uint8Array[] = new Array(count);
      if (count > 0) deltaLengthByteArray(reader, count, out);
      return out;
    }
    case "DELTA_BYTE_ARRAY": {
      const out: Uint8Array[] = new Array(count);
      if (count > 0) deltaByteArray(reader, count, out);
      return out;
    }
    case "BYTE_STREAM_SPLIT":
      return byteStreamSplit(reader, count, type, leaf.element.type_length);
    default:
      throw new Error(`unsupported encoding ${encoding} in a ${v1 ? "V1" : "V2"} data page`);
  }
}

/** Typed dictionaries are gathered at once; byte-array dictionaries keep their indices until assembly. */
function dereference(dictionary: PageValues, indices: Int32Array): PageValues {
  const n = indices.length;
  if ((dictionary as ByteArrayValues).kind === "byte-array") {
    return { kind: "dictionary-byte-array", indices, dictionary: dictionary as ByteArrayValues, length: n };
  }
  if (ArrayBuffer.isView(dictionary)) {
    const Ctor = dictionary.constructor as new (length: number) => typeof dictionary;
    const out = new Ctor(n) as unknown as { [i: number]: number | bigint };
    const dict = dictionary as unknown as { [i: number]: number | bigint };
    for (let i = 0; i < n; i++) out[i] = dict[indices[i]!]!;
    return out as unknown as DecodedArray;
  }
  const dict = dictionary as unknown[];
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = dict[indices[i]!];
  return out;
}
