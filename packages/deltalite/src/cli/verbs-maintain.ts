/**
 * CLI verbs that rearrange a table's files: `compact` (small files into bins, as delta-rs's optimize.compact
 * plans them; one OPTIMIZE commit), `z-order` (files rewritten sorted by a Z-order curve, as delta-rs's
 * optimize.z_order) and `restore` (one RESTORE commit back to a version or instant).
 */
import type {
  CompactOptions,
  CompactProgress,
  PartitionValueMatch,
  ZOrderOptions,
  ZOrderResult,
} from "@deltalite/compaction";
import { bytesFlag, countFlag, keyValueEntries, listFlag } from "./flags.js";
import { usageError, type Verb, type VerbContext } from "./framework.js";
import { BYTE_SIZE_HELP, formatBytes } from "./units.js";
import { openTable, TIME_TRAVEL_OPTIONS, timeTravel } from "./verbs-log.js";

/** Repeated `--partition k=v`: one value per column, or any of several when a column is given twice. */
/** The progress line of a compaction or Z-order: bins done of bins, input bytes read of the bins' bytes. */
function binProgress(ctx: VerbContext): (progress: CompactProgress) => void {
  return (p) =>
    ctx.progress.set({ bins: p.binsDone, binsTotal: p.bins, bytes: p.bytesDone, bytesTotal: p.bytes });
}

function partitionsFlag(ctx: VerbContext): CompactOptions["partitions"] {
  const entries = keyValueEntries(ctx, "partition");
  if (entries.length === 0) return undefined;
  const out: Record<string, PartitionValueMatch> = {};
  for (const [column, value] of entries) {
    const seen = out[column];
    out[column] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}

interface CompactVerbResult {
  version: number;
  dryRun: boolean;
  commits: number;
  numFilesAdded: number;
  numFilesRemoved: number;
  partitionsOptimized: number;
}

export const compactVerb: Verb = {
  name: "compact",
  summary: "rewrite small files into larger ones (delta-rs's optimize.compact bins), one OPTIMIZE commit",
  args: "<uri>",
  options: {
    "target-file-size": {
      type: "string",
      value: "BYTES",
      description:
        "bins close at this many stored bytes [default: the table's delta.targetFileSize, else 100MiB]",
    },
    partition: {
      type: "string",
      multiple: true,
      value: "COL=VALUE",
      description: "compact only partitions with this value (repeat a column for any of several values)",
    },
    "min-partition-removable-files": {
      type: "string",
      value: "N",
      description: "compact a partition only when its bins remove N more files than they write [default: 1]",
    },
    "max-bins-per-commit": {
      type: "string",
      value: "N",
      description: "bins per OPTIMIZE commit [default: all in one commit]",
    },
    "dry-run": { type: "boolean", description: "plan the bins and report them; read and write nothing" },
  },
  notes: [BYTE_SIZE_HELP],
  async run(ctx) {
    const options: CompactOptions = {
      targetFileSize: bytesFlag(ctx, "target-file-size"),
      partitions: partitionsFlag(ctx),
      minPartitionRemovableFiles: countFlag(ctx, "min-partition-removable-files"),
      maxBinsPerCommit: countFlag(ctx, "max-bins-per-commit"),
      dryRun: ctx.values["dry-run"] === true,
    };
    const table = await openTable(ctx);
    ctx.progress.start(`compacting ${table.uri}`);
    const result = await table.compact({ ...options, onProgress: binProgress(ctx) });
    ctx.progress.set({ files: result.numFilesRemoved });
    return result;
  },
  human(result) {
    const r = result as CompactVerbResult & { filesRemoved: { totalSize: number } };
    const what = `${r.numFilesRemoved} files into ${r.numFilesAdded} in ${r.partitionsOptimized} partitions`;
    if (r.dryRun) return `would compact ${what} (dry run: nothing written)\n`;
    if (r.commits === 0) return `nothing to compact (table stays at version ${r.version})\n`;
    return `compacted ${what} (${formatBytes(r.filesRemoved.totalSize)}): version ${r.version}\n`;
  },
};

export const zOrderVerb: Verb = {
  name: "z-order",
  summary: "rewrite partitions' files sorted by a Z-order curve over columns (delta-rs's optimize.z_order)",
  args: "<uri> --columns COL[,COL]",
  options: {
    columns: {
      type: "string",
      value: "COL[,COL]",
      description: "the Z-order columns (not partition columns)",
    },
    "target-file-size": {
      type: "string",
      value: "BYTES",
      description:
        "files close at this many stored bytes [default: the table's delta.targetFileSize, else 100MiB]",
    },
    partition: {
      type: "string",
      multiple: true,
      value: "COL=VALUE",
      description: "z-order only partitions with this value (repeat a column for any of several values)",
    },
    "max-sort-bytes": {
      type: "string",
      value: "BYTES",
      description:
        "rows of a partition sorted in memory; beyond it sorted runs spill to the temp folder [default: 64MiB]",
    },
    "dry-run": { type: "boolean", description: "plan and report; read, write and commit nothing" },
  },
  notes: [BYTE_SIZE_HELP],
  async run(ctx) {
    const columns = listFlag(ctx, "columns");
    if (!columns) throw usageError("z-order needs --columns COL[,COL]");
    const options: ZOrderOptions = {
      targetFileSize: bytesFlag(ctx, "target-file-size"),
      partitions: partitionsFlag(ctx),
      maxSortBytes: bytesFlag(ctx, "max-sort-bytes"),
      dryRun: ctx.values["dry-run"] === true,
    };
    const table = await openTable(ctx);
    ctx.progress.start(`z-ordering ${table.uri}`);
    const result = await table.zOrder(columns, { ...options, onProgress: binProgress(ctx) });
    ctx.progress.set({ files: result.numFilesRemoved });
    return result;
  },
  human(result) {
    const r = result as ZOrderResult;
    const what = `${r.numFilesRemoved} files into ${r.numFilesAdded} in ${r.partitionsOptimized} partitions by ${r.columns.join(", ")}`;
    if (r.dryRun) return `would z-order ${what} (dry run: nothing written)\n`;
    if (r.commits === 0) return `nothing to z-order (table stays at version ${r.version})\n`;
    return `z-ordered ${what}: version ${r.version}\n`;
  },
};

export const restoreVerb: Verb = {
  name: "restore",
  summary: "one RESTORE commit that brings back the files of an earlier version or instant",
  args: "<uri> (--version N | --timestamp ISO)",
  options: {
    version: { type: "string", value: "N", description: "the version to restore" },
    timestamp: {
      ...TIME_TRAVEL_OPTIONS.timestamp!,
      description: "restore the table as of this instant, ISO 8601",
    },
    "ignore-missing-files": {
      type: "boolean",
      description: "re-add files even when vacuum removed them [default: refuse with not_found]",
    },
  },
  async run(ctx) {
    const at = timeTravel(ctx);
    const target = at.version ?? at.timestamp;
    if (target === undefined) throw usageError("restore needs --version N or --timestamp ISO");
    const table = await openTable(ctx);
    ctx.progress.start(`restoring ${table.uri}`);
    return table.restore(target, { ignoreMissingFiles: ctx.values["ignore-missing-files"] === true });
  },
  human(result) {
    const r = result as {
      version: number;
      restoredVersion: number;
      numRestoredFile: number;
      numRemovedFile: number;
    };
    return `restored version ${r.restoredVersion} as version ${r.version}: ${r.numRestoredFile} files re-added, ${r.numRemovedFile} removed\n`;
  },
};
