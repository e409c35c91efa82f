/**
 * The `scan` CLI verb: a table (latest, `--version` or `--timestamp`) read through `scanTable` with
 * `--columns`, a `--filter` JSON list of conditions and `--limit`, written to stdout or `--output FILE` as
 * NDJSON, CSV, Parquet, or Arrow IPC (file or stream) — the format from `--format`, else from the output's
 * extension, else NDJSON; an extension that contradicts `--format` is refused.
 */
import { SCAN_FILTER_OPS, scanTable, type TableScan } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { openStore } from "@deltalite/object-store";
import type { RecordBatch } from "apache-arrow";
import { choiceFlag, countFlag, filterFlag, listFlag, requireUri, stringFlag } from "./flags.js";
import { usageError, type Verb, type VerbContext } from "./framework.js";
import type { Progress } from "./progress.js";
import { FORMATS, formatOfExtension, type OutputFormat, writeScanOutput } from "./scan-output.js";
import { TIME_TRAVEL_OPTIONS, timeTravel } from "./verbs-log.js";

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

/** The output format: `--format`, else the extension's, else NDJSON; a contradiction is refused (also `changes`'s). */
export function outputFormat(ctx: VerbContext, output: string | undefined): OutputFormat {
  const given = choiceFlag(ctx, "format", FORMATS);
  const implied = output === undefined ? undefined : formatOfExtension(output);
  if (given !== undefined && implied !== undefined && given !== implied) {
    throw usageError(
      `--format ${given} contradicts --output ${output}, whose extension means ${implied}: drop --format or rename the file`,
    );
  }
  return given ?? implied ?? "ndjson";
}

/** The scan's batches, stopping after `limit` rows, counted into the progress line. */
async function* limited(
  scan: TableScan,
  limit: number | undefined,
  progress: Progress,
  counted: { rows: number },
): AsyncIterable<RecordBatch> {
  if (limit === 0) return;
  for await (const batch of scan) {
    const room = limit === undefined ? batch.numRows : limit - counted.rows;
    const piece = batch.numRows <= room ? batch : batch.slice(0, room);
    counted.rows += piece.numRows;
    progress.add({ rows: piece.numRows, bytes: piece.data.byteLength });
    progress.set({ files: scan.metrics.filesRead });
    yield piece as RecordBatch;
    if (limit !== undefined && counted.rows >= limit) return;
  }
}

export const scanVerb: Verb = {
  name: "scan",
  summary: "read a table's rows (projection, filter, limit) as NDJSON, CSV, Parquet or Arrow IPC",
  args: "<uri>",
  options: {
    ...TIME_TRAVEL_OPTIONS,
    columns: {
      type: "string",
      value: "COL[,COL]",
      description: "columns to return, in this order [default: all]",
    },
    filter: {
      type: "string",
      value: "JSON",
      description: 'conditions, ANDed: [{"column":"id","op":"ge","value":10}] (ops below) [default: none]',
    },
    limit: { type: "string", value: "N", description: "stop after N rows [default: all rows]" },
    format: {
      type: "string",
      value: "FORMAT",
      description: `${FORMATS.join(", ")} (arrow = IPC file, arrows = IPC stream) [default: from --output's extension, else ndjson]`,
    },
    output: {
      type: "string",
      short: "o",
      value: "FILE|-",
      description: "where the rows go; - is stdout [default: stdout]",
    },
    "batch-size": {
      type: "string",
      value: "ROWS",
      description: "rows per batch at most [default: a row group]",
    },
  },
  notes: [
    `filter ops: ${SCAN_FILTER_OPS.join(", ")}. "in" takes a list value; isNull / isNotNull take none.`,
    "Values: numbers, strings (decimals, dates YYYY-MM-DD, timestamps ISO 8601, int64 as digits), booleans.",
    "Extensions: .ndjson/.jsonl ndjson, .csv csv, .parquet parquet, .arrow/.feather IPC file, .arrows IPC stream.",
    "NDJSON and CSV write int64 as numbers with every digit; CSV: header row, CRLF, nulls as empty fields.",
  ],
  async run(ctx: VerbContext): Promise<ScanVerbResult> {
    const uri = requireUri(ctx);
    const rawOutput = stringFlag(ctx, "output");
    const output = rawOutput === undefined || rawOutput === "-" ? undefined : ctx.resolve(rawOutput);
    if (rawOutput === "") throw usageError("--output needs a file name, or - for stdout");
    if (output === undefined && ctx.json) {
      throw usageError("--json prints the result on stdout, so the rows need --output FILE");
    }
    const format = outputFormat(ctx, output);
    const at = timeTravel(ctx);
    const batchSize = countFlag(ctx, "batch-size");
    if (batchSize === 0) throw usageError("--batch-size needs a positive integer");
    const limit = countFlag(ctx, "limit");
    const columns = listFlag(ctx, "columns");
    const filter = filterFlag(ctx, "filter");

    const store = openStore(uri, { storageOptions: ctx.storageOptions });
    const snapshot = await Snapshot.open(store, at);
    const scan = scanTable(snapshot, { columns, filter, batchSize });
    const plan = await scan.plan();
    ctx.progress.start(`scanning ${plan.files.length} of ${plan.filesTotal} files`);
    const counted = { rows: 0 };
    await writeScanOutput(limited(scan, limit, ctx.progress, counted), plan.schema, format, output);
    return {
      version: snapshot.version,
      format,
      output: output ?? "-",
      columns: plan.schema.fields.map((f) => f.name),
      rows: counted.rows,
      filesTotal: plan.filesTotal,
      filesSkippedByPartition: plan.filesSkippedByPartition,
      filesSkippedByStats: plan.filesSkippedByStats,
      filesRead: scan.metrics.filesRead,
      rowGroupsRead: scan.metrics.rowGroupsRead,
      rowsRead: scan.metrics.rowsRead,
    };
  },
  human(result, ctx) {
    const r = result as ScanVerbResult;
    const skipped = r.filesSkippedByPartition + r.filesSkippedByStats;
    const line = `scanned ${r.rows} rows of version ${r.version} from ${r.filesRead} of ${r.filesTotal} files (${skipped} skipped: ${r.filesSkippedByPartition} by partition, ${r.filesSkippedByStats} by stats) → ${r.output} (${r.format})\n`;
    // The rows went to stdout: the summary is a diagnostic then, so it goes to stderr, out of the data.
    if (r.output === "-") {
      ctx.io.stderr(line);
      return "";
    }
    return line;
  },
};
