/**
 * The protocol/feature gate: what this library can honour when reading and when writing a table, checked
 * separately (like delta-rs's `can_read_from` / `can_write_to`), and the lowest protocol a new table needs.
 * A refusal is a `DeltaLiteUnsupportedTableError` whose `feature` names the first feature we cannot honour.
 */
import { DeltaLiteError, DeltaLiteUnsupportedTableError } from "@deltalite/errors";
import type { MetadataAction, ProtocolAction } from "./actions.js";
import { type DeltaDataType, type DeltaSchema, parseSchemaString, primitiveTypesIn } from "./schema.js";

/** Reader features whose tables we read correctly (a snapshot plus plain Parquet reads). */
export const SUPPORTED_READER_FEATURES: ReadonlySet<string> = new Set([
  "timestampNtz",
  "v2Checkpoint",
  "vacuumProtocolCheck",
]);

/**
 * Writer features we honour. appendOnly is enforced by the commit layer; invariants, checkConstraints,
 * generatedColumns and changeDataFeed are accepted only while the table does not use them (checked below).
 */
export const SUPPORTED_WRITER_FEATURES: ReadonlySet<string> = new Set([
  "appendOnly",
  "invariants",
  "checkConstraints",
  "generatedColumns",
  "changeDataFeed",
  "timestampNtz",
]);

/**
 * The variant type's features. delta-rs 1.6.6 declares them on every property change of a table-features
 * table, variant column or not; a table that declares them without a variant column is read and written
 * like any other (a variant column itself is refused when its schema converts to Arrow).
 */
const VARIANT_FEATURES: ReadonlySet<string> = new Set(["variantType", "variantType-preview"]);

function usesVariant(metadata: MetadataAction | undefined, table: string): boolean {
  if (metadata === undefined) return true;
  const schema = parseSchemaString(metadata.schemaString, `${table} schemaString`);
  return schema.fields.some((field) => primitiveTypesIn(field.type).has("variant"));
}

/** Features implied by legacy writer versions 2..6 (PROTOCOL.md "Protocol Evolution"). */
const LEGACY_WRITER_FEATURES: readonly (readonly string[])[] = [
  [],
  [],
  ["appendOnly", "invariants"],
  ["appendOnly", "invariants", "checkConstraints"],
  ["appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns"],
  ["appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns", "columnMapping"],
  [
    "appendOnly",
    "invariants",
    "checkConstraints",
    "changeDataFeed",
    "generatedColumns",
    "columnMapping",
    "identityColumns",
  ],
];

/**
 * What a write does, for the features whose support depends on it: `append` only adds files; `rearrange`
 * removes files without changing data (`dataChange: false` removes, as compaction writes: no change data to
 * write, but the removed files' deletion vectors would still have to be honoured); `rewrite` removes data
 * (a `remove` with `dataChange: true`); `metadata` neither adds nor removes.
 */
export type WriteKind = "append" | "rearrange" | "rewrite" | "metadata";

function refuse(table: string, feature: string, why: string): DeltaLiteUnsupportedTableError {
  return new DeltaLiteUnsupportedTableError(`${table}: ${why} (feature ${feature})`, { feature });
}

/** Throws `unsupported` (feature `invalidProtocol`) when the protocol action itself is not valid. */
export function checkProtocolValid(protocol: ProtocolAction, table: string): void {
  const { minReaderVersion: r, minWriterVersion: w } = protocol;
  const bad = (why: string) =>
    refuse(table, "invalidProtocol", `invalid protocol ${JSON.stringify(protocol)}: ${why}`);
  if (!Number.isInteger(r) || !Number.isInteger(w) || r < 1 || w < 1) throw bad("versions must be positive");
  if (r > 3) throw bad(`reader version ${r} is newer than this library (max 3)`);
  if (w > 7) throw bad(`writer version ${w} is newer than this library (max 7)`);
  if (r === 3 && w !== 7) throw bad("reader version 3 requires writer version 7");
  if (r === 3 && !Array.isArray(protocol.readerFeatures))
    throw bad("reader version 3 requires readerFeatures");
  if (w === 7 && !Array.isArray(protocol.writerFeatures))
    throw bad("writer version 7 requires writerFeatures");
}

