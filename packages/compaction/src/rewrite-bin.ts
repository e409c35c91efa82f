/**
 * The rewrite of one bin: its files are read one at a time (a file permit held while open), one
 * byte-bounded batch at a time through the call's fetch and decode admission, and streamed into ZSTD
 * Parquet files of the bin's partition with `dataChange: false` Adds. delta-rs writes one file per bin; here a
 * file also closes once `maxDecodedFileBytes` of decoded batches went into it (so memory and file size
 * follow the knobs, not the bin), and row groups close where writer-memory.ts says (the encoder's memory
 * within `maxRowGroupBytes`, and at most that many decoded bytes). Z-order passes an arrangement:
 * the rows go through its sort and files also close at the target size, as delta-rs's z-order writes them.
 * Compaction (no arrangement) hands a file whole to the encoder worker when it fits (passthrough-read.ts:
 * no JS decode, its footer's sizes as its decoded measure), except until a decoded file yielded rows: the
 * writer's row-group rows and dictionary policy are judged on that first batch, as before.
 * Nothing is committed here.
 */
import { openLiveFile, readLiveFile } from "@deltalite/data-files";
import {
  type ColumnChunkSizes,
  columnChunkSizes,
  handOverPassthrough,
  type ParquetReader,
} from "@deltalite/parquet-stream";
import type { RecordBatch } from "apache-arrow";
import type { BinArrangement, BinRewrite, BinRewriteContext } from "./bin-rewrite-types.js";
import { fetchPassthrough, footerBatches } from "./passthrough-read.js";
import type { CompactionBin } from "./plan.js";
import { type BinInput, writeBinFiles } from "./write-bin-files.js";

export type { BinArrangement, BinRewrite, BinRewriteContext } from "./bin-rewrite-types.js";

export async function rewriteBin(
  bin: CompactionBin,
  ctx: BinRewriteContext,
  arrangement?: BinArrangement,
): Promise<BinRewrite> {
  const counts: BinCounts = { rows: 0, batches: 0, arranged: 0, passedThrough: 0 };
  const arranged = arrangement
    ? counted(arrangement.arrange(readBin(bin, ctx, counts, false)), counts)
    : readBin(bin, ctx, counts, true);
  const source = arranged[Symbol.asyncIterator]();
  const result: BinRewrite = {
    bin,
    adds: [],
    keys: [],
    rows: 0,
    batches: 0,
    passedThrough: 0,
    bytesWritten: 0,
  };
  try {
    const first = await source.next();
    if (!first.done) {
      const sizes = () => counts.firstFileSizes;
      await writeBinFiles(first.value, source, bin, ctx, arrangement, result, sizes);
    }
  } finally {
    await source.return?.(undefined);
  }
  result.rows = counts.rows;
  result.passedThrough = counts.passedThrough;
  result.batches = arrangement ? counts.arranged : counts.batches;
  return result;
}

async function* counted(batches: AsyncIterable<RecordBatch>, counts: BinCounts): AsyncGenerator<RecordBatch> {
  for await (const batch of batches) {
    counts.arranged++;
    yield batch;
  }
}

interface BinCounts {
  rows: number;
  /** Batches read. */
  batches: number;
  /** Batches of the arranged rows. */
  arranged: number;
  /** Files passed through undecoded. */
  passedThrough: number;
  /**
   * The column chunk sizes of the first file rows were decoded from (always the bin's first input): every
   * file the bin writes is judged on them by the writer's compression policy, whether the later inputs that
   * start its files were passed through or decoded.
   */
  firstFileSizes?: ColumnChunkSizes[];
}

/**
 * The bin's rows, file after file, batch after batch (data-file shaped: no partition columns); with
 * `passthrough`, files that fit go on whole, undecoded, once a decoded batch went first.
 */
function readBin(
  bin: CompactionBin,
  ctx: BinRewriteContext,
  counts: BinCounts,
  passthrough: false,
): AsyncGenerator<RecordBatch>;
function readBin(
  bin: CompactionBin,
  ctx: BinRewriteContext,
  counts: BinCounts,
  passthrough: boolean,
): AsyncGenerator<BinInput>;
async function* readBin(
  bin: CompactionBin,
  ctx: BinRewriteContext,
  counts: BinCounts,
  passthrough: boolean,
): AsyncGenerator<BinInput> {
  // Files pass through only once a decoded batch went first (the writer judges its settings on it).
  let decodedFirst = false;
  for (const file of bin.files) {
    const permit = await ctx.acquireFile();
    let reader: ParquetReader | undefined;
    try {
      reader = await openLiveFile(ctx.store, file, ctx.read);
      const unit = passthrough && decodedFirst ? await fetchPassthrough(reader, file, ctx) : undefined;
      if (unit) {
        counts.batches += footerBatches(reader, ctx.read.batchRows);
        counts.rows += unit.rows;
        counts.passedThrough++;
        reader.close();
        yield* handOverPassthrough(unit);
      } else {
        for await (const batch of readLiveFile(reader, file, { fields: ctx.dataSchema.fields }, ctx.read)) {
          counts.batches++;
          counts.rows += batch.numRows;
          if (batch.numRows === 0) continue;
          counts.firstFileSizes ??= columnChunkSizes(reader.metadata);
          decodedFirst = true;
          yield batch;
        }
      }
    } finally {
      reader?.close();
      permit.release();
    }
    ctx.onInputRead?.(file.size);
  }
}
