/**
 * CLI data input: `--input <file.parquet | file.arrow | ->`. Parquet streams row group by row group through
 * parquet-stream's reader; `.arrow` / `.arrows` / `.ipc` files may be Arrow IPC files or streams; `-` reads an
 * Arrow IPC stream from stdin.
 */
import { stat } from "node:fs/promises";
import * as path from "node:path";
import type { BatchSource } from "@deltalite/data-files";
import { DeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { type RecordBatch, RecordBatchReader } from "apache-arrow";
import { UsageError } from "./framework.js";

export async function openInput(
  input: string | undefined,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<BatchSource> {
  if (input === undefined || input === "")
    throw new UsageError("--input is required (a .parquet or .arrow file, or - for stdin)");
  if (input === "-") {
    const reader = (await RecordBatchReader.from(stdin as never)) as unknown as RecordBatchReader;
    await reader.open();
    if (!reader.schema) throw new DeltaLiteError("generic", "no Arrow IPC stream on stdin");
    return reader as unknown as BatchSource;
  }
  const file = path.resolve(input);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new UsageError(`--input ${input}: no such file`);
  }
  if (file.endsWith(".parquet")) {
    const store = new LocalFileStore(path.dirname(file));
    const reader = await openParquetReader(store, path.basename(file), { size });
    async function* batches(): AsyncIterable<RecordBatch> {
      yield* reader.readRowGroups({});
    }
    return { schema: reader.arrowSchema, [Symbol.asyncIterator]: () => batches()[Symbol.asyncIterator]() };
  }
  if (/\.(arrow|arrows|ipc|feather)$/.test(file)) {
    const { createReadStream } = await import("node:fs");
    // RecordBatchReader.from detects IPC file vs stream; it is an async iterable of RecordBatches.
    const reader = (await RecordBatchReader.from(
      createReadStream(file) as never,
    )) as unknown as AsyncIterable<RecordBatch>;
    return reader as unknown as BatchSource;
  }
  throw new UsageError(`--input ${input}: expected a .parquet or .arrow file, or - for stdin`);
}
