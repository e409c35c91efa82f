/** CLI verb `upsert`: replace rows whose primary key exists and insert the rest, in one commit. */
import { DeltaLiteTable } from "../table.js";
import { requireUri, UsageError, type Verb } from "./framework.js";
import { openInput } from "./input.js";

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
    "deltalite upsert <uri> --input <file.parquet|file.arrow|-> --primary-keys a[,b] [--partition-key col] [--commit-metadata k=v]... [--prune-strategy probe|stats|none] [--json]",
  options: {
    input: { type: "string" },
    "primary-keys": { type: "string" },
    "partition-key": { type: "string" },
    "commit-metadata": { type: "string", multiple: true },
    "prune-strategy": { type: "string", default: "probe" },
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
    const data = await openInput(ctx.values.input as string | undefined);
    const table = await DeltaLiteTable.open(uri, { storageOptions: ctx.storageOptions });
    ctx.progress(`upserting into ${uri} at version ${table.version}…`);
    const stats = await table.upsert(data, {
      primaryKeys,
      partitionKey: typeof partitionKey === "string" ? partitionKey : undefined,
      commitMetadata,
      pruneStrategy,
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
