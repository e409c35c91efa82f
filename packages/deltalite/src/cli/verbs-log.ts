/** CLI verbs over the transaction log: `info`, `history`, `vacuum`. */
import { DeltaLiteTable } from "../table.js";
import { integerFlag, requireUri, UsageError, type Verb, type VerbContext } from "./framework.js";

async function openTable(ctx: VerbContext, version?: number): Promise<DeltaLiteTable> {
  return DeltaLiteTable.open(requireUri(ctx), { storageOptions: ctx.storageOptions, version });
}

export const infoVerb: Verb = {
  name: "info",
  summary: "version, id, protocol, schema and live files of a table",
  usage: "deltalite info <uri> [--version N] [--json]",
  options: { version: { type: "string" } },
  async run(ctx) {
    const table = await openTable(ctx, integerFlag(ctx, "version"));
    const snapshot = table.snapshot;
    return {
      version: table.version,
      tableId: table.tableId,
      protocol: snapshot.protocol,
      configuration: table.configuration,
      partitionColumns: table.partitionColumns,
      schema: JSON.parse(table.schemaJson),
      numFiles: table.numFiles,
      files: table.files.map((f) => ({
        path: f.path,
        size: f.size,
        partitionValues: f.partitionValues,
        stats: f.stats ?? null,
      })),
    };
  },
  human(result) {
    const r = result as { version: number; tableId: string; numFiles: number; partitionColumns: string[] };
    return `version ${r.version}, table id ${r.tableId}, ${r.numFiles} live files, partitioned by [${r.partitionColumns.join(", ")}]\n`;
  },
};

export const historyVerb: Verb = {
  name: "history",
  summary: "commitInfo of the newest commits, newest first",
  usage: "deltalite history <uri> [--limit N] [--json]",
  options: { limit: { type: "string" } },
  async run(ctx) {
    const limit = integerFlag(ctx, "limit");
    const table = await openTable(ctx);
    const entries = await table.history(limit);
    return entries.map((e) => ({ ...e.commitInfo, version: e.version, timestamp: e.timestamp }));
  },
  human(result) {
    return (result as { version: number; operation?: string; timestamp: number }[])
      .map(
        (e) =>
          `${String(e.version).padStart(6)}  ${new Date(e.timestamp).toISOString()}  ${e.operation ?? "?"}\n`,
      )
      .join("");
  },
};

export const vacuumVerb: Verb = {
  name: "vacuum",
  summary: "delete files older than the retention that the table no longer needs",
  usage: "deltalite vacuum <uri> [--retention-hours H] [--dry-run] [--full] [--no-retention-check] [--json]",
  options: {
    "retention-hours": { type: "string" },
    "dry-run": { type: "boolean", default: false },
    full: { type: "boolean", default: false },
    "no-retention-check": { type: "boolean", default: false },
  },
  async run(ctx) {
    const raw = ctx.values["retention-hours"];
    let retentionHours: number | undefined;
    if (raw !== undefined) {
      retentionHours = Number(raw);
      if (typeof raw !== "string" || raw.trim() === "" || !(retentionHours >= 0)) {
        throw new UsageError("--retention-hours needs a non-negative number");
      }
    }
    const table = await openTable(ctx);
    return table.vacuum({
      retentionHours,
      dryRun: ctx.values["dry-run"] === true,
      full: ctx.values.full === true,
      enforceRetentionDuration: ctx.values["no-retention-check"] !== true,
    });
  },
  human(result) {
    const r = result as { dryRun: boolean; files: string[]; bytes: number };
    return `${r.dryRun ? "would delete" : "deleted"} ${r.files.length} files (${r.bytes} bytes)\n${r.files.map((f) => `  ${f}\n`).join("")}`;
  },
};
