/**
 * Decodes one column chunk's pages (header, decompression, levels, values; dictionary pages kept for the
 * pages that reference them), keeping what the Arrow assembler needs: raw definition/repetition levels per
 * page and the page's non-null physical values. No logical conversion happens here (no Date, no lossy
 * decimal, no string decoding): that is the assembler's job.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { ColumnMetaData, Compressors, PageHeader } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { type PageValues, readDataPageV1, readDataPageV2, readDictionaryPage } from "./data-pages.js";
import type { LeafNode } from "./schema.js";

export type { ByteArrayValues, DictionaryByteArrayValues, PageValues } from "./data-pages.js";

export interface DecodedPage {
  /** Number of level entries (values incl. nulls and empty lists) in the page. */
  numLevels: number;
  /** Definition levels, or null when every entry is at the max level. */
  defs: Uint8Array | null;
  /** Repetition levels, or null when the column is not repeated. */
  reps: Uint8Array | null;
  values: PageValues;
}

/** Decodes every page of a column chunk held in `bytes` (the chunk's exact byte range). */
export function decodeColumnChunk(
  bytes: Uint8Array,
  leaf: LeafNode,
  meta: ColumnMetaData,
  compressors: Compressors,
  fileLabel: string,
): DecodedPage[] {
  const totalValues = Number(meta.num_values);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const pages: DecodedPage[] = [];
  let dictionary: PageValues | undefined;
  let seen = 0;
  try {
    while (seen < totalValues && reader.offset < bytes.byteLength) {
      const header: PageHeader = parquetHeader(reader);
      const body = bytes.subarray(reader.offset, reader.offset + header.compressed_page_size);
      reader.offset += header.compressed_page_size;
      if (header.type === "DICTIONARY_PAGE") {
        dictionary = readDictionaryPage(body, header, leaf, meta, compressors);
        continue;
      }
      const read =
        header.type === "DATA_PAGE"
          ? readDataPageV1
          : header.type === "DATA_PAGE_V2"
            ? readDataPageV2
            : undefined;
      if (!read) continue; // index pages carry nothing we need
      const page = read(body, header, leaf, meta, compressors, dictionary);
      seen += page.numLevels;
      const defs = page.definitionLevels;
      pages.push({
        numLevels: page.numLevels,
        defs: defs && page.values.length < page.numLevels ? defs : null,
        reps: page.repetitionLevels,
        values: page.values,
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
