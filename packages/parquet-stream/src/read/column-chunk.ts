/**
 * Decodes one column chunk's pages (header, decompression, levels, values; dictionary pages kept for the
 * pages that reference them), keeping what the Arrow assembler needs: raw definition/repetition levels per
 * page and the page's non-null physical values. No logical conversion happens here (no Date, no lossy
 * decimal, no string decoding): that is the assembler's job.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { ColumnMetaData, Compressors, PageHeader } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import {
  type ByteArrayValues,
  type DictionaryByteArrayValues,
  type PageValues,
  readDataPageV1,
  readDataPageV2,
  readDictionaryPage,
} from "./data-pages.js";
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

/** Decodes the pages of a column chunk one at a time, as they are asked for. */
export function* decodePages(
  bytes: Uint8Array,
  leaf: LeafNode,
  meta: ColumnMetaData,
  compressors: Compressors,
  fileLabel: string,
): Generator<DecodedPage> {
  const totalValues = Number(meta.num_values);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  let dictionary: PageValues | undefined;
  let seen = 0;
  while (seen < totalValues && reader.offset < bytes.byteLength) {
    let page: DecodedPage | undefined;
    try {
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
      const decoded = read(body, header, leaf, meta, compressors, dictionary);
      seen += decoded.numLevels;
      const defs = decoded.definitionLevels;
      page = {
        numLevels: decoded.numLevels,
        defs: defs && decoded.values.length < decoded.numLevels ? defs : null,
        reps: decoded.repetitionLevels,
        values: decoded.values,
      };
    } catch (error) {
      throw decodeError(error, meta, fileLabel);
    }
    yield page;
  }
}

function decodeError(error: unknown, meta: ColumnMetaData, fileLabel: string): DeltaLiteError {
  if (error instanceof DeltaLiteError) return error;
  return new DeltaLiteError(
    "generic",
    `cannot decode Parquet column "${meta.path_in_schema.join(".")}" of ${fileLabel}: ${(error as Error).message}`,
    { cause: error },
  );
}

/**
 * Hands out a leaf's level entries and values row range by row range, decoding pages only as they are
 * reached: a row group read in batches holds one batch of decoded values (plus the current page) per column,
 * not the whole row group. A row starts at each repetition level 0; entries continuing a row (also across a
 * page boundary) go with that row.
 */
export class LeafCursor {
  readonly #pages: Generator<DecodedPage>;
  readonly #maxDef: number;
  #page: DecodedPage | undefined;
  #levelAt = 0;
  #valueAt = 0;
  #done = false;

  constructor(pages: Generator<DecodedPage>, maxDef: number) {
    this.#pages = pages;
    this.#maxDef = maxDef;
  }

  /** The entries of the next `rows` rows, as slices of the pages they lie in. */
  take(rows: number): DecodedPage[] {
    const out: DecodedPage[] = [];
    let started = 0;
    for (;;) {
      if (!this.#page || this.#levelAt >= this.#page.numLevels) {
        if (this.#done) break;
        const next = this.#pages.next();
        if (next.done) {
          this.#done = true;
          break;
        }
        this.#page = next.value;
        this.#levelAt = 0;
        this.#valueAt = 0;
        continue;
      }
      const page = this.#page;
      const { reps, defs, numLevels } = page;
      const from = this.#levelAt;
      let to = from;
      if (reps === null) {
        to = Math.min(numLevels, from + (rows - started));
        started += to - from;
      } else {
        for (; to < numLevels; to++) {
          if (reps[to] === 0) {
            if (started === rows) break;
            started++;
          }
        }
      }
      let values = to - from;
      if (defs !== null) {
        values = 0;
        for (let i = from; i < to; i++) if (defs[i] === this.#maxDef) values++;
      }
      if (to > from) out.push(slicePage(page, from, to, this.#valueAt, this.#valueAt + values));
      this.#levelAt = to;
      this.#valueAt += values;
      if (to < numLevels || (reps === null && started === rows)) break;
    }
    return out;
  }
}

function slicePage(
  page: DecodedPage,
  from: number,
  to: number,
  valueFrom: number,
  valueTo: number,
): DecodedPage {
  if (from === 0 && to === page.numLevels) return page;
  return {
    numLevels: to - from,
    defs: page.defs === null ? null : page.defs.subarray(from, to),
    reps: page.reps === null ? null : page.reps.subarray(from, to),
    values: sliceValues(page.values, valueFrom, valueTo),
  };
}

function sliceValues(values: PageValues, from: number, to: number): PageValues {
  const kind = (values as { kind?: string }).kind;
  if (kind === "byte-array") {
    const v = values as ByteArrayValues;
    return { ...v, starts: v.starts.subarray(from, to), ends: v.ends.subarray(from, to), length: to - from };
  }
  if (kind === "dictionary-byte-array") {
    const v = values as DictionaryByteArrayValues;
    return { ...v, indices: v.indices.subarray(from, to), length: to - from };
  }
  if (ArrayBuffer.isView(values)) return (values as Int32Array).subarray(from, to) as unknown as PageValues;
  return (values as unknown[]).slice(from, to) as PageValues;
}
