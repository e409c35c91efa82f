/**
 * Where `scan` rows go: the output formats (NDJSON, CSV, Parquet, Arrow IPC file, Arrow IPC stream), the
 * format an output file's extension implies, and the byte sinks — stdout (honouring back-pressure, ending
 * quietly when the reader closes the pipe) or a file written beside its target under a temporary name and
 * renamed into place once complete (a failed scan leaves no partial file).
 */
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { writeEmptyParquetFile, writeParquetFiles } from "@deltalite/parquet-stream";
import { type RecordBatch, RecordBatchFileWriter, RecordBatchStreamWriter, type Schema } from "apache-arrow";
import { batchToCsv, batchToNdjson, csvHeader } from "../json/index.js";

export const FORMATS = ["ndjson", "csv", "parquet", "arrow", "arrows"] as const;
export type OutputFormat = (typeof FORMATS)[number];

const EXTENSIONS: Record<string, OutputFormat> = {
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
  ".csv": "csv",
  ".parquet": "parquet",
  ".arrow": "arrow",
  ".feather": "arrow",
  ".arrows": "arrows",
};

/** The format a file name's extension implies, if any. */
export function formatOfExtension(file: string): OutputFormat | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()];
}

/** Writes byte chunks somewhere, honouring back-pressure. */
interface ByteSink {
  write(chunk: Uint8Array | string): Promise<void>;
  /** Completes the output (renames a temporary file into place). */
  close(): Promise<void>;
  /** Drops a partial output. */
  abort(): Promise<void>;
}

let stdoutWatched = false;

function stdoutSink(): ByteSink {
  if (!stdoutWatched) {
    stdoutWatched = true;
    // A reader that stops early (`| head`) closes the pipe: end quietly, as Unix filters do.
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  return {
    write(chunk) {
      return new Promise((resolve, reject) => {
        const ok = process.stdout.write(chunk, (error) => (error ? reject(error) : undefined));
        if (ok) resolve();
        else process.stdout.once("drain", resolve);
      });
    },
    async close() {},
    async abort() {},
  };
}

function partialPath(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.deltalite-partial-${randomBytes(6).toString("hex")}`,
  );
}

async function fileSink(target: string): Promise<ByteSink> {
  const partial = partialPath(target);
  const handle = await fs.open(partial, "wx");
  return {
    async write(chunk) {
      if (typeof chunk === "string") await handle.write(chunk);
      else await handle.write(chunk);
    },
    async close() {
      await handle.close();
      await fs.rename(partial, target);
    },
    async abort() {
      await handle.close().catch(() => undefined);
      await fs.rm(partial, { force: true });
    },
  };
}

/** Rows encoded per write, so one huge row group never becomes one huge string. */
const ROWS_PER_WRITE = 8192;

async function writeText(
  batches: AsyncIterable<RecordBatch>,
  sink: ByteSink,
  encode: (batch: RecordBatch) => string,
): Promise<void> {
  for await (const batch of batches) {
    for (let at = 0; at < batch.numRows; at += ROWS_PER_WRITE) {
      const piece = batch.numRows <= ROWS_PER_WRITE ? batch : batch.slice(at, at + ROWS_PER_WRITE);
      await sink.write(encode(piece));
    }
  }
}

async function writeArrow(
  batches: AsyncIterable<RecordBatch>,
  schema: Schema,
  sink: ByteSink,
  file: boolean,
): Promise<void> {
  const writer = file ? new RecordBatchFileWriter() : new RecordBatchStreamWriter();
  writer.reset(undefined, schema);
  const pump = (async () => {
    for await (const chunk of writer) await sink.write(chunk);
  })();
  try {
    for await (const batch of batches) writer.write(batch);
  } finally {
    writer.close();
    await pump;
  }
}

/** Writes the batches as one Parquet file at `target` (a local path). */
async function writeParquetFile(batches: AsyncIterable<RecordBatch>, schema: Schema, target: string) {
  const dir = path.dirname(target);
  const key = path.basename(partialPath(target));
  const store = new LocalFileStore(dir);
  try {
    const options = { schema, nextKey: () => key, targetFileSize: Number.MAX_SAFE_INTEGER };
    const files = await writeParquetFiles(store, batches, options);
    // A scan without rows still exports a valid Parquet file: the schema and no row groups.
    if (files.length === 0) await writeEmptyParquetFile(store, options);
    await fs.rename(path.join(dir, key), target);
  } catch (error) {
    await fs.rm(path.join(dir, key), { force: true });
    throw error;
  }
}

/** Parquet to stdout: written to a temporary file first (its footer comes last), then copied. */
async function parquetToStdout(batches: AsyncIterable<RecordBatch>, schema: Schema): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-scan-"));
  try {
    const file = path.join(dir, "scan.parquet");
    await writeParquetFile(batches, schema, file);
    const sink = stdoutSink();
    for await (const chunk of createReadStream(file)) await sink.write(chunk as Buffer);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Writes `batches` in `format` to `target` (a local path) or to stdout (`undefined`). */
export async function writeScanOutput(
  batches: AsyncIterable<RecordBatch>,
  schema: Schema,
  format: OutputFormat,
  target: string | undefined,
): Promise<void> {
  if (format === "parquet") {
    if (target === undefined) await parquetToStdout(batches, schema);
    else await writeParquetFile(batches, schema, target);
    return;
  }
  const sink = target === undefined ? stdoutSink() : await fileSink(target);
  try {
    if (format === "ndjson") await writeText(batches, sink, batchToNdjson);
    else if (format === "csv") {
      await sink.write(csvHeader(schema));
      await writeText(batches, sink, batchToCsv);
    } else await writeArrow(batches, schema, sink, format === "arrow");
    await sink.close();
  } catch (error) {
    await sink.abort();
    throw error;
  }
}
