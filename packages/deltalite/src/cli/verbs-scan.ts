/**
 * The `scan` CLI verb: a table (optionally at a version) read through `scanTable` with `--columns` and a
 * `--filter` JSON list of conditions, written as NDJSON (§7 JSON encoding), Parquet (the streaming writer of
 * @deltalite/parquet-stream) or an Arrow IPC stream, to a file or to stdout (`--output -`). A file output is
 * written beside its target under a temporary name and renamed into place once complete.
 */
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { type ScanFilterCondition, scanTable, type TableScan } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore, openStore } from "@deltalite/object-store";
import { writeEmptyParquetFile, writeParquetFiles } from "@deltalite/parquet-stream";
import { type RecordBatch, RecordBatchStreamWriter, type Schema } from "apache-arrow";
import { batchToNdjson } from "../json/index.js";
import { integerFlag, requireUri, UsageError, type Verb, type VerbContext } from "./framework.js";

const FORMATS = ["ndjson", "parquet", "arrow"] as const;
type OutputFormat = (typeof FORMATS)[number];

/** What `scan --json` prints. */
export interface ScanVerbResult {
  version: number;
  format: OutputFormat;
  output: string;
  columns: string[];
  rows: number;
  filesTotal: number;
  filesSkippedByPartition: number;
  filesSkippedByStats: number;
  filesRead: number;
  rowGroupsRead: number;
  rowsRead: number;
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
const NDJSON_ROWS_PER_WRITE = 8192;

async function writeNdjson(scan: TableScan, sink: ByteSink): Promise<void> {
  for await (const batch of scan) {
    for (let at = 0; at < batch.numRows; at += NDJSON_ROWS_PER_WRITE) {
      const piece =
        batch.numRows <= NDJSON_ROWS_PER_WRITE ? batch : batch.slice(at, at + NDJSON_ROWS_PER_WRITE);
      await sink.write(batchToNdjson(piece));
    }
  }
}

async function writeArrowStream(scan: TableScan, schema: Schema, sink: ByteSink): Promise<void> {
  const writer = new RecordBatchStreamWriter();
  writer.reset(undefined, schema);
  const pump = (async () => {
    for await (const chunk of writer) await sink.write(chunk);
  })();
  try {
    for await (const batch of scan) writer.write(batch as RecordBatch);
  } finally {
    writer.close();
    await pump;
  }
}

/** Writes the scan as one Parquet file at `target` (a local path). */
async function writeParquetFile(
  scan: TableScan,
  schema: Schema,
  target: string,
  signal?: AbortSignal,
): Promise<void> {
  const dir = path.dirname(target);
  const key = path.basename(partialPath(target));
  const store = new LocalFileStore(dir);
  try {
    const options = {
      schema,
      nextKey: () => key,
      targetFileSize: Number.MAX_SAFE_INTEGER,
      ...(signal ? { signal } : {}),
    };
    const files = await writeParquetFiles(store, scan, options);
    // A scan without rows still exports a valid Parquet file: the schema and no row groups.
    if (files.length === 0) await writeEmptyParquetFile(store, options);
    await fs.rename(path.join(dir, key), target);
  } catch (error) {
    await fs.rm(path.join(dir, key), { force: true });
    throw error;
  }
}

function parseColumns(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const columns = String(raw)
    .split(",")
    .map((c) => c.trim());
  if (columns.some((c) => c === ""))
    throw new UsageError("--columns needs a comma-separated list of column names");
  return columns;
}

function parseFilter(raw: unknown): ScanFilterCondition[] | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(String(raw));
  } catch {
    throw new UsageError(
      '--filter needs a JSON list of conditions, e.g. [{"column":"id","op":"ge","value":10}]',
    );
  }
  if (!Array.isArray(value) || value.some((c) => typeof c !== "object" || c === null || Array.isArray(c))) {
    throw new UsageError("--filter needs a JSON list of {column, op, value} objects");
  }
  return value as ScanFilterCondition[];
}

export const scanVerb: Verb = {
  name: "scan",
  summary: "read a table's rows (projection, filter) as NDJSON, Parquet or an Arrow IPC stream",
  usage:
    "deltalite scan <uri> [--version N] [--columns a,b] [--filter <json>] [--format ndjson|parquet|arrow] --output <file|-> [--batch-size N] [--json]",
  options: {
    version: { type: "string" },
    columns: { type: "string" },
    filter: { type: "string" },
    format: { type: "string", default: "ndjson" },
    output: { type: "string", short: "o" },
    "batch-size": { type: "string" },
  },
  async run(ctx: VerbContext): Promise<ScanVerbResult> {
    const uri = requireUri(ctx);
    const format = ctx.values.format as OutputFormat;
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}`);
    const output = ctx.values.output;
    if (typeof output !== "string" || output === "") throw new UsageError("--output <file|-> is required");
    if (output === "-" && ctx.json) {
      throw new UsageError("--json prints the result on stdout, so it cannot be combined with --output -");
    }
    const version = integerFlag(ctx, "version");
    const batchSize = integerFlag(ctx, "batch-size");
    if (batchSize === 0) throw new UsageError("--batch-size needs a positive integer");
    const columns = parseColumns(ctx.values.columns);
    const filter = parseFilter(ctx.values.filter);

    const store = openStore(uri, { storageOptions: ctx.storageOptions });
    const snapshot = await Snapshot.open(store, { version });
    const scan = scanTable(snapshot, { columns, filter, batchSize });
    const plan = await scan.plan();
    ctx.progress(`scanning ${plan.files.length} of ${plan.filesTotal} files`);

    if (format === "parquet") {
      if (output === "-") {
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-scan-"));
        try {
          const file = path.join(dir, "scan.parquet");
          await writeParquetFile(scan, plan.schema, file);
          const sink = stdoutSink();
          for await (const chunk of createReadStream(file)) await sink.write(chunk as Buffer);
        } finally {
          await fs.rm(dir, { recursive: true, force: true });
        }
      } else {
        await writeParquetFile(scan, plan.schema, path.resolve(output));
      }
    } else {
      const sink = output === "-" ? stdoutSink() : await fileSink(path.resolve(output));
      try {
        if (format === "ndjson") await writeNdjson(scan, sink);
        else await writeArrowStream(scan, plan.schema, sink);
        await sink.close();
      } catch (error) {
        await sink.abort();
        throw error;
      }
    }
    return {
      version: snapshot.version,
      format,
      output: output === "-" ? "-" : path.resolve(output),
      columns: plan.schema.fields.map((f) => f.name),
      rows: scan.metrics.rowsReturned,
      filesTotal: plan.filesTotal,
      filesSkippedByPartition: plan.filesSkippedByPartition,
      filesSkippedByStats: plan.filesSkippedByStats,
      filesRead: scan.metrics.filesRead,
      rowGroupsRead: scan.metrics.rowGroupsRead,
      rowsRead: scan.metrics.rowsRead,
    };
  },
  human(result) {
    const r = result as ScanVerbResult;
    const skipped = r.filesSkippedByPartition + r.filesSkippedByStats;
    return `scanned ${r.rows} rows of version ${r.version} from ${r.filesRead} of ${r.filesTotal} files (${skipped} skipped: ${r.filesSkippedByPartition} by partition, ${r.filesSkippedByStats} by stats) → ${r.output} (${r.format})\n`;
  },
};
