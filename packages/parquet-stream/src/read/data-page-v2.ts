/**
 * DATA_PAGE_V2 decoding built from hyparquet's encoders. hyparquet's own `readDataPageV2` sizes the value
 * section by the header's `num_nulls`, which writers (pyarrow among them) fill with the count of leaf-level
 * nulls only; in a list<struct> the empty/null lists and structs are then counted as values and the
 * decoder runs past the page. Here the value count is the number of definition levels at the maximum.
 */
import type { ColumnMetaData, Compressors, DecodedArray, PageHeader } from "hyparquet";
import { decompressPage } from "hyparquet/src/datapage.js";
import { deltaBinaryUnpack, deltaByteArray, deltaLengthByteArray } from "hyparquet/src/delta.js";
import { byteStreamSplit, readRleBitPackedHybrid } from "hyparquet/src/encoding.js";
import { readPlain } from "hyparquet/src/plain.js";
import type { LeafNode } from "./schema.js";

export interface DecodedLevelsAndValues {
  definitionLevels: number[] | null;
  repetitionLevels: number[] | null;
  values: DecodedArray;
}

const bitWidth = (value: number) => 32 - Math.clz32(value);

/** Decodes one V2 data page (levels are never compressed; values are unless `is_compressed` is false). */
export function readDataPageV2Exact(
  body: Uint8Array,
  header: PageHeader,
  leaf: LeafNode,
  meta: ColumnMetaData,
  compressors: Compressors,
): DecodedLevelsAndValues {
  const h = header.data_page_header_v2!;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const maxRep = leaf.slotRep;
  const maxDef = leaf.def;
  let repetitionLevels: number[] | null = null;
  if (maxRep > 0) {
    repetitionLevels = new Array(h.num_values);
    readRleBitPackedHybrid(
      { view, offset: 0 },
      bitWidth(maxRep),
      repetitionLevels,
      h.repetition_levels_byte_length,
    );
  }
  let definitionLevels: number[] | null = null;
  let count = h.num_values;
  if (maxDef > 0) {
    definitionLevels = new Array(h.num_values);
    readRleBitPackedHybrid(
      { view, offset: h.repetition_levels_byte_length },
      bitWidth(maxDef),
      definitionLevels,
      h.definition_levels_byte_length,
    );
    count = 0;
    for (let i = 0; i < definitionLevels.length; i++) if (definitionLevels[i] === maxDef) count++;
  }
  const levelBytes = h.repetition_levels_byte_length + h.definition_levels_byte_length;
  const valueSize = header.uncompressed_page_size - levelBytes;
  let page = body.subarray(levelBytes);
  if (h.is_compressed !== false && valueSize > 0)
    page = decompressPage(page, valueSize, meta.codec, compressors);
  const reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
  const type = meta.type;
  let values: DecodedArray;
  switch (h.encoding) {
    case "PLAIN":
      values = readPlain(reader, type, count, leaf.element.type_length);
      break;
    case "RLE": {
      const bits = new Array(count);
      readRleBitPackedHybrid(reader, 1, bits); // boolean RLE values carry a 4-byte length prefix
      values = bits.map((b) => b === 1);
      break;
    }
    case "PLAIN_DICTIONARY":
    case "RLE_DICTIONARY": {
      const indices = new Array(count);
      if (count > 0) {
        const width = reader.view.getUint8(reader.offset++);
        if (width === 0) indices.fill(0);
        else readRleBitPackedHybrid(reader, width, indices, page.byteLength - 1);
      }
      values = indices;
      break;
    }
    case "DELTA_BINARY_PACKED":
      values = type === "INT32" ? new Int32Array(count) : new BigInt64Array(count);
      if (count > 0) deltaBinaryUnpack(reader, count, values as Int32Array | BigInt64Array);
      break;
    case "DELTA_LENGTH_BYTE_ARRAY":
      values = new Array(count);
      if (count > 0) deltaLengthByteArray(reader, count, values as Uint8Array[]);
      break;
    case "DELTA_BYTE_ARRAY":
      values = new Array(count);
      if (count > 0) deltaByteArray(reader, count, values as Uint8Array[]);
      break;
    case "BYTE_STREAM_SPLIT":
      values = byteStreamSplit(reader, count, type, leaf.element.type_length);
      break;
    default:
      throw new Error(`unsupported encoding ${h.encoding} in a V2 data page`);
  }
  return { definitionLevels, repetitionLevels, values };
}
