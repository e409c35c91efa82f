/** CLI verb `upsert`: replace rows whose primary key exists and insert the rest, in one commit. */
import { DeltaLiteTable } from "../table.js";
import { requireUri, UsageError, type Verb } from "./framework.js";
import { openInput } from "./input.js";

/** Integer knobs: flag → UpsertOptions name. */
const KNOBS = {
  "max-parallel-partitions": "maxParallelPartitions",
  "max-parallel-files": "maxParallelFiles",
  "max-buffered-bytes": "maxBufferedBytes",
  "max-fetch-bytes": "maxFetchBytes",
  "probe-concurrency": "probeConcurrency",
  "read-batch-size": "readBatchSize",
  "read-ahead-row-groups": "readAheadRowGroups",
  "target-file-size": "targetFileSize",
  "timeout-ms": "timeoutMs",
} as const;

function knobs(values: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [flag, option] of Object.entries(KNOBS)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
      throw new UsageError(`--${flag} needs a non-negative integer`);
    }
    out[option] = value;
  }
  return out;
}

const list = (value: unknown) =>
  typeof value === "string"
    ? value
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean)
    : [];

export const upsertVerb: Verb = {
  name: "upsert",
  summary: "replace rows whose primary key exists, insert the rest, in one atomic commit",
  usage:
    "deltalite upsert <uri> --input <file.parquet|file.arrow|-> --primary-keys a[,b] [--partition-key col] [--commit-metadata k=v]... [--prune-strategy probe|stats|none] [--max-parallel-partitions n] [--max-parallel-files n] [--max-buffered-bytes n] [--max-fetch-bytes n] [--probe-concurrency n] [--read-batch-size n] [--read-ahead-row-groups n] [--target-file-size n] [--timeout-ms n] [--json]",
  options: {
    input: { type: "string" },
    "primary-keys": { type: "string" },
    "partition-key": { type: "string" },
    "commit-metadata": { type: "string", multiple: true },
    "prune-strategy": { type: "string", default: "probe" },
    ...Object.fromEntries(Object.keys(KNOBS).map((flag) => [flag, { type: "string" as const }])),
  },
  async run(ctx) {
    const uri = requireUri(ctx);
    const primaryKeys = list(ctx.values["primary-keys"]);
    if (primaryKeys.length === 0)
      throw new UsageError("--primary-keys is required (comma-separated column names)");
    const pruneStrategy = ctx.values["prune-strategy"];
    if (pruneStrategy !== "probe" && pruneStrategy !== "stats" && pruneStrategy !== "none") {
      throw new UsageError("--prune-strategy must be probe, stats or none");
    }
    const commitMetadata: Record<string, string> = {};
    for (const entry of (ctx.values["commit-metadata"] as string[] | undefined) ?? []) {
      const eq = entry.indexOf("=");
      if (eq <= 0) throw new UsageError("--commit-metadata needs KEY=VALUE");
      commitMetadata[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    const partitionKey = ctx.values["partition-key"];
    const tuning = knobs(ctx.values);
    const data = await openInput(ctx.values.input as string | undefined);
    const table = await DeltaLiteTable.open(uri, { storageOptions: ctx.storageOptions });
    ctx.progress(`upserting into ${uri} at version ${table.version}…`);
    const stats = await table.upsert(data, {
      primaryKeys,
      partitionKey: typeof partitionKey === "string" ? partitionKey : undefined,
      commitMetadata,
      pruneStrategy,
      ...tuning,
    });
    const { maintenanceError, ...rest } = stats;
    return maintenanceError === undefined ? rest : { ...rest, maintenanceError: String(maintenanceError) };
  },
  human(result) {
    const r = result as {
      version: number;
      rowsInserted: number;
      rowsUpdated: number;
      filesRemoved: number;
      filesAdded: number;
    };
    return `v${r.version}: +${r.rowsInserted} / ~${r.rowsUpdated} (files -${r.filesRemoved} +${r.filesAdded})\n`;
  },
};
