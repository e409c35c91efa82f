/**
 * CLI verb `upsert`: replace rows whose (partition value, primary key) exists and insert the rest, in one
 * commit, through `DeltaLiteTable.upsert`. Checks what it can before reading the input: the knobs parse, the
 * table exists (else the error says how to create it), `--partition-key` is the table's partition column.
 */
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import type { UpsertOptions } from "@deltalite/merge-engine";
import { DeltaLiteTable } from "../table.js";
import {
  bytesFlag,
  choiceFlag,
  countFlag,
  keyValueFlag,
  listFlag,
  requireUri,
  stringFlag,
  TXN_OPTIONS,
  txnFlag,
} from "./flags.js";
import { usageError, type Verb, type VerbContext } from "./framework.js";
import { checkInputs, openInputs } from "./input.js";
import type { OptionDefs } from "./options.js";
import { BYTE_SIZE_HELP } from "./units.js";

/** Numeric knobs: flag → UpsertOptions name, unit, default (as the engine documents it). */
const KNOBS = {
  "max-parallel-partitions": [
    "maxParallelPartitions",
    "N",
    "2",
    "partitions rewritten at once (one more probes ahead)",
  ],
  "max-parallel-files": ["maxParallelFiles", "N", "4", "data files open at once"],
  "max-buffered-bytes": [
    "maxBufferedBytes",
    "BYTES",
    "64MiB",
    "decoded Arrow bytes of target batches in flight",
  ],
  "max-fetch-bytes": ["maxFetchBytes", "BYTES", "128MiB", "compressed bytes fetched and not yet decoded"],
  "probe-concurrency": ["probeConcurrency", "N", "8", "candidate files probed at once"],
  "read-batch-size": ["readBatchSize", "ROWS", "8192", "rows per decoded batch of target files"],
  "read-ahead-row-groups": ["readAheadRowGroups", "N", "1", "row groups fetched ahead while one is decoded"],
  "target-file-size": [
    "targetFileSize",
    "BYTES",
    "the table's delta.targetFileSize, else 100MiB",
    "size of the rewritten data files",
  ],
  "timeout-ms": ["timeoutMs", "MS", "none", "deadline of the whole upsert in milliseconds (kind timeout)"],
} as const;

function knobOptions(): OptionDefs {
  return Object.fromEntries(
    Object.entries(KNOBS).map(([flag, [, unit, fallback, text]]) => [
      flag,
      { type: "string" as const, value: unit, description: `${text} [default: ${fallback}]` },
    ]),
  );
}

function knobs(ctx: VerbContext): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [flag, [option, unit]] of Object.entries(KNOBS)) {
    const value = unit === "BYTES" ? bytesFlag(ctx, flag) : countFlag(ctx, flag);
    if (value !== undefined) out[option] = value;
  }
  return out;
}

/** `--partition-key` must name the table's partition column. */
function checkPartitionKey(table: DeltaLiteTable, partitionKey: string | undefined): void {
  if (partitionKey === undefined) return;
  const columns = table.partitionColumns;
  if (columns.length === 1 && columns[0] === partitionKey) return;
  const has =
    columns.length === 0
      ? "the table is not partitioned (leave --partition-key out)"
      : `the table is partitioned by ${columns.join(", ")}`;
  throw new DeltaLiteInvalidArgumentError(
    `--partition-key ${partitionKey}: ${has}${didYouMean(partitionKey, columns)}`,
  );
}

const MISSING_COLUMNS = ["null", "keep", "error"] as const;

export const upsertVerb: Verb = {
  name: "upsert",
  summary: "replace rows whose key exists, insert the rest, in one atomic commit",
  args: "<uri> --input <file|-> --primary-keys COL[,COL]",
  options: {
    input: {
      type: "string",
      multiple: true,
      value: "FILE|-",
      description:
        "a .parquet or .arrow/.arrows file, or - for stdin (Arrow IPC stream or Parquet, sniffed); several files must share one schema",
    },
    "primary-keys": { type: "string", value: "COL[,COL]", description: "the key columns (required)" },
    "partition-key": {
      type: "string",
      value: "COL",
      description: "the table's partition column (checked against the table)",
    },
    "missing-columns": {
      type: "string",
      value: "null|keep|error",
      default: "null",
      description:
        "table columns the input lacks: null in replaced rows, keep the replaced row's values, or refuse",
    },
    "delete-column": {
      type: "string",
      value: "COL",
      description:
        "a boolean input column (never written): true rows delete the row with their key and are not inserted",
    },
    "commit-metadata": {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description: "an entry written flat into the commit's commitInfo",
    },
    ...TXN_OPTIONS,
    "prune-strategy": {
      type: "string",
      value: "probe|stats|none",
      default: "probe",
      description: "how candidate files are narrowed: probe their key columns, Add stats only, or none",
    },
    ...knobOptions(),
  },
  notes: [
    "Row identity: a row is identified by (partition value, primary key). A key that arrives with another",
    "partition value than the row already in the table inserts a second row; the first stays.",
    BYTE_SIZE_HELP,
  ],
  async run(ctx) {
    const uri = requireUri(ctx);
    const primaryKeys = listFlag(ctx, "primary-keys");
    if (!primaryKeys) throw usageError("--primary-keys is required (comma-separated column names)");
    const pruneStrategy = choiceFlag(ctx, "prune-strategy", ["probe", "stats", "none"] as const);
    const missingColumns = choiceFlag(ctx, "missing-columns", MISSING_COLUMNS);
    const commitMetadata = keyValueFlag(ctx, "commit-metadata");
    const partitionKey = stringFlag(ctx, "partition-key");
    const tuning = knobs(ctx);
    const deleteColumn = stringFlag(ctx, "delete-column");
    const txn = txnFlag(ctx);
    const inputs = await checkInputs(ctx.values.input as string[] | undefined, ctx.resolve);
    // A missing table fails here, before the input is read; its message says how to create one.
    const table = await DeltaLiteTable.open(uri, { storageOptions: ctx.storageOptions });
    checkPartitionKey(table, partitionKey);
    const data = await openInputs(inputs, ctx.progress);
    ctx.progress.start(`upserting into ${uri} (version ${table.version})`);
    const options: UpsertOptions = {
      primaryKeys,
      partitionKey,
      commitMetadata,
      pruneStrategy,
      ...tuning,
      ...(missingColumns !== "null" ? { missingColumns } : {}),
      ...(deleteColumn !== undefined ? { deleteColumn } : {}),
      ...txn,
    } as UpsertOptions;
    const stats = await table.upsert(data, options);
    const { maintenanceError, ...rest } = stats;
    return maintenanceError === undefined ? rest : { ...rest, maintenanceError: String(maintenanceError) };
  },
  human(result) {
    const r = result as {
      version: number;
      skipped?: boolean;
      rowsInserted: number;
      rowsUpdated: number;
      rowsDeleted?: number;
      filesRemoved: number;
      filesAdded: number;
    };
    if (r.skipped) return `skipped: that --txn batch was already applied (table at version ${r.version})\n`;
    const deleted = r.rowsDeleted ? `, ${r.rowsDeleted} deleted` : "";
    return `committed version ${r.version}: ${r.rowsInserted} rows inserted, ${r.rowsUpdated} updated${deleted} (files: ${r.filesRemoved} removed, ${r.filesAdded} added)\n`;
  },
};
