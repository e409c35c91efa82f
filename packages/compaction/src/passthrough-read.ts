/**
 * Which input files of a compaction bin skip the JS decode, and fetching them: a bin only concatenates rows,
 * so a file whose columns are exactly the table's data schema (parquet-stream's `passthroughFits`: names,
 * order, Arrow types as parquet-rs decodes them, nullability, no extra metadata) and whose stored size is at
 * most the passthrough limit is handed to the encoder worker as it is: read in place from its local path when
 * the store and the engine allow (data-files `localPassthroughSource`: nothing fetched or held), else fetched
 * whole, under the call's fetch admission for its size, which is given back once the worker has decoded its
 * last row group (the worker's memory then grows by the file's bytes plus one decoded row group). For such a
 * file the decoded measure the bin's caps count (`maxDecodedFileBytes`, and the rows and batches of the
 * result) comes from its footer: its row groups' uncompressed sizes and row counts. Any other file (an
 * older schema with fewer columns, other types, a file above the limit, a short read) is read the usual way
 * and conformed in JS. The limit is `DELTALITE_COMPACT_PASSTHROUGH_MAX_BYTES` (0: no passthrough), else
 * 64 MiB, and never above the call's fetch budget.
 */

import { fetchLiveFile, localPassthroughSource, passthroughMaxBytes } from "@deltalite/data-files";
import type { FileView } from "@deltalite/delta-log";
import {
  type ParquetPassthrough,
  type ParquetReader,
  passthroughFits,
  passthroughOf,
} from "@deltalite/parquet-stream";
import type { BinRewriteContext } from "./bin-rewrite-types.js";

const VARIABLE = "DELTALITE_COMPACT_PASSTHROUGH_MAX_BYTES";

/** The passthrough limit for a call whose fetch budget is `maxFetchBytes` (module comment). */
export function compactPassthroughMaxBytes(
  maxFetchBytes: number,
  env: NodeJS.ProcessEnv = process.env,
): number {
  return passthroughMaxBytes(VARIABLE, maxFetchBytes, env);
}

/**
 * The file as a passthrough unit, fetched under the call's fetch admission; undefined when it must be read
 * in JS (module comment).
 */
export async function fetchPassthrough(
  reader: ParquetReader,
  file: FileView,
  ctx: BinRewriteContext,
): Promise<ParquetPassthrough | undefined> {
  if (file.size > ctx.passthroughMaxBytes) return undefined;
  if (!passthroughFits(reader.metadata, ctx.dataSchema, file.path)) return undefined;
  const inPlace = await localPassthroughSource(ctx.store, file, ctx.read);
  if (inPlace) return passthroughOf(inPlace, reader.metadata, () => undefined);
  const whole = await fetchLiveFile(ctx.store, file, ctx.read);
  return whole && passthroughOf({ bytes: whole.bytes }, reader.metadata, whole.release);
}

/** Decoded batches the JS path would have read from the file (delta-rs's numBatches), by its footer. */
export function footerBatches(reader: ParquetReader, batchRows: number | undefined): number {
  return reader.rowGroupRows.reduce(
    (sum, rows) => sum + (batchRows === undefined ? 1 : Math.ceil(rows / batchRows)),
    0,
  );
}
