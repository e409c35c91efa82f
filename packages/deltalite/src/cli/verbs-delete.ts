/**
 * CLI verb `delete`: the rows matching a scan filter deleted in one DELETE commit, as delta-rs's `delete`
 * (files proven to match entirely are removed unread, files that may match are rewritten without those
 * rows); exactly-once with `--txn-app-id` / `--txn-version`.
 */
import { filterFlag, TXN_OPTIONS, txnFlag } from "./flags.js";
import { usageError, type Verb } from "./framework.js";
import { openTable } from "./verbs-log.js";

interface DeleteVerbResult {
  version: number;
  committed: boolean;
  skipped: boolean;
  rowsDeleted: number;
  filesRemoved: number;
  filesAdded: number;
}

export const deleteVerb: Verb = {
  name: "delete",
  summary: "delete the rows matching a filter in one DELETE commit (as delta-rs's delete)",
  args: "<uri> --filter JSON",
  options: {
    filter: {
      type: "string",
      value: "JSON",
      description:
        "the rows to delete: a JSON list of {column, op, value} conditions, all must hold ([] deletes every row); ops as scan --filter",
    },
    ...TXN_OPTIONS,
  },
  async run(ctx) {
    const filter = filterFlag(ctx, "filter");
    if (filter === undefined) throw usageError("delete needs --filter JSON (use [] to delete every row)");
    const txn = txnFlag(ctx);
    const table = await openTable(ctx);
    ctx.progress.start(`deleting from ${table.uri}`);
    const { commit, maintenanceError, ...result } = await table.delete(filter, txn);
    ctx.progress.set({ rows: result.rowsDeleted, files: result.filesRemoved });
    return maintenanceError === undefined
      ? result
      : { ...result, maintenanceError: String(maintenanceError) };
  },
  human(result) {
    const r = result as DeleteVerbResult;
    if (r.skipped) return `skipped: that --txn batch was already applied (table at version ${r.version})\n`;
    if (!r.committed) return `no row matches: nothing deleted (table stays at version ${r.version})\n`;
    return `committed version ${r.version}: ${r.rowsDeleted} rows deleted (files: ${r.filesRemoved} removed, ${r.filesAdded} added)\n`;
  },
};