/** Reader features the protocol declares (explicit at reader 3, implied by reader 2). */
export function readerFeaturesOf(protocol: ProtocolAction): string[] {
  if (protocol.minReaderVersion >= 3) return [...(protocol.readerFeatures ?? [])];
  if (protocol.minReaderVersion === 2) return ["columnMapping"];
  return [];
}

/** Writer features the protocol declares (explicit at writer 7, implied by writer 2..6). */
export function writerFeaturesOf(protocol: ProtocolAction): string[] {
  if (protocol.minWriterVersion >= 7) return [...(protocol.writerFeatures ?? [])];
  return [...(LEGACY_WRITER_FEATURES[protocol.minWriterVersion] ?? [])];
}

/** The active column mapping mode (`none` when unset). */
export function columnMappingMode(metadata: MetadataAction | undefined): string {
  return metadata?.configuration["delta.columnMapping.mode"]?.toLowerCase() ?? "none";
}

/**
 * Throws `DeltaLiteUnsupportedTableError` unless we can read the table: a valid protocol, only supported
 * reader features (deletion vectors, column mapping, type widening, variant and unknown features are
 * refused), and no active column mapping even at legacy reader version 2.
 */
export function checkReadSupport(
  protocol: ProtocolAction,
  metadata: MetadataAction | undefined,
  table: string,
): void {
  checkProtocolValid(protocol, table);
  for (const feature of readerFeaturesOf(protocol)) {
    if (
      feature === "columnMapping" &&
      protocol.minReaderVersion === 2 &&
      columnMappingMode(metadata) === "none"
    ) {
      continue;
    }
    if (VARIANT_FEATURES.has(feature) && !usesVariant(metadata, table)) continue;
    if (!SUPPORTED_READER_FEATURES.has(feature)) {
      throw refuse(table, feature, `reading tables with the table feature ${feature} is not supported`);
    }
  }
  if (columnMappingMode(metadata) !== "none") {
    throw refuse(
      table,
      "columnMapping",
      `column mapping mode ${columnMappingMode(metadata)} is not supported`,
    );
  }
}

/**
 * How a write that removes data keeps a change data feed right: `"written"` — its commit carries `cdc`
 * actions for every row it changes (upsert, a delete that rewrites files); `"derived"` — every row of every
 * file it removes is deleted and every row it adds is inserted, so readers derive the changes from the adds
 * and removes (overwrite, a delete of whole partitions), as delta-rs does.
 */
export type ChangeDataMode = "written" | "derived";

/**
 * Throws `DeltaLiteUnsupportedTableError` unless we can write to the table with a `kind` write: the read
 * gate passes, every writer feature is supported, and the features we accept only while unused are unused
 * (CHECK constraints, invariants, generated or identity columns; change data feed for writes that remove
 * data unless the writer says how it keeps the feed right, `changeData`; deletion vectors for writes that
 * are not appends).
 */
export function checkWriteSupport(
  protocol: ProtocolAction,
  metadata: MetadataAction,
  table: string,
  kind: WriteKind,
  changeData?: ChangeDataMode,
): void {
  checkReadSupport(protocol, metadata, table);
  const schema = parseSchemaString(metadata.schemaString, `${table} schemaString`);
  for (const feature of writerFeaturesOf(protocol)) {
    if (SUPPORTED_WRITER_FEATURES.has(feature)) continue;
    if (VARIANT_FEATURES.has(feature) && !usesVariant(metadata, table)) continue;
    if (feature === "deletionVectors" && kind === "append") continue;
    if (
      feature === "columnMapping" &&
      columnMappingMode(metadata) === "none" &&
      protocol.minWriterVersion < 7
    )
      continue;
    if (
      feature === "identityColumns" &&
      protocol.minWriterVersion < 7 &&
      !hasFieldMetadata(schema, "delta.identity.")
    ) {
      continue;
    }
    throw refuse(table, feature, `writing to tables with the table feature ${feature} is not supported`);
  }
  const constraint = Object.keys(metadata.configuration).find((k) => k.startsWith("delta.constraints."));
  if (constraint)
    throw refuse(table, "checkConstraints", `CHECK constraint ${constraint} is not enforced by this library`);
  if (hasFieldMetadata(schema, "delta.invariants")) {
    throw refuse(table, "invariants", "column invariants are not enforced by this library");
  }
  if (hasFieldMetadata(schema, "delta.generationExpression")) {
    throw refuse(table, "generatedColumns", "generated columns are not computed by this library");
  }
  if (hasFieldMetadata(schema, "delta.identity.")) {
    throw refuse(table, "identityColumns", "identity columns are not generated by this library");
  }
  if (kind === "rewrite" && changeData === undefined && changeDataFeedEnabled(metadata)) {
    throw refuse(table, "changeDataFeed", "change data files are not written by this library");
  }
  if (
    protocol.minWriterVersion >= 7 &&
    primitiveTypesIn(schema).has("timestamp_ntz") &&
    !writerFeaturesOf(protocol).includes("timestampNtz")
  ) {
    throw refuse(table, "timestampNtz", "a timestamp_ntz column needs the timestampNtz feature");
  }
}

