/**
 * Delta log actions, named field for field as PROTOCOL.md names them, with a constant for every action key
 * and the newline-delimited JSON codec of commit files. Parsing checks the shape of the fields replay
 * relies on and keeps every other field as it was (unknown fields and actions survive a round trip).
 */
import { DeltaLiteError } from "@deltalite/errors";

export const PROTOCOL_KEY = "protocol";
export const METADATA_KEY = "metaData";
export const ADD_KEY = "add";
export const REMOVE_KEY = "remove";
export const TXN_KEY = "txn";
export const COMMIT_INFO_KEY = "commitInfo";
export const CDC_KEY = "cdc";
export const DOMAIN_METADATA_KEY = "domainMetadata";
export const SIDECAR_KEY = "sidecar";
export const CHECKPOINT_METADATA_KEY = "checkpointMetadata";

/** Every action key the protocol defines, in the order a checkpoint lists its columns. */
export const ACTION_KEYS = [
  TXN_KEY,
  ADD_KEY,
  REMOVE_KEY,
  METADATA_KEY,
  PROTOCOL_KEY,
  DOMAIN_METADATA_KEY,
  COMMIT_INFO_KEY,
  CDC_KEY,
  SIDECAR_KEY,
  CHECKPOINT_METADATA_KEY,
] as const;

export type ActionKey = (typeof ACTION_KEYS)[number];

/** `protocol`: the reader/writer versions and, at reader 3 / writer 7, the named table features. */
export interface ProtocolAction {
  minReaderVersion: number;
  minWriterVersion: number;
  /** Only at `minReaderVersion` 3. */
  readerFeatures?: string[];
  /** Only at `minWriterVersion` 7. */
  writerFeatures?: string[];
}

/** `metaData.format`: the data file format; always `parquet` for Delta. */
export interface FormatSpec {
  provider: string;
  options?: Record<string, string>;
}

/** `metaData`: table id, schema, partition columns and configuration. */
export interface MetadataAction {
  /** Unique table id (a UUID), stable for the life of the table. */
  id: string;
  name?: string | null;
  description?: string | null;
  format: FormatSpec;
  /** The table schema as Delta schema JSON text. */
  schemaString: string;
  partitionColumns: string[];
  createdTime?: number | null;
  configuration: Record<string, string>;
}

/** A deletion vector descriptor (PROTOCOL.md "Deletion Vector Descriptor Schema"). */
export interface DeletionVectorDescriptor {
  /** `u` (UUID-relative path), `i` (inline) or `p` (absolute path). */
  storageType: string;
  pathOrInlineDv: string;
  offset?: number;
  sizeInBytes: number;
  cardinality: number;
}

/** `add`: a logical file joins the table. `path` is a URI-encoded relative path (or an absolute URI). */
export interface AddAction {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  /** Per-file statistics as JSON text. */
  stats?: string | null;
  tags?: Record<string, string | null> | null;
  deletionVector?: DeletionVectorDescriptor | null;
  baseRowId?: number | null;
  defaultRowCommitVersion?: number | null;
  clusteringProvider?: string | null;
}

/** `remove`: a logical file leaves the table; kept as a tombstone until vacuum's retention passes. */
export interface RemoveAction {
  path: string;
  deletionTimestamp?: number | null;
  dataChange: boolean;
  extendedFileMetadata?: boolean | null;
  partitionValues?: Record<string, string | null> | null;
  size?: number | null;
  stats?: string | null;
  tags?: Record<string, string | null> | null;
  deletionVector?: DeletionVectorDescriptor | null;
  baseRowId?: number | null;
  defaultRowCommitVersion?: number | null;
}

/** `txn`: the latest version an application committed (idempotent writes). */
export interface TxnAction {
  appId: string;
  version: number;
  lastUpdated?: number | null;
}

/** `commitInfo`: free-form provenance; the fields below are the ones engines conventionally write. */
export interface CommitInfoAction {
  timestamp?: number;
  inCommitTimestamp?: number;
  operation?: string;
  operationParameters?: Record<string, unknown>;
  readVersion?: number;
  isolationLevel?: string;
  isBlindAppend?: boolean;
  operationMetrics?: Record<string, unknown>;
  engineInfo?: string;
  clientVersion?: string;
  userMetadata?: string;
  [key: string]: unknown;
}

/** `cdc`: a change-data file written by this commit. */
export interface CdcAction {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  dataChange: boolean;
  tags?: Record<string, string | null> | null;
}

/** `domainMetadata`: per-domain configuration; `removed` tombstones the domain. */
export interface DomainMetadataAction {
  domain: string;
  configuration: string;
  removed: boolean;
}

/** `sidecar` (v2 checkpoints): a file under `_delta_log/_sidecars/` holding add/remove actions. */
export interface SidecarAction {
  path: string;
  sizeInBytes: number;
  modificationTime: number;
  tags?: Record<string, string> | null;
}

/** `checkpointMetadata` (v2 checkpoints): the version the checkpoint describes. */
export interface CheckpointMetadataAction {
  version: number;
  tags?: Record<string, string> | null;
}

