/**
 * CLI verbs of SCD type 2 history tables and source splitting: `history-upsert` (one row per version of a
 * key, through `DeltaLiteTable.historyUpsert`; prints its HistoryUpsertStats) and `key-buckets` (a bucket id
 * per input row by its key cast to the table's types, through `DeltaLiteTable.keyBuckets`). Both open the
 * table and check their flags before reading the input.
 */
import { type RecordBatch, Table } from "apache-arrow";
import type { HistoryUpsertOptions, HistoryUpsertStats } from "../index.js";
import { countFlag, keyValueFlag, listFlag, stringFlag, TXN_OPTIONS, txnFlag } from "./flags.js";
import { usageError, type Verb, type VerbContext } from "./framework.js";
import { checkInputs, openInputs } from "./input.js";
import type { OptionDefs } from "./options.js";
import { openTable } from "./verbs-log.js";

const INPUT_OPTION: OptionDefs = {
  input: {
    type: "string",
    multiple: true,
    value: "FILE|-",
    description:
      "a .parquet or .arrow/.arrows file, or - for stdin (Arrow IPC stream or Parquet, sniffed); several files must share one schema",
  },
  "key-columns": { type: "string", value: "COL[,COL]", description: "the key columns (required)" },
};

/** A string flag the verb cannot run without. */
function requiredFlag(ctx: VerbContext, name: string, what: string): string {
  const value = stringFlag(ctx, name);
  if (value === undefined || value === "") throw usageError(`--${name} is required (${what})`);
  return value;
}

function requiredList(ctx: VerbContext, name: string): string[] {
  const list = listFlag(ctx, name);
  if (!list) throw usageError(`--${name} is required (comma-separated column names)`);
  return list;
}

/** The HistoryUpsertOptions the flags give (every required one checked before any I/O). */
function historyOptions(ctx: VerbContext): HistoryUpsertOptions {
  const tieBreakColumn = stringFlag(ctx, "tie-break-column");
  const timeoutMs = countFlag(ctx, "timeout-ms");
  return {
    keyColumns: requiredList(ctx, "key-columns"),
    orderColumn: requiredFlag(ctx, "order-column", "the column that orders a key's versions"),
    validFromColumn: requiredFlag(ctx, "valid-from-column", "the column where a version starts"),
    validToColumn: requiredFlag(ctx, "valid-to-column", "the column where a version ends"),
    partitionColumn: requiredFlag(ctx, "partition-column", "the table's partition column"),
    currentPartition: requiredFlag(ctx, "current-partition", "the partition value of open versions"),
    ...(tieBreakColumn === undefined ? {} : { tieBreakColumn }),
    commitMetadata: keyValueFlag(ctx, "commit-metadata"),
    ...txnFlag(ctx),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

export const historyUpsertVerb: Verb = {
  name: "history-upsert",
  summary: "add versions to an SCD type 2 history table (one row per version of a key), one commit",
  args: "<uri> --input <file|-> --key-columns COL[,COL] --order-column COL --valid-from-column COL --valid-to-column COL --partition-column COL --current-partition VALUE",
  options: {
    ...INPUT_OPTION,
    "order-column": {
      type: "string",
      value: "COL",
      description: "orders a key's versions; a row is kept only when newer than the key's open row",
    },
    "valid-from-column": { type: "string", value: "COL", description: "when a version starts" },
    "valid-to-column": {
      type: "string",
      value: "COL",
      description: "when a version ends (NULL while open); set by the verb, not in the input",
    },
    "partition-column": {
      type: "string",
      value: "COL",
      description: "the table's one partition column (a string); set by the verb, not in the input",
    },
    "current-partition": { type: "string", value: "VALUE", description: "the partition of open versions" },
    "tie-break-column": {
      type: "string",
      value: "COL",
      description: "among a key's rows with one order value, the highest value of this column wins",
    },
    "commit-metadata": {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description: "an entry written flat into the commit's commitInfo",
    },
    ...TXN_OPTIONS,
    "timeout-ms": {
      type: "string",
      value: "MS",
      description: "deadline of the whole call in milliseconds (kind timeout) [default: none]",
    },
  },
  notes: [
    "Closed versions move to the partition named by their valid-to as YYYY-MM (UTC). A run that keeps no",
    "input row commits nothing (committed: false), so re-running an input after a crash is safe. With",
    "--txn-app-id/--txn-version an input whose batch the table already holds is skipped (skipped: true).",
  ],
  async run(ctx) {
    const options = historyOptions(ctx);
    const inputs = await checkInputs(ctx.values.input as string[] | undefined, ctx.resolve);
    const table = await openTable(ctx);
    const data = await openInputs(inputs, ctx.progress);
    ctx.progress.start(`history upsert into ${table.uri} (version ${table.version})`);
    const { maintenanceError, ...stats } = await table.historyUpsert(data, options);
    return maintenanceError === undefined ? stats : { ...stats, maintenanceError: String(maintenanceError) };
  },
  human(result) {
    const r = result as HistoryUpsertStats;
    if (r.skipped) return `skipped: that --txn batch was already applied (table at version ${r.version})\n`;
    const skipped = `${r.rowsDeduped} deduplicated, ${r.rowsReread} re-read, ${r.rowsBackwards} backwards`;
    if (!r.committed) {
      return `nothing to write: no input row is newer than its key's open version (${skipped}); the table stays at version ${r.version}\n`;
    }
    return `committed version ${r.version}: ${r.versionsOpened} versions opened, ${r.versionsClosed} closed, ${r.chainRowsClosed} written closed (${skipped}; files: ${r.filesRemoved} removed, ${r.filesAdded} added)\n`;
  },
};

export const keyBucketsVerb: Verb = {
  name: "key-buckets",
  summary: "a bucket id in 0..N-1 per input row by its key (to split a large input by key)",
  args: "<uri> --input <file|-> --key-columns COL[,COL] --buckets N",
  options: {
    ...INPUT_OPTION,
    buckets: { type: "string", value: "N", description: "the number of buckets (required, ≥ 1)" },
  },
  notes: [
    "Key columns are cast to the table's types first, so values that become one table key share a bucket;",
    "NULL key parts match NULL key parts. The ids are the same in every run of one deltalite release; do not",
    "store them across releases. Without --json: one id per line, in input row order.",
  ],
  async run(ctx) {
    const keyColumns = requiredList(ctx, "key-columns");
    const buckets = countFlag(ctx, "buckets");
    if (buckets === undefined) throw usageError("--buckets is required (the number of buckets, N ≥ 1)");
    const inputs = await checkInputs(ctx.values.input as string[] | undefined, ctx.resolve);
    const table = await openTable(ctx);
    // The key columns and the bucket count are checked (kind invalid_argument) before a row is read.
    table.keyBuckets(new Table(table.schema), keyColumns, buckets);
    const data = await openInputs(inputs, ctx.progress);
    const ids: number[] = [];
    for await (const batch of data as AsyncIterable<RecordBatch>) {
      for (const id of table.keyBuckets(batch, keyColumns, buckets)) ids.push(id);
    }
    return { buckets: ids };
  },
  human(result) {
    const { buckets } = result as { buckets: number[] };
    return buckets.length === 0 ? "" : `${buckets.join("\n")}\n`;
  },
};
