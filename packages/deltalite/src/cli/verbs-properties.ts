/**
 * CLI verb `set-properties`: table properties (`--property KEY=VALUE`, repeatable) set in one SET
 * TBLPROPERTIES commit, as delta-rs's `alter.set_table_properties` (enabling the change data feed upgrades
 * the protocol as delta-rs does; unknown `delta.*` keys exit 2 with "did you mean").
 */
import type { ProtocolAction } from "@deltalite/delta-log";
import { keyValueEntries } from "./flags.js";
import { usageError, type Verb } from "./framework.js";
import { openTable } from "./verbs-log.js";

interface SetPropertiesVerbResult {
  version: number;
  properties: Record<string, string>;
  configuration: Record<string, string>;
  protocol: ProtocolAction;
  protocolUpgraded: boolean;
  maintenanceError?: string;
}

export const setPropertiesVerb: Verb = {
  name: "set-properties",
  summary: "set table properties in one SET TBLPROPERTIES commit (as delta-rs's set_table_properties)",
  args: "<uri> --property KEY=VALUE [--property KEY=VALUE]...",
  options: {
    property: {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description:
        "a table property to set, e.g. delta.checkpointInterval=10 or delta.enableChangeDataFeed=true; a key given twice with different values is refused",
    },
  },
  async run(ctx) {
    const properties = propertiesOf(keyValueEntries(ctx, "property"));
    const table = await openTable(ctx);
    ctx.progress.start(`setting properties of ${table.uri}`);
    const { commit, ...result } = await table.setProperties(properties);
    const out: SetPropertiesVerbResult = {
      version: result.version,
      properties: { ...result.properties },
      configuration: { ...result.configuration },
      protocol: result.protocol,
      protocolUpgraded: result.protocolUpgraded,
    };
    if (commit.maintenanceError !== undefined) out.maintenanceError = String(commit.maintenanceError);
    return out;
  },
  human(result) {
    const r = result as SetPropertiesVerbResult;
    const set = Object.entries(r.properties)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ");
    const protocol = r.protocolUpgraded
      ? ` (protocol upgraded to reader ${r.protocol.minReaderVersion}, writer ${r.protocol.minWriterVersion})`
      : "";
    return `committed version ${r.version}: set ${set}${protocol}\n`;
  },
};

/** The `--property` entries as an object; none, or a key given twice with different values, is a usage error. */
function propertiesOf(entries: [string, string][]): Record<string, string> {
  if (entries.length === 0) {
    throw usageError("set-properties needs at least one --property KEY=VALUE");
  }
  const out: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (key in out && out[key] !== value) {
      throw usageError(`--property ${key} is given twice with different values`);
    }
    out[key] = value;
  }
  return out;
}