/** True when `delta.enableChangeDataFeed` is set to true: writes that change rows must keep the feed. */
export function changeDataFeedEnabled(metadata: MetadataAction): boolean {
  return metadata.configuration["delta.enableChangeDataFeed"]?.toLowerCase() === "true";
}

/** True when `delta.appendOnly` is set to true (data-changing removes are then refused). */
export function isAppendOnly(metadata: MetadataAction): boolean {
  return metadata.configuration["delta.appendOnly"]?.toLowerCase() === "true";
}

function hasFieldMetadata(type: DeltaDataType, prefix: string): boolean {
  if (typeof type === "string") return false;
  if (type.type === "array") return hasFieldMetadata(type.elementType, prefix);
  if (type.type === "map")
    return hasFieldMetadata(type.keyType, prefix) || hasFieldMetadata(type.valueType, prefix);
  return type.fields.some(
    (f) => Object.keys(f.metadata).some((k) => k.startsWith(prefix)) || hasFieldMetadata(f.type, prefix),
  );
}

/**
 * The lowest protocol a new table with this schema and configuration needs: (1,2) by default; (3,7) with
 * the timestampNtz feature when a column is timestamp_ntz (as delta-rs does); writer 4 when change data
 * feed is enabled. Configuration that asks for something we cannot honour is refused.
 */
export function protocolForNewTable(
  schema: DeltaSchema,
  configuration: Readonly<Record<string, string>>,
  table: string,
): ProtocolAction {
  for (const [key, value] of Object.entries(configuration)) {
    const v = value.toLowerCase();
    if (key === "delta.enableDeletionVectors" && v === "true") {
      throw refuse(table, "deletionVectors", "creating tables with deletion vectors is not supported");
    }
    if (key === "delta.columnMapping.mode" && v !== "none") {
      throw refuse(table, "columnMapping", "creating tables with column mapping is not supported");
    }
    if (key === "delta.enableRowTracking" && v === "true") {
      throw refuse(table, "rowTracking", "creating tables with row tracking is not supported");
    }
    if (key === "delta.checkpointPolicy" && v === "v2") {
      throw refuse(table, "v2Checkpoint", "creating tables with v2 checkpoints is not supported");
    }
    if (key.startsWith("delta.constraints.")) {
      throw refuse(table, "checkConstraints", "creating tables with CHECK constraints is not supported");
    }
    if (key === "delta.minReaderVersion" || key === "delta.minWriterVersion") {
      throw new DeltaLiteError("unsupported", `${table}: setting ${key} directly is not supported`);
    }
  }
  for (const field of schema.fields) {
    if (
      Object.keys(field.metadata).some(
        (k) => k.startsWith("delta.generationExpression") || k.startsWith("delta.identity."),
      )
    ) {
      throw refuse(
        table,
        "generatedColumns",
        `column ${field.name}: generated/identity columns are not supported`,
      );
    }
  }
  if (primitiveTypesIn(schema).has("timestamp_ntz")) {
    const writerFeatures = ["timestampNtz"];
    if (configuration["delta.appendOnly"]?.toLowerCase() === "true") writerFeatures.push("appendOnly");
    if (configuration["delta.enableChangeDataFeed"]?.toLowerCase() === "true")
      writerFeatures.push("changeDataFeed");
    return { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ["timestampNtz"], writerFeatures };
  }
  if (configuration["delta.enableChangeDataFeed"]?.toLowerCase() === "true") {
    return { minReaderVersion: 1, minWriterVersion: 4 };
  }
  return { minReaderVersion: 1, minWriterVersion: 2 };
}
