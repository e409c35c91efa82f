/**
 * What one bin's Parquet writer may hold, derived from the call's knobs, so that the writer's memory is the
 * memory the knobs name. Measured on parquet-wasm 0.8 with the encoder on the main thread (one 104 MB bin:
 * 264 MB of WebAssembly memory at the old 128 MiB encoded cap, 141 MB at 32 MiB, 76 MB at 16 MiB): its
 * encoder caps a row group by ENCODED bytes (not decoded ones), and while a row group is open and flushed it
 * holds about four to five copies of those encoded bytes in WebAssembly memory (pages, the file buffer it
 * grows, the chunk it hands out), memory that never shrinks back. So:
 * - a row group closes at `maxRowGroupDecodedBytes / ENCODER_COPIES` encoded bytes (the writer's share), and
 *   at the rows that make `maxRowGroupDecodedBytes` decoded bytes (by the bin's first batch), whichever first;
 * - an output file streams with a multipart put from its first part on (threshold = the part size), instead of
 *   gathering 64 MiB before it starts: compacted files are large, so nothing is gained by waiting.
 */
import { DEFAULT_MULTIPART_PART_SIZE_BYTES, recordBatchBytes } from "@deltalite/parquet-stream";
import type { RecordBatch } from "apache-arrow";

/** Copies of a row group's encoded bytes parquet-wasm holds at once (4.4–4.8 measured with one writer). */
export const ENCODER_COPIES = 5;

/** The encoded bytes at which the writer closes a row group, for a `maxRowGroupDecodedBytes` knob. */
export function encodedRowGroupBytes(maxRowGroupDecodedBytes: number): number {
  return Math.max(1, Math.floor(maxRowGroupDecodedBytes / ENCODER_COPIES));
}

/** Rows per row group so that one holds at most `maxRowGroupDecodedBytes` decoded bytes (by `sample`). */
export function rowGroupRowsFor(sample: RecordBatch, maxRowGroupDecodedBytes: number): number {
  const bytesPerRow = Math.max(1, recordBatchBytes(sample) / Math.max(1, sample.numRows));
  return Math.max(1, Math.floor(maxRowGroupDecodedBytes / bytesPerRow));
}

/** The multipart threshold of output files: the caller's, else the part size (see the module comment). */
export function outputMultipartThreshold(
  thresholdBytes: number | undefined,
  partSizeBytes: number | undefined,
): number {
  return thresholdBytes ?? partSizeBytes ?? DEFAULT_MULTIPART_PART_SIZE_BYTES;
}
