/**
 * `SET TBLPROPERTIES`: one commit that merges new table properties into the table's metaData, with the
 * protocol upgrade delta-rs 1.6.6 makes for them (enabling the change data feed raises writer version 1..3
 * to 4, or adds the `changeDataFeed` writer feature at version 7; at version 7 every enabled property that
 * names a feature becomes one) and delta-rs's commitInfo (`operationParameters.properties` as JSON text).
 * Every check runs before the commit (the write gate in `commitTransaction` among them), so a refused
 * change leaves the table exactly as it was; a concurrent metadata or protocol change is a non-retryable
 * conflict (the commit layer's checker), a concurrent data commit is rebased past (a property change reads
 * no data). Unlike delta-rs 1.6.6, which on a table-features protocol also declares `variantType`,
 * `invariants` and `appendOnly` on every property change, only the features the properties enable are
 * declared.
 */
import {
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  DeltaLiteUnsupportedTableError,
} from "@deltalite/errors";
import type { Action, MetadataAction, ProtocolAction } from "./actions.js";
import { defaultMaintenanceHooks } from "./maintenance/hooks.js";
import type { Snapshot } from "./snapshot.js";
import { validateTableProperties, validateTablePropertyValues } from "./table-properties.js";
import { type CommitOptions, type CommitResult, commitTransaction } from "./transaction.js";

/** delta-rs's operation name for a property change. */
export const SET_PROPERTIES_OPERATION = "SET TBLPROPERTIES";

export interface SetTablePropertiesOptions
  extends Pick<CommitOptions, "commitMetadata" | "maxRetries" | "hooks" | "outcomeResolution" | "signal"> {}

export interface SetTablePropertiesResult {
  version: number;
  /** The properties this commit set, as given. */
  properties: Readonly<Record<string, string>>;
  /** The table's whole configuration after the commit. */
  configuration: Readonly<Record<string, string>>;
  /** The protocol after the commit; `protocolUpgraded` says whether the commit carried a new one. */
  protocol: ProtocolAction;
  protocolUpgraded: boolean;
  commit: CommitResult;
}

/**
 * Sets `properties` on the table `snapshot` reads, in one `SET TBLPROPERTIES` commit. Throws
 * `invalid_argument` for an empty or non-string map, an unknown `delta.*` key (with "did you mean") or a
 * value this library could not act on; `unsupported` for properties whose feature it cannot honour (column
 * mapping, deletion vectors, v2 checkpoints, protocol versions set directly).
 */
export async function setTableProperties(
  snapshot: Snapshot,
  properties: Readonly<Record<string, string>>,
  options: SetTablePropertiesOptions = {},
): Promise<SetTablePropertiesResult> {
  const table = snapshot.table;
  checkPropertyMap(properties, table);
  validateTableProperties(properties, table);
  validateTablePropertyValues(properties, table);
  refuseUnhonourable(properties, table);
  const metaData: MetadataAction = {
    ...snapshot.metadata,
    configuration: { ...snapshot.metadata.configuration, ...properties },
  };
  const protocol = upgradedProtocol(snapshot.protocol, properties, metaData.configuration);
  const protocolUpgraded = !sameProtocol(protocol, snapshot.protocol);
  const actions: Action[] = [{ metaData }, ...(protocolUpgraded ? [{ protocol }] : [])];
  const commit = await commitTransaction(snapshot, actions, {
    operation: SET_PROPERTIES_OPERATION,
    operationParameters: { properties },
    read: { kind: "none" },
    commitMetadata: options.commitMetadata,
    maxRetries: options.maxRetries,
    hooks: options.hooks ?? defaultMaintenanceHooks(),
    outcomeResolution: options.outcomeResolution,
    signal: options.signal,
  });
  return {
    version: commit.version,
    properties: { ...properties },
    configuration: commit.snapshot.configuration,
    protocol: commit.snapshot.protocol,
    protocolUpgraded,
    commit,
  };
}

function checkPropertyMap(properties: Readonly<Record<string, string>>, table: string): void {
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: table properties must be an object of key → string value`,
    );
  }
  const entries = Object.entries(properties);
  if (entries.length === 0) {
    throw new DeltaLiteInvalidArgumentError(`${table}: no table properties given to set`);
  }
  for (const [key, value] of entries) {
    if (key.trim() === "") throw new DeltaLiteInvalidArgumentError(`${table}: a table property key is empty`);
    if (typeof value !== "string") {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: table property ${JSON.stringify(key)} must have a string value (got ${typeof value}); write numbers and booleans as text, e.g. "10" or "true"`,
      );
    }
  }
}

/** Properties naming features this library cannot honour, refused before anything is written. */
function refuseUnhonourable(properties: Readonly<Record<string, string>>, table: string): void {
  const refuse = (feature: string, why: string) =>
    new DeltaLiteUnsupportedTableError(`${table}: ${why} (feature ${feature})`, { feature });
  for (const [key, value] of Object.entries(properties)) {
    const v = value.toLowerCase();
    if (key === "delta.columnMapping.mode") {
      throw refuse(
        "columnMapping",
        "setting delta.columnMapping.mode is not supported (delta-rs refuses it too)",
      );
    }
    if (key === "delta.enableDeletionVectors" && v === "true") {
      throw refuse("deletionVectors", "enabling deletion vectors is not supported");
    }
    if (key === "delta.checkpointPolicy" && v === "v2") {
      throw refuse("v2Checkpoint", "v2 checkpoints are not written by this library");
    }
    if (key === "delta.minReaderVersion" || key === "delta.minWriterVersion") {
      throw new DeltaLiteError("unsupported", `${table}: setting ${key} directly is not supported`);
    }
  }
}

const isTrue = (value: string | undefined) => value?.toLowerCase() === "true";

/**
 * delta-rs's protocol for the new properties: enabling the change data feed raises writer 1..3 to 4 and
 * declares the feature at writer 7; then, at writer 7, every property of the whole configuration that
 * enables a feature we write (change data feed, append-only) is declared as one.
 */
export function upgradedProtocol(
  current: ProtocolAction,
  properties: Readonly<Record<string, string>>,
  configuration: Readonly<Record<string, string>>,
): ProtocolAction {
  const next: ProtocolAction = { ...current };
  if (isTrue(properties["delta.enableChangeDataFeed"]) && next.minWriterVersion <= 3) {
    next.minWriterVersion = 4;
  }
  if (next.minWriterVersion >= 7) {
    const features = [...(next.writerFeatures ?? [])];
    const declare = (feature: string) => {
      if (!features.includes(feature)) features.push(feature);
    };
    if (isTrue(configuration["delta.enableChangeDataFeed"])) declare("changeDataFeed");
    if (isTrue(configuration["delta.appendOnly"])) declare("appendOnly");
    next.writerFeatures = features;
  }
  return next;
}

function sameProtocol(a: ProtocolAction, b: ProtocolAction): boolean {
  const list = (x: string[] | null | undefined) => (x == null ? "-" : [...x].sort().join(","));
  return (
    a.minReaderVersion === b.minReaderVersion &&
    a.minWriterVersion === b.minWriterVersion &&
    list(a.readerFeatures) === list(b.readerFeatures) &&
    list(a.writerFeatures) === list(b.writerFeatures)
  );
}
