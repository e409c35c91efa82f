/**
 * Decodes one column chunk's pages with hyparquet's page decoders (header, decompression, level and value
 * decoding), keeping what the Arrow assembler needs: raw definition/repetition levels per page and the
 * page's non-null physical values, with dictionary pages dereferenced. No logical conversion happens here
 * (no Date, no lossy decimal, no string decoding): that is the assembler's job.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { ColumnMetaData, Compressors, DecodedArray, PageHeader } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { decompressPage, readDataPage } from "hyparquet/src/datapage.js";
import { readPlain } from "hyparquet/src/plain.js";
import { readDataPageV2Exact } from "./data-page-v2.js";
import type { LeafNode } from "./schema.js";

type ColumnDecoder = Parameters<typeof readDataPage>[2];

/** Physical values of one page: typed arrays for numbers, arrays of byte views / booleans / INT96 bigints. */
export type PageValues = DecodedArray;

export interface DecodedPage {
  /** Number of level entries (values incl. nulls and empty lists) in the page. */
  numLevels: number;
  /** Definition levels, or null when every entry is at the max level. */
  defs: ArrayLike<number> | null;
  /** Repetition levels, or null when the column is not repeated. */
  reps: ArrayLike<number> | null;
  values: PageValues;
}

const RAW_PARSERS = {
  timestampFromMilliseconds: (v: bigint) => v,
  timestampFromMicroseconds: (v: bigint) => v,
  timestampFromNanoseconds: (v: bigint) => v,
  dateFromDays: (v: number) => v,
  stringFromBytes: (v: Uint8Array) => v,
  jsonFromBytes: (v: Uint8Array) => v,
  geometryFromBytes: (v: Uint8Array) => v,
  geographyFromBytes: (v: Uint8Array) => v,
  uuidFromBytes: (v: Uint8Array) => v,
};

/** Decodes every page of a column chunk held in `bytes` (the chunk's exact byte range). */
export function decodeColumnChunk(
  bytes: Uint8Array,
  leaf: LeafNode,
  meta: ColumnMetaData,
  compressors: Compressors,
  fileLabel: string,
): DecodedPage[] {
  const decoder: ColumnDecoder = {
    pathInSchema: meta.path_in_schema,
    type: meta.type,
    element: leaf.element,
    schemaPath: leaf.schemaPath,
    codec: meta.codec,
    parsers: RAW_PARSERS,
    compressors,
    utf8: false,
  };
  const maxDef = leaf.def;
  const totalValues = Number(meta.num_values);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const pages: DecodedPage[] = [];
  let dictionary: DecodedArray | undefined;
  let seen = 0;
  try {
    while (seen < totalValues && reader.offset < bytes.byteLength) {
      const header: PageHeader = parquetHeader(reader);
      const body = bytes.subarray(reader.offset, reader.offset + header.compressed_page_size);
      reader.offset += header.compressed_page_size;
      if (header.type === "DICTIONARY_PAGE") {
        const page = decompressPage(body, header.uncompressed_page_size, meta.codec, compressors);
        const pageReader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
        const count = header.dictionary_page_header?.num_values ?? 0;
        dictionary = readPlain(pageReader, meta.type, count, leaf.element.type_length);
        continue;
      }
      let levels: ReturnType<typeof readDataPage>;
      let numLevels: number;
      let encoding: string;
      if (header.type === "DATA_PAGE") {
        const daph = header.data_page_header!;
        const page = decompressPage(body, header.uncompressed_page_size, meta.codec, compressors);
        levels = readDataPage(page, daph, decoder);
        numLevels = daph.num_values;
        encoding = daph.encoding;
      } else if (header.type === "DATA_PAGE_V2") {
        const daph2 = header.data_page_header_v2!;
        const v2 = readDataPageV2Exact(body, header, leaf, meta, compressors);
        levels = {
          definitionLevels: v2.definitionLevels ?? [],
          repetitionLevels: v2.repetitionLevels ?? [],
          dataPage: v2.values,
        };
        numLevels = daph2.num_values;
        encoding = daph2.encoding;
      } else {
        continue; // index pages carry nothing we need
      }
      seen += numLevels;
      let values = levels.dataPage;
      if (encoding.endsWith("_DICTIONARY")) {
        if (!dictionary) throw new Error("dictionary-encoded page without a dictionary page");
        values = gather(dictionary, values as ArrayLike<number>);
      }
      const defs = levels.definitionLevels;
      pages.push({
        numLevels,
        defs: maxDef > 0 && defs && defs.length > 0 && !allAt(defs, maxDef) ? defs : null,
        reps: levels.repetitionLevels.length > 0 ? levels.repetitionLevels : null,
        values,
      });
    }
  } catch (error) {
    if (error instanceof DeltaLiteError) throw error;
    throw new DeltaLiteError(
      "generic",
      `cannot decode Parquet column "${meta.path_in_schema.join(".")}" of ${fileLabel}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return pages;
}

function allAt(levels: ArrayLike<number>, max: number): boolean {
  for (let i = 0; i < levels.length; i++) if (levels[i] !== max) return false;
  return true;
}

/** Dereferences dictionary indices into a values array of the dictionary's own kind. */
function gather(dictionary: DecodedArray, indices: ArrayLike<number>): DecodedArray {
  const n = indices.length;
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
