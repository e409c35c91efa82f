/** CLI verb `write`: append or overwrite a Parquet / Arrow file into a table (created when missing). */
import { DeltaLiteTable } from "../table.js";
import { requireUri, UsageError, type Verb } from "./framework.js";
import { openInput } from "./input.js";

export const writeVerb: Verb = {
  name: "write",
  summary: "append or overwrite data from a Parquet or Arrow file (creates the table if missing)",
  usage:
    "deltalite write <uri> --input <file.parquet|file.arrow|-> --mode append|overwrite [--partition-by col[,col]] [--schema-mode merge|overwrite] [--json]",
  options: {
    input: { type: "string" },
    mode: { type: "string", default: "append" },
    "partition-by": { type: "string" },
    "schema-mode": { type: "string" },
  },
  async run(ctx) {
    const uri = requireUri(ctx);
    const mode = ctx.values.mode;
    if (mode !== "append" && mode !== "overwrite") throw new UsageError("--mode must be append or overwrite");
    const schemaMode = ctx.values["schema-mode"];
    if (schemaMode !== undefined && schemaMode !== "merge" && schemaMode !== "overwrite") {
      throw new UsageError("--schema-mode must be merge or overwrite");
    }
    const partitionFlag = ctx.values["partition-by"];
    const partitionBy =
      typeof partitionFlag === "string"
        ? partitionFlag
            .split(",")
            .map((c) => c.trim())
            .filter(Boolean)
        : undefined;
    const data = await openInput(ctx.values.input as string | undefined);
    ctx.progress(`writing to ${uri}…`);
    const { result } = await DeltaLiteTable.write(uri, data, {
      mode,
      partitionBy,
      schemaMode: schemaMode as "merge" | "overwrite" | undefined,
      storageOptions: ctx.storageOptions,
    });
    return {
      version: result.version,
      filesAdded: result.filesAdded,
      filesRemoved: result.filesRemoved,
      rowsWritten: result.rowsWritten,
      bytesWritten: result.bytesWritten,
      ...(result.maintenanceError !== undefined ? { maintenanceError: String(result.maintenanceError) } : {}),
    };
  },
  human(result) {
    const r = result as { version: number; filesAdded: number; rowsWritten: number };
    return `committed version ${r.version}: ${r.rowsWritten} rows in ${r.filesAdded} files\n`;
  },
};
