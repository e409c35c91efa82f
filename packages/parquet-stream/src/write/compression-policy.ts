/**
 * Which columns a writer stream writes UNCOMPRESSED although its codec says otherwise: a column that its
 * codec barely shrinks. parquet-rs compresses every page of every column chunk with the stream's codec; a
 * column of random text or hashes (hex payloads, UUIDs' cousins) comes out of snappy at 98% of its bytes, so
 * its compression (and every later reader's decompression) is spent for nothing. The codec is a property of
 * each column chunk (ColumnMetaData.codec), so such a chunk is written UNCOMPRESSED and readers (delta-rs,
 * pyarrow, Spark) read it as any other; values, statistics and encodings are unchanged.
 *
 * The judgement needs no decoding: when a stream's first input is a passed-through file (or was decoded from
 * a file whose footer the caller hands over, `firstInputSizes`, so both give the same bytes), each top-level
 * column whose chunks in that file were written with the stream's own codec and kept more than
 * `MAX_COMPRESSED_SHARE` of their uncompressed bytes is written UNCOMPRESSED in every file of the stream, as
 * is a column left UNCOMPRESSED beside columns of the stream's codec (this rule's output: rewritten again, it
 * stays as it is instead of going back and forth). A stream whose first input is an Arrow batch, or a file
 * written with another codec or UNCOMPRESSED throughout, keeps the codec for every column. The judgement is
 * made here, on the main thread, and reaches both engines through the one `writerProperties`, so they still
 * write the same bytes.
 *
 * Measured (uniform 1M upsert of the bench's table, whose 600-byte hex `payload` snappy kept at 98%; 8
 * interleaved pairs): call 944.5 → 751 ms and process CPU 1,725 → 1,365 ms, medians (merge-engine
 * BENCHMARKS.md, session 35).
 */
import type { FileMetaData } from "hyparquet";
import type { ParquetCodec } from "./options.js";
import { type ColumnChunkSizes, isPassthrough, type ParquetPassthrough } from "./passthrough-unit.js";

/** A column whose compressed chunks keep more than this share of their uncompressed bytes is not compressed. */
export const MAX_COMPRESSED_SHARE = 0.97;

/** The chunk sizes of `metadata`'s top-level leaf columns over `rowGroups` (default: every row group). */
export function columnChunkSizes(metadata: FileMetaData, rowGroups?: readonly number[]): ColumnChunkSizes[] {
  const sizes = new Map<string, { codec: string; compressedBytes: number; uncompressedBytes: number }>();
  const groups = rowGroups?.map((index) => metadata.row_groups[index]) ?? metadata.row_groups;
  for (const group of groups) {
    for (const chunk of group?.columns ?? []) {
      const meta = chunk.meta_data;
      if (meta === undefined || meta.path_in_schema.length !== 1) continue;
      const column = meta.path_in_schema[0] as string;
      const seen = sizes.get(column) ?? { codec: meta.codec, compressedBytes: 0, uncompressedBytes: 0 };
      if (seen.codec !== meta.codec) seen.codec = "mixed";
      seen.compressedBytes += Number(meta.total_compressed_size);
      seen.uncompressedBytes += Number(meta.total_uncompressed_size);
      sizes.set(column, seen);
    }
  }
  return [...sizes].map(([column, size]) => ({ column, ...size }));
}

/**
 * The columns of `sizes` (one file's) to write UNCOMPRESSED with `codec`: those `codec` barely shrank, and
 * those left UNCOMPRESSED in a file whose other columns have `codec` (this rule's own output, so a file it
 * wrote keeps its columns as they are when rewritten again). None when the stream writes uncompressed anyway,
 * and none of a file written UNCOMPRESSED throughout (another writer's choice, which says nothing of `codec`).
 */
export function incompressibleColumns(sizes: readonly ColumnChunkSizes[], codec: ParquetCodec): string[] {
  if (codec === "uncompressed") return [];
  const name = codec.toUpperCase();
  const mixed = sizes.some((size) => size.codec === name);
  return sizes
    .filter((size) =>
      size.codec === "UNCOMPRESSED"
        ? mixed
        : size.codec === name &&
          size.uncompressedBytes > 0 &&
          size.compressedBytes > MAX_COMPRESSED_SHARE * size.uncompressedBytes,
    )
    .map((size) => size.column);
}

/**
 * Passes `inputs` through and records the columns to write UNCOMPRESSED, judged as the first one goes by:
 * on the sizes `firstInputSizes` gives then (the caller's: the file its first rows were decoded from), else on
 * a passed-through first input's own.
 */
export class CompressionPolicy {
  #uncompressed: readonly string[] = [];
  readonly #codec: ParquetCodec;
  readonly #firstInputSizes: (() => readonly ColumnChunkSizes[] | undefined) | undefined;

  constructor(codec: ParquetCodec, firstInputSizes?: () => readonly ColumnChunkSizes[] | undefined) {
    this.#codec = codec;
    this.#firstInputSizes = firstInputSizes;
  }

  /** The columns to write UNCOMPRESSED (empty until the first input went by, and after an Arrow batch). */
  get uncompressedColumns(): readonly string[] {
    return this.#uncompressed;
  }

  async *observe<T extends object>(inputs: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
    let judged = false;
    for await (const input of inputs) {
      if (!judged) {
        judged = true;
        const unit: ParquetPassthrough | undefined = isPassthrough(input) ? input : undefined;
        const sizes = this.#firstInputSizes?.() ?? unit?.columnSizes;
        if (sizes) this.#uncompressed = incompressibleColumns(sizes, this.#codec);
      }
      yield input;
    }
  }
}
