/**
 * The writing half of a bin's rewrite: its rows (already read, and arranged for Z-order) streamed into ZSTD
 * Parquet files of the bin's partition with `dataChange: false` Adds. A file closes once
 * `maxDecodedFileBytes` of decoded batches went into it (and, for Z-order, at its target size); row groups
 * and the multipart threshold follow writer-memory.ts, so the encoder's memory is what the knobs say.
 */
import { writePartitionFiles } from "@deltalite/data-files";
import { DEFAULT_MAX_ROW_GROUP_ROWS, recordBatchBytes } from "@deltalite/parquet-stream";
import type { RecordBatch } from "apache-arrow";
import type { BinArrangement, BinRewrite, BinRewriteContext } from "./bin-rewrite-types.js";
import type { CompactionBin } from "./plan.js";
import { encodedRowGroupBytes, outputMultipartThreshold, rowGroupRowsFor } from "./writer-memory.js";

/** No file of a bin closes on its stored size: one file per bin unless the decoded cap splits it. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Streams `first` and the rest of `source` into files of at most `maxDecodedFileBytes` decoded bytes each. */
export async function writeBinFiles(
  first: RecordBatch,
  source: AsyncIterator<RecordBatch>,
  bin: CompactionBin,
  ctx: BinRewriteContext,
  arrangement: BinArrangement | undefined,
  result: BinRewrite,
): Promise<void> {
  let pending: RecordBatch | undefined = first;
  let exhausted = false;
  async function* untilCap(): AsyncGenerator<RecordBatch> {
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
      bytes += recordBatchBytes(batch);
      yield batch;
    }
  }
  const targetFileSize = arrangement?.targetFileSize ?? UNBOUNDED;
  const maxRowGroupRows = Math.min(DEFAULT_MAX_ROW_GROUP_ROWS, rowGroupRowsFor(first, ctx.maxRowGroupBytes));
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
