/**
 * CLI verb `write`: Parquet / Arrow data (files or stdin, several `--input`s in one commit) into a table,
 * with delta-rs write_deltalake's modes — `error` (the default: only creates), `append`, `overwrite`,
 * `ignore` — through `DeltaLiteTable.write`, which creates a missing table in every mode.
 */
import type { WriteMode } from "@deltalite/data-files";
import { DeltaLiteTable } from "../table.js";
import { bytesFlag, choiceFlag, keyValueFlag, listFlag, requireUri, TXN_OPTIONS, txnFlag } from "./flags.js";
import type { Verb, VerbContext } from "./framework.js";
import { checkInputs, openInputs } from "./input.js";
import { BYTE_SIZE_HELP } from "./units.js";

const MODES: readonly WriteMode[] = ["error", "append", "overwrite", "ignore"];

export interface WriteVerbResult {
  /** False when `--mode ignore` found a table, or the `--txn-*` batch was already applied: nothing written. */
  committed: boolean;
  /** True when the `--txn-app-id` / `--txn-version` batch was already applied. */
  skipped?: boolean;
  mode: WriteMode;
  version: number;
  filesAdded: number;
  filesRemoved: number;
  rowsWritten: number;
  bytesWritten: number;
  maintenanceError?: string;
}

export const writeVerb: Verb = {
  name: "write",
  summary: "write Parquet or Arrow data to a table in one commit (creates the table when missing)",
  args: "<uri> --input <file|-> [--input <file>]...",
  options: {
    input: {
      type: "string",
      multiple: true,
      value: "FILE|-",
      description:
        "a .parquet or .arrow/.arrows file, or - for stdin (Arrow IPC stream or Parquet, sniffed); several files must share one schema",
    },
    mode: {
      type: "string",
      value: "MODE",
      default: "error",
      description:
        "when the table exists: error (fail with already_exists), append, overwrite, or ignore (write nothing)",
    },
    "partition-by": {
      type: "string",
      value: "COL[,COL]",
      description: "partition columns of a table this write creates (must match an existing table's)",
    },
    "schema-mode": {
      type: "string",
      value: "merge|overwrite",
      description: "merge: an append may add columns; overwrite: an overwrite may replace the schema",
    },
    property: {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description:
        "a table property of a table this write creates, e.g. delta.enableChangeDataFeed=true (an existing table keeps its own: use set-properties)",
    },
    "commit-metadata": {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description: "an entry written flat into the commit's commitInfo",
    },
    "target-file-size": {
      type: "string",
      value: "BYTES",
      description: "size of the data files written [default: the table's delta.targetFileSize, else 100MiB]",
    },
    ...TXN_OPTIONS,
  },
  notes: [BYTE_SIZE_HELP],
  async run(ctx: VerbContext): Promise<WriteVerbResult> {
    const uri = requireUri(ctx);
    const mode = choiceFlag(ctx, "mode", MODES) ?? "error";
    const schemaMode = choiceFlag(ctx, "schema-mode", ["merge", "overwrite"] as const);
    const commitMetadata = keyValueFlag(ctx, "commit-metadata");
    const configuration = keyValueFlag(ctx, "property");
    const targetFileSize = bytesFlag(ctx, "target-file-size");
    const partitionBy = listFlag(ctx, "partition-by");
    const txn = txnFlag(ctx);
    const inputs = await checkInputs(ctx.values.input as string[] | undefined, ctx.resolve);
    const data = await openInputs(inputs, ctx.progress);
    ctx.progress.start(`writing ${uri}`);
    const { result } = await DeltaLiteTable.write(uri, data, {
      mode,
      partitionBy,
      schemaMode,
      targetFileSize,
      ...(Object.keys(commitMetadata).length > 0 ? { commitMetadata } : {}),
      ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
      ...txn,
      storageOptions: ctx.storageOptions,
    });
    return {
      committed: result.committed,
      ...("skipped" in result && result.skipped ? { skipped: true } : {}),
      mode,
      version: result.version,
      filesAdded: result.filesAdded,
      filesRemoved: result.filesRemoved,
      rowsWritten: result.rowsWritten,
      bytesWritten: result.bytesWritten,
      ...(result.maintenanceError !== undefined ? { maintenanceError: String(result.maintenanceError) } : {}),
    };
  },
  human(result) {
    const r = result as WriteVerbResult;
    if (r.skipped) return `skipped: that --txn batch was already applied (table at version ${r.version})\n`;
    if (!r.committed) return `a table exists at version ${r.version}: --mode ignore wrote nothing\n`;
    const removed = r.filesRemoved > 0 ? `, ${r.filesRemoved} files removed` : "";
    return `committed version ${r.version}: ${r.rowsWritten} rows in ${r.filesAdded} files (${r.bytesWritten} bytes)${removed}\n`;
  },
};