/** One log line: exactly one action key set. */
export type Action =
  | { protocol: ProtocolAction }
  | { metaData: MetadataAction }
  | { add: AddAction }
  | { remove: RemoveAction }
  | { txn: TxnAction }
  | { commitInfo: CommitInfoAction }
  | { cdc: CdcAction }
  | { domainMetadata: DomainMetadataAction }
  | { sidecar: SidecarAction }
  | { checkpointMetadata: CheckpointMetadataAction };

/** An action this library does not know (a future protocol action); kept verbatim, ignored by replay. */
export interface UnknownAction {
  unknown: Record<string, unknown>;
}

export type ParsedAction = Action | UnknownAction;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Serialises actions as a commit file: one JSON object per line, `\n` between lines, no trailing newline. */
export function serializeCommit(actions: readonly ParsedAction[]): Uint8Array {
  return encoder.encode(actions.map(serializeAction).join("\n"));
}

/** One action as its JSON line. */
export function serializeAction(action: ParsedAction): string {
  if ("unknown" in action && Object.keys(action).length === 1) return JSON.stringify(action.unknown);
  return JSON.stringify(action);
}

/**
 * Parses a commit file (or a JSON checkpoint / sidecar). Blank lines are skipped. Throws `corrupt_log`
 * naming `where` and the line for malformed JSON or a known action with a wrongly typed required field.
 */
export function parseCommit(bytes: Uint8Array | string, where: string): ParsedAction[] {
  const text = typeof bytes === "string" ? bytes : decoder.decode(bytes);
  const out: ParsedAction[] = [];
  let lineNo = 0;
  for (const line of text.split("\n")) {
    lineNo++;
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw corrupt(`${where} line ${lineNo} is not valid JSON`, error);
    }
    out.push(toAction(value, `${where} line ${lineNo}`));
  }
  return out;
}

/** Checks one decoded log entry and returns it as an action (unknown action keys become `UnknownAction`). */
export function toAction(value: unknown, where: string): ParsedAction {
  if (!isRecord(value)) throw corrupt(`${where}: an action must be a JSON object`);
  const keys = Object.keys(value).filter((k) => value[k] !== null && value[k] !== undefined);
  const known = keys.filter((k): k is ActionKey => (ACTION_KEYS as readonly string[]).includes(k));
  if (known.length === 0) return { unknown: value };
  if (known.length > 1) throw corrupt(`${where}: one line holds several actions (${known.join(", ")})`);
  const key = known[0]!;
  const body = value[key];
  if (!isRecord(body)) throw corrupt(`${where}: ${key} must be an object`);
  validateAction(key, body, where);
  return { [key]: body } as unknown as Action;
}

/** The key of an action (`add`, `metaData`, ...) or `unknown`. */
export function actionKey(action: ParsedAction): ActionKey | "unknown" {
  for (const key of ACTION_KEYS) if (key in action) return key;
  return "unknown";
}

function validateAction(key: ActionKey, body: Record<string, unknown>, where: string): void {
  const need = (field: string, type: "string" | "number" | "boolean" | "object" | "array") => {
    const v = body[field];
    const ok =
      type === "array"
        ? Array.isArray(v)
        : type === "object"
          ? isRecord(v)
          : type === "number"
            ? typeof v === "number" && Number.isFinite(v)
            : typeof v === type;
    if (!ok) throw corrupt(`${where}: ${key}.${field} must be a ${type}`);
  };
  switch (key) {
    case "protocol":
      need("minReaderVersion", "number");
      need("minWriterVersion", "number");
      // A checkpoint's protocol row has null feature lists for a legacy protocol: the same as absent.
      if (body.readerFeatures === null) delete body.readerFeatures;
      if (body.writerFeatures === null) delete body.writerFeatures;
      if (body.readerFeatures !== undefined) need("readerFeatures", "array");
      if (body.writerFeatures !== undefined) need("writerFeatures", "array");
      return;
    case "metaData":
      need("id", "string");
      need("schemaString", "string");
      need("partitionColumns", "array");
      if (body.configuration == null) body.configuration = {};
      need("configuration", "object");
      if (body.format == null) body.format = { provider: "parquet", options: {} };
      return;
    case "add":
      need("path", "string");
      need("size", "number");
      if (body.partitionValues == null) body.partitionValues = {};
      need("partitionValues", "object");
      if (body.modificationTime == null) body.modificationTime = 0;
      if (body.dataChange == null) body.dataChange = true;
      return;
    case "remove":
      need("path", "string");
      if (body.dataChange == null) body.dataChange = true;
      return;
    case "txn":
      need("appId", "string");
      need("version", "number");
      return;
    case "cdc":
      need("path", "string");
      return;
    case "domainMetadata":
      need("domain", "string");
      return;
    case "sidecar":
      need("path", "string");
      return;
    case "checkpointMetadata":
      need("version", "number");
      return;
    case "commitInfo":
      return;
  }
}

/**
 * The deletion-vector part of a logical file's key (PROTOCOL.md: storageType + pathOrInlineDv, plus
 * `@offset` when present); undefined when the file has no deletion vector.
 */
export function deletionVectorId(dv: DeletionVectorDescriptor | null | undefined): string | undefined {
  if (!dv) return undefined;
  return `${dv.storageType}${dv.pathOrInlineDv}${dv.offset != null ? `@${dv.offset}` : ""}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function corrupt(message: string, cause?: unknown): DeltaLiteError {
  return new DeltaLiteError("corrupt_log", message, cause === undefined ? {} : { cause });
}
