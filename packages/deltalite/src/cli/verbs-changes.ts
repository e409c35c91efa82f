/**
 * The `changes` CLI verb: a table's change data feed over `--starting-version` / `--ending-version` (or
 * `--starting-timestamp` / `--ending-timestamp`) read through `table.changes()` with `--columns` and a
 * `--filter` JSON list of conditions (on table and change columns), written like `scan` output — stdout or
 * `--output FILE`, NDJSON, CSV, Parquet or Arrow IPC (scan-output.ts): `--format`, else the output's
 * extension, else NDJSON.
 */
import type { ChangeRange } from "@deltalite/data-files";
import type { RecordBatch } from "apache-arrow";
import { countFlag, filterFlag, listFlag, stringFlag } from "./flags.js";
import { usageError, type Verb, type VerbContext } from "./framework.js";
import { FORMATS, type OutputFormat, writeScanOutput } from "./scan-output.js";
import { openTable } from "./verbs-log.js";
import { outputFormat } from "./verbs-scan.js";

/** What `changes --json` prints. */
interface ChangesVerbResult {
  startingVersion: number | null;
  endingVersion: number | null;
  commits: number;
  format: OutputFormat;
  output: string;
  columns: string[];
  rows: number;
  filesTotal: number;
  filesRead: number;
  rowsRead: number;
}

/** The range of the version or timestamp flags (one form; a starting bound is required). */
function rangeOf(ctx: VerbContext): ChangeRange {
  const startingVersion = countFlag(ctx, "starting-version");
  const endingVersion = countFlag(ctx, "ending-version");
  const startingTimestamp = stringFlag(ctx, "starting-timestamp");
  const endingTimestamp = stringFlag(ctx, "ending-timestamp");
  const byVersion = startingVersion !== undefined || endingVersion !== undefined;
  const byTimestamp = startingTimestamp !== undefined || endingTimestamp !== undefined;
  if (byVersion && byTimestamp) {
    throw usageError(
      "give --starting-version / --ending-version or --starting-timestamp / --ending-timestamp, not both",
    );
  }
  if (byTimestamp) {
    if (startingTimestamp === undefined) throw usageError("--ending-timestamp needs --starting-timestamp");
    return { startingTimestamp, endingTimestamp };
  }
  if (startingVersion === undefined) {
    throw usageError("changes needs --starting-version N (or --starting-timestamp ISO)");
  }
  return { startingVersion, endingVersion };
}

async function* counted(batches: AsyncIterable<RecordBatch>, ctx: VerbContext, count: { rows: number }) {
  for await (const batch of batches) {
    count.rows += batch.numRows;
    ctx.progress.add({ rows: batch.numRows, bytes: batch.data.byteLength });
    yield batch;
  }
}

export const changesVerb: Verb = {
  name: "changes",
  summary:
    "read a table's change data feed (inserts, deletes, update pre/post-images) over a range of commits",
  args: "<uri> --starting-version N",
  options: {
    "starting-version": { type: "string", value: "N", description: "first version read (inclusive)" },
    "ending-version": {
      type: "string",
      value: "M",
      description: "last version read (inclusive) [default: latest]",
    },
    "starting-timestamp": {
      type: "string",
      value: "ISO",
      description: "instead of versions: commits at or after this instant, ISO 8601 (zone-less is UTC)",
    },
    "ending-timestamp": {
      type: "string",
      value: "ISO",
      description: "commits at or before this instant [default: now]",
    },
    columns: {
      type: "string",
      value: "COL[,COL]",
      description: "table columns to return, in this order [default: all]; the change columns always follow",
    },
    filter: {
      type: "string",
      value: "JSON",
      description:
        "conditions, ANDed, as scan --filter; may name _change_type, _commit_version, _commit_timestamp",
    },
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
  },
  notes: [
    "Each row carries _change_type (insert, delete, update_preimage, update_postimage), _commit_version and _commit_timestamp.",
    "Needs delta.enableChangeDataFeed=true over the range; an --ending-version beyond the latest reads to the latest.",
  ],
  async run(ctx: VerbContext): Promise<ChangesVerbResult> {
    const rawOutput = stringFlag(ctx, "output");
    if (rawOutput === "") throw usageError("--output needs a file name, or - for stdout");
    const output = rawOutput === undefined || rawOutput === "-" ? undefined : ctx.resolve(rawOutput);
    if (output === undefined && ctx.json) {
      throw usageError("--json prints the result on stdout, so the rows need --output FILE");
    }
    const format = outputFormat(ctx, output);
    const range = rangeOf(ctx);
    const columns = listFlag(ctx, "columns");
    const filter = filterFlag(ctx, "filter");
    const table = await openTable(ctx);
    const feed = table.changes(range, { columns, filter });
    const plan = await feed.plan();
    ctx.progress.start(`reading changes of ${plan.commits} commits from ${plan.filesToRead} files`);
    const count = { rows: 0 };
    await writeScanOutput(counted(feed, ctx, count), plan.schema, format, output);
    return {
      startingVersion: plan.startingVersion ?? null,
      endingVersion: plan.endingVersion ?? null,
      commits: plan.commits,
      format,
      output: output ?? "-",
      columns: plan.schema.fields.map((f) => f.name),
      rows: count.rows,
      filesTotal: plan.filesTotal,
      filesRead: feed.metrics.filesRead,
      rowsRead: feed.metrics.rowsRead,
    };
  },
  human(result, ctx) {
    const r = result as ChangesVerbResult;
    const versions =
      r.startingVersion === null ? "no commit" : `versions ${r.startingVersion}..${r.endingVersion}`;
    const line = `${r.rows} change rows of ${versions} (${r.commits} commits, ${r.filesRead} of ${r.filesTotal} files read) → ${r.output} (${r.format})\n`;
    // The rows went to stdout: the summary is a diagnostic then, so it goes to stderr, out of the data.
    if (r.output === "-") {
      ctx.io.stderr(line);
      return "";
    }
    return line;
  },
};
