/**
 * CLI verb `info`: a table's version, id, protocol, schema, partition columns, properties and live files,
 * with totals from the Add actions (bytes from `size`, rows from `numRecords` — saying how many files lack
 * stats). `--json` prints each file's stats exactly as the log holds them (RawJson: an int64 above 2^53
 * keeps every digit); the human form is a summary for people.
 */
import type { FileView } from "@deltalite/delta-log";
import { compactJsonText, RawJson } from "../json/index.js";
import type { Verb } from "./framework.js";
import { formatBytes } from "./units.js";
import { openTable, TIME_TRAVEL_OPTIONS, timeTravel } from "./verbs-log.js";

interface DeltaField {
  name: string;
  type: DeltaType;
  nullable: boolean;
}
type DeltaType =
  | string
  | { type: "struct"; fields: DeltaField[] }
  | { type: "array"; elementType: DeltaType; containsNull?: boolean }
  | { type: "map"; keyType: DeltaType; valueType: DeltaType };

export interface InfoVerbResult {
  uri: string;
  version: number;
  tableId: string;
  protocol: unknown;
  configuration: Readonly<Record<string, string>>;
  partitionColumns: readonly string[];
  schema: { fields: DeltaField[] };
  numFiles: number;
  sizeBytes: number;
  /** Sum of `numRecords` over the files that have stats. */
  numRows: number;
  filesWithoutStats: number;
  files: { path: string; size: number; partitionValues: unknown; stats: RawJson | null }[];
}

/** The stats text of an Add, compacted but digit for digit; null when absent or not JSON. */
function rawStats(file: FileView): RawJson | null {
  const text = typeof file.add.stats === "string" ? compactJsonText(file.add.stats) : undefined;
  return text === undefined ? null : new RawJson(text);
}

function typeText(type: DeltaType): string {
  if (typeof type === "string") return type;
  if (type.type === "struct")
    return `struct<${type.fields.map((f) => `${f.name}: ${typeText(f.type)}`).join(", ")}>`;
  if (type.type === "array") return `array<${typeText(type.elementType)}>`;
  return `map<${typeText(type.keyType)}, ${typeText(type.valueType)}>`;
}

export const infoVerb: Verb = {
  name: "info",
  summary: "version, schema, partition columns, files, rows, bytes and properties of a table",
  args: "<uri>",
  options: TIME_TRAVEL_OPTIONS,
  async run(ctx): Promise<InfoVerbResult> {
    const table = await openTable(ctx, timeTravel(ctx));
    const files = table.files;
    let numRows = 0;
    let filesWithoutStats = 0;
    for (const file of files) {
      const rows = file.stats?.numRecords;
      if (typeof rows === "number") numRows += rows;
      else filesWithoutStats++;
    }
    return {
      uri: table.uri,
      version: table.version,
      tableId: table.tableId,
      protocol: table.snapshot.protocol,
      configuration: table.configuration,
      partitionColumns: table.partitionColumns,
      schema: JSON.parse(table.schemaJson),
      numFiles: files.length,
      sizeBytes: files.reduce((sum, f) => sum + f.size, 0),
      numRows,
      filesWithoutStats,
      files: files.map((f) => ({
        path: f.path,
        size: f.size,
        partitionValues: f.partitionValues,
        stats: rawStats(f),
      })),
    };
  },
  human(result) {
    const r = result as InfoVerbResult;
    const protocol = r.protocol as { minReaderVersion: number; minWriterVersion: number };
    const width = Math.max(4, ...r.schema.fields.map((f) => f.name.length));
    const rows =
      r.filesWithoutStats === 0
        ? `${r.numRows}`
        : `${r.numRows} in the ${r.numFiles - r.filesWithoutStats} files with stats (${r.filesWithoutStats} of ${r.numFiles} files have no stats)`;
    const properties = Object.entries(r.configuration);
    return [
      `table      ${r.uri}`,
      `version    ${r.version}`,
      `table id   ${r.tableId}`,
      `protocol   reader ${protocol.minReaderVersion}, writer ${protocol.minWriterVersion}`,
      "schema:",
      ...r.schema.fields.map(
        (f) =>
          `  ${f.name.padEnd(width)}  ${typeText(f.type).padEnd(10)}  ${f.nullable ? "nullable" : "not null"}`,
      ),
      `partition columns: ${r.partitionColumns.length > 0 ? r.partitionColumns.join(", ") : "(none)"}`,
      `files      ${r.numFiles}`,
      `rows       ${rows}`,
      `bytes      ${r.sizeBytes} (${formatBytes(r.sizeBytes)})`,
      `properties:${properties.length === 0 ? " (none)" : ""}`,
      ...properties.map(([key, value]) => `  ${key} = ${value}`),
      "",
    ].join("\n");
  },
};
