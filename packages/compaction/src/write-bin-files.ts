/**
 * The writing half of a bin's rewrite: its rows (already read, and arranged for Z-order) streamed into ZSTD
 * Parquet files of the bin's partition with `dataChange: false` Adds. A file closes once
 * `maxDecodedFileBytes` of decoded batches went into it (and, for Z-order, at its target size); row groups
 * and the multipart threshold follow writer-memory.ts, so the encoder's memory is what the knobs say. A file
 * passed through undecoded (passthrough-read.ts) counts its footer's uncompressed bytes toward the cap, and
 * goes into one output file whole (input files of a bin are small: the cap is passed by at most one). Every
 * output file of a compaction bin keeps the dictionary policy its first batch decided (the bin's first file
 * is decoded in JS for that), since a later output file may start with a passed-through file. Compaction's
 * bins encode on encoder workers of their own (up to one per core); Z-order's share the process's first.
 */
import { writePartitionFiles } from "@deltalite/data-files";
import { DeltaLiteError } from "@deltalite/errors";
import {
  type ColumnChunkSizes,
  DEFAULT_MAX_ROW_GROUP_ROWS,
  isPassthrough,
  type ParquetPassthrough,
  plainColumns,
  recordBatchBytes,
} from "@deltalite/parquet-stream";
import type { RecordBatch } from "apache-arrow";
import type { BinArrangement, BinRewrite, BinRewriteContext } from "./bin-rewrite-types.js";
import type { CompactionBin } from "./plan.js";
import { encodedRowGroupBytes, outputMultipartThreshold, rowGroupRowsFor } from "./writer-memory.js";

/** What a bin's reading hands the writer: decoded batches, and (compaction) files passed through. */
export type BinInput = RecordBatch | ParquetPassthrough;

/** The decoded measure of one input (a passed-through file's: its footer's uncompressed bytes). */
function decodedMeasure(input: BinInput): number {
  return isPassthrough(input) ? input.decodedBytes : recordBatchBytes(input);
}

/** No file of a bin closes on its stored size: one file per bin unless the decoded cap splits it. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Streams `first` and the rest of `source` into files of at most `maxDecodedFileBytes` decoded bytes each. */
export async function writeBinFiles(
  first: BinInput,
  source: AsyncIterator<BinInput>,
  bin: CompactionBin,
  ctx: BinRewriteContext,
  arrangement: BinArrangement | undefined,
  result: BinRewrite,
  firstInputSizes: () => readonly ColumnChunkSizes[] | undefined,
): Promise<void> {
  // The first input is always decoded (rewrite-bin.ts): the writer's settings are judged on it.
  if (isPassthrough(first))
    throw new DeltaLiteError("generic", "internal: a bin began with an undecoded file");
  let pending: BinInput | undefined = first;
  let exhausted = false;
  async function* untilCap(): AsyncGenerator<BinInput> {
    let bytes = 0;
    while (bytes < ctx.maxDecodedFileBytes) {
      let batch = pending;
      pending = undefined;
      if (batch === undefined) {
        const next = await source.next();
        if (next.done) {
          exhausted = true;
          return;
        }
        batch = next.value;
      }
      bytes += decodedMeasure(batch);
      yield batch;
    }
  }
  const targetFileSize = arrangement?.targetFileSize ?? UNBOUNDED;
  const maxRowGroupRows = Math.min(DEFAULT_MAX_ROW_GROUP_ROWS, rowGroupRowsFor(first, ctx.maxRowGroupBytes));
  const plain = arrangement ? undefined : plainColumns(first);
  while (!exhausted) {
    const written = writePartitionFiles(
      ctx.store,
      untilCap(),
      ctx.dataSchema,
      { ...bin.partitionValues },
      {
        partitionColumns: ctx.partitionColumns,
        configuration: ctx.configuration,
        codec: "zstd",
        targetFileSize,
        // Files close at row-group boundaries: Z-order's groups stay under its target so files end near it.
        maxRowGroupBytes: Math.min(encodedRowGroupBytes(ctx.maxRowGroupBytes), targetFileSize),
        maxRowGroupRows,
        multipartThresholdBytes: outputMultipartThreshold(
          ctx.multipartThresholdBytes,
          ctx.multipartPartSizeBytes,
        ),
        multipartPartSizeBytes: ctx.multipartPartSizeBytes,
        multipartConcurrency: ctx.multipartConcurrency,
        dataChange: false,
        plainColumns: plain,
        firstInputSizes,
        // Bins encode on workers of their own (one per core): each bin's row group is a knob of its own.
        spreadEncoders: arrangement === undefined,
        signal: ctx.signal,
      },
    );
    for await (const { file, add } of written) {
      ctx.onFile(file);
      result.adds.push(add);
      result.keys.push(file.key);
      result.bytesWritten += file.size;
    }
  }
}
