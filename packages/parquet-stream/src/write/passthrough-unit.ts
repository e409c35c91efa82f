/**
 * The unit a writer stream takes besides Arrow batches: a Parquet file passed through undecoded
 * (`ParquetPassthrough`), and telling the two apart. Its own module so the slicing (wasm-batches.ts) and the
 * fit rules (passthrough.ts) can both use it without importing each other.
 */
import type { RecordBatch } from "apache-arrow";

/**
 * Where the worker reads a passed-through file from: its whole bytes, in a buffer of their own (transferred to
 * the worker), or, on the native engine, the local file at `path` of `size` bytes (its pages read as they are
 * decoded, so no byte of it is held in memory here or there).
 */
export type PassthroughSource =
  | { readonly bytes: Uint8Array }
  | { readonly path: string; readonly size: number };

/** One Parquet file (or some of its row groups) to be written as it decodes, in the worker. */
export interface ParquetPassthrough {
  readonly kind: "parquet-passthrough";
  readonly source: PassthroughSource;
  /** Row groups to decode, in order. */
  readonly rowGroups: number[];
  /** Rows written: those of the row groups (footer) less `skipRows`. */
  readonly rows: number;
  /**
   * Uncompressed bytes of those row groups (footer `total_byte_size`), scaled by the share of their rows
   * written: their decoded measure.
   */
  readonly decodedBytes: number;
  /**
   * Rows not written (an upsert's replaced and deleted target rows): ascending, counted from the first row
   * of the first listed row group; none when undefined.
   */
  readonly skipRows?: Int32Array | undefined;
  /**
   * Some of the file's rows decoded (at least the columns the dictionary policy judges: `judgedFields`), for
   * the writer's settings when the unit is its stream's first input; without one such a stream keeps
   * parquet-rs's dictionary defaults.
   */
  readonly sample?: RecordBatch | undefined;
  /**
   * No sample: the encoder worker decodes the sample itself, natively, and judges the dictionary policy on it
   * (`EncoderSettings.judge`), when the unit is its stream's first input: the rows a sample read here in
   * batches of `batchRows` would hold. Native engine only (parquet-wasm's batches cannot be judged there).
   */
  readonly judgeInWorker?: { readonly batchRows: number } | undefined;
  /**
   * The listed row groups' top-level column chunks, their codec and bytes (footer): the compression policy
   * (compression-policy.ts) reads them when the unit is its stream's first input.
   */
  readonly columnSizes?: readonly ColumnChunkSizes[] | undefined;
  /** Gives back what holding the source was admitted under; called once the worker has decoded it. */
  readonly release: () => void;
}

/** One top-level column's chunks in some row groups of a file: their codec and their bytes. */
export interface ColumnChunkSizes {
  /** The column's name (a top-level leaf column). */
  readonly column: string;
  /** The footer's codec name (e.g. "SNAPPY"); "mixed" when the row groups disagree. */
  readonly codec: string;
  readonly compressedBytes: number;
  readonly uncompressedBytes: number;
}

/** Whether a writer input is a passed-through file (else an Arrow RecordBatch). */
export function isPassthrough(input: object): input is ParquetPassthrough {
  return (input as { kind?: unknown }).kind === "parquet-passthrough";
}
