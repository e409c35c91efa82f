/** CLI verbs over the transaction log: `history` and `vacuum` (and the table opening `info` shares). */
import { DeltaLiteTable } from "../table.js";
import { countFlag, requireUri, stringFlag } from "./flags.js";
import { usageError, type Verb, type VerbContext } from "./framework.js";
import type { OptionDefs } from "./options.js";
import { formatBytes } from "./units.js";

/** `--version N` / `--timestamp ISO`: the time-travel options of `info` and `scan`. */
export const TIME_TRAVEL_OPTIONS: OptionDefs = {
  version: { type: "string", value: "N", description: "read the table at this version [default: latest]" },
  timestamp: {
    type: "string",
    value: "ISO",
    description:
      "read the table as of this instant, ISO 8601 (2026-01-02T03:04:05Z; a date alone is midnight UTC) [default: latest]",
  },
};

/** The time-travel target of `--version` / `--timestamp` (at most one). */
export function timeTravel(ctx: VerbContext): { version?: number; timestamp?: string } {
  const version = countFlag(ctx, "version");
  const timestamp = stringFlag(ctx, "timestamp");
  if (version !== undefined && timestamp !== undefined) {
    throw usageError("give --version or --timestamp, not both");
  }
  if (timestamp === undefined) return version === undefined ? {} : { version };
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(timestamp)) {
    throw usageError(
      `--timestamp needs an ISO 8601 instant such as 2026-01-02T03:04:05Z (got ${JSON.stringify(timestamp)})`,
    );
  }
  // A date or date-time without a zone is UTC (Date.parse would read a zone-less date-time as local time).
  const zoned =
    /(Z|[+-]\d{2}:?\d{2})$/.test(timestamp) || !timestamp.includes(":") ? timestamp : `${timestamp}Z`;
  if (!Number.isFinite(Date.parse(zoned)))
    throw usageError(`--timestamp ${timestamp} is not a valid instant`);
  return { timestamp: new Date(Date.parse(zoned)).toISOString() };
}

export async function openTable(ctx: VerbContext, at: { version?: number; timestamp?: string } = {}) {
  return DeltaLiteTable.open(requireUri(ctx), { storageOptions: ctx.storageOptions, ...at });
}

export const historyVerb: Verb = {
  name: "history",
  summary: "commitInfo of the newest commits, newest first",
  args: "<uri>",
  options: { limit: { type: "string", value: "N", description: "at most N commits [default: all]" } },
  async run(ctx) {
    const limit = countFlag(ctx, "limit");
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
  summary: "delete files older than the retention that the table no longer needs; reports the bytes deleted",
  args: "<uri>",
  options: {
    "retention-hours": {
      type: "string",
      value: "HOURS",
      description:
        "keep files removed less than HOURS ago [default: the table's delta.deletedFileRetentionDuration, else 168]",
    },
    "dry-run": { type: "boolean", description: "list what would be deleted; delete nothing" },
    full: {
      type: "boolean",
      description: "also delete files the log never referenced (lists the whole table)",
    },
    "no-retention-check": {
      type: "boolean",
      description: "allow a retention below the table's (files that time travel needs may go)",
    },
  },
  async run(ctx) {
    const raw = stringFlag(ctx, "retention-hours");
    let retentionHours: number | undefined;
    if (raw !== undefined) {
      retentionHours = Number(raw);
      if (raw.trim() === "" || !(retentionHours >= 0)) {
        throw usageError(`--retention-hours needs a non-negative number (got ${JSON.stringify(raw)})`);
      }
    }
    const table = await openTable(ctx);
    ctx.progress.start(`vacuuming ${table.uri}`);
    const result = await table.vacuum({
      retentionHours,
      dryRun: ctx.values["dry-run"] === true,
      full: ctx.values.full === true,
      enforceRetentionDuration: ctx.values["no-retention-check"] !== true,
    });
    ctx.progress.set({ files: result.files.length, bytes: result.bytes });
    return result;
  },
  human(result) {
    const r = result as { dryRun: boolean; files: string[]; bytes: number };
    const verb = r.dryRun ? "would delete" : "deleted";
    return `${verb} ${r.files.length} files, ${r.bytes} bytes (${formatBytes(r.bytes)})\n${r.files.map((f) => `  ${f}\n`).join("")}`;
  },
};
