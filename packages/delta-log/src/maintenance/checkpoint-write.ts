/**
 * Writes a classic single-file Parquet checkpoint `_delta_log/<v>.checkpoint.parquet` and then
 * `_last_checkpoint`, from replayed table state, the way delta-rs ≥ 1.5 (delta-kernel) does: one row per
 * action — protocol, metaData, live adds, unexpired tombstones, txns, live domain metadata — with `stats` kept
 * as JSON text. A checkpoint is only ever created (mode `create`); finding one already there is success,
 * since a checkpoint of a version has one content whoever writes it.
 */
import { hasErrorKind } from "@deltalite/errors";
import type { ObjectStore } from "@deltalite/object-store";
import { writeParquetFiles } from "@deltalite/parquet-stream";
import {
  Bool,
  type DataType,
  Field,
  Int32,
  Int64,
  List,
  Map_,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import type {
  AddAction,
  DomainMetadataAction,
  MetadataAction,
  ProtocolAction,
  RemoveAction,
  TxnAction,
} from "../actions.js";
import { checkpointKey, LAST_CHECKPOINT_KEY } from "../log-path.js";
import { readLastCheckpoint } from "../log-segment.js";
import { DEFAULT_DELETED_FILE_RETENTION_MS, intervalProperty } from "./interval.js";

/** The table state a checkpoint captures (ReplayState satisfies it). */
export interface CheckpointSource {
  protocol: ProtocolAction | undefined;
  metadata: MetadataAction | undefined;
  files: ReadonlyMap<string, { add: AddAction }>;
  tombstones: ReadonlyMap<string, { remove: RemoveAction }>;
  txns: ReadonlyMap<string, TxnAction>;
  domains: ReadonlyMap<string, DomainMetadataAction>;
}

export interface CheckpointResult {
  version: number;
  key: string;
  /** Number of actions (rows) in the checkpoint. */
  size: number;
  sizeInBytes: number;
  numOfAddFiles: number;
  /** False when a checkpoint of this version already existed (written by someone else). */
  written: boolean;
}

const str = () => new Utf8();
const f = (name: string, type: DataType, nullable = true) => new Field(name, type, nullable);
const stringMap = () =>
  new Map_(
    new Field(
      "key_value",
      new Struct<{ key: Utf8; value: Utf8 }>([
        new Field("key", str(), false),
        new Field("value", str(), true),
      ]),
      false,
    ),
  );
const dvType = () =>
  new Struct([
    f("storageType", str()),
    f("pathOrInlineDv", str()),
    f("offset", new Int32()),
    f("sizeInBytes", new Int32()),
    f("cardinality", new Int64()),
  ]);

/** The checkpoint's Arrow schema: one nullable struct column per action kind (PROTOCOL.md field names). */
export function checkpointSchema(): Schema {
  return new Schema([
    f("txn", new Struct([f("appId", str()), f("version", new Int64()), f("lastUpdated", new Int64())])),
    f(
      "add",
      new Struct([
        f("path", str()),
        f("partitionValues", stringMap()),
        f("size", new Int64()),
        f("modificationTime", new Int64()),
        f("dataChange", new Bool()),
        f("stats", str()),
        f("tags", stringMap()),
        f("deletionVector", dvType()),
        f("baseRowId", new Int64()),
        f("defaultRowCommitVersion", new Int64()),
        f("clusteringProvider", str()),
      ]),
    ),
    f(
      "remove",
      new Struct([
        f("path", str()),
        f("deletionTimestamp", new Int64()),
        f("dataChange", new Bool()),
        f("extendedFileMetadata", new Bool()),
        f("partitionValues", stringMap()),
        f("size", new Int64()),
        f("tags", stringMap()),
        f("deletionVector", dvType()),
        f("baseRowId", new Int64()),
        f("defaultRowCommitVersion", new Int64()),
      ]),
    ),
    f(
      "metaData",
      new Struct([
        f("id", str()),
        f("name", str()),
        f("description", str()),
        f("format", new Struct([f("provider", str()), f("options", stringMap())])),
        f("schemaString", str()),
        f("partitionColumns", new List(f("element", str()))),
        f("configuration", stringMap()),
        f("createdTime", new Int64()),
      ]),
    ),
    f(
      "protocol",
      new Struct([
        f("minReaderVersion", new Int32()),
        f("minWriterVersion", new Int32()),
        f("readerFeatures", new List(f("element", str()))),
        f("writerFeatures", new List(f("element", str()))),
      ]),
    ),
    f(
      "domainMetadata",
      new Struct([f("domain", str()), f("configuration", str()), f("removed", new Bool())]),
    ),
  ]);
}

const big = (n: number | null | undefined) => (n === null || n === undefined ? null : BigInt(n));
const map = (r: Record<string, string | null> | null | undefined) => (r ? new Map(Object.entries(r)) : null);
const dv = (d: AddAction["deletionVector"]) =>
  d ? { ...d, offset: d.offset ?? null, cardinality: BigInt(d.cardinality) } : null;

type Row = Partial<Record<"txn" | "add" | "remove" | "metaData" | "protocol" | "domainMetadata", unknown>>;

/** The checkpoint rows for `state`, in delta-kernel's order: protocol, metaData, txns, domains, adds, removes. */
export function checkpointRows(state: CheckpointSource, nowMs: number): Row[] {
  if (!state.protocol || !state.metadata) throw new Error("a checkpoint needs protocol and metaData");
  const retentionMs = intervalProperty(
    state.metadata.configuration,
    "delta.deletedFileRetentionDuration",
    DEFAULT_DELETED_FILE_RETENTION_MS,
  );
  const p = state.protocol;
  const m = state.metadata;
  const rows: Row[] = [
    {
      protocol: {
        minReaderVersion: p.minReaderVersion,
        minWriterVersion: p.minWriterVersion,
        readerFeatures: p.readerFeatures ?? null,
        writerFeatures: p.writerFeatures ?? null,
      },
    },
    {
      metaData: {
        id: m.id,
        name: m.name ?? null,
        description: m.description ?? null,
        format: { provider: m.format.provider, options: new Map(Object.entries(m.format.options ?? {})) },
        schemaString: m.schemaString,
        partitionColumns: m.partitionColumns,
        configuration: new Map(Object.entries(m.configuration ?? {})),
        createdTime: big(m.createdTime),
      },
    },
  ];
  for (const t of state.txns.values()) {
    rows.push({ txn: { appId: t.appId, version: BigInt(t.version), lastUpdated: big(t.lastUpdated) } });
  }
  for (const d of state.domains.values()) {
    if (!d.removed)
      rows.push({ domainMetadata: { domain: d.domain, configuration: d.configuration, removed: false } });
  }
  for (const { add } of state.files.values()) {
    rows.push({
      add: {
        path: add.path,
        partitionValues: map(add.partitionValues) ?? new Map(),
        size: BigInt(add.size),
        modificationTime: BigInt(add.modificationTime),
        dataChange: add.dataChange,
        stats: add.stats ?? null,
        tags: map(add.tags),
        deletionVector: dv(add.deletionVector),
        baseRowId: big(add.baseRowId),
        defaultRowCommitVersion: big(add.defaultRowCommitVersion),
        clusteringProvider: add.clusteringProvider ?? null,
      },
    });
  }
  const cutoff = nowMs - retentionMs;
  for (const { remove } of state.tombstones.values()) {
    if ((remove.deletionTimestamp ?? 0) <= cutoff) continue;
    rows.push({
      remove: {
        path: remove.path,
        deletionTimestamp: big(remove.deletionTimestamp),
        dataChange: remove.dataChange,
        extendedFileMetadata: remove.extendedFileMetadata ?? null,
        partitionValues: map(remove.partitionValues),
        size: big(remove.size),
        tags: map(remove.tags),
        deletionVector: dv(remove.deletionVector),
        baseRowId: big(remove.baseRowId),
        defaultRowCommitVersion: big(remove.defaultRowCommitVersion),
      },
    });
  }
  return rows;
}

/** One Arrow batch of checkpoint rows (checkpoints are not a hot path; Arrow's own builders suffice). */
function toBatch(schema: Schema, rows: readonly Row[]): RecordBatch {
  const columns: Record<string, ReturnType<typeof vectorFromArray>> = {};
  for (const field of schema.fields) {
    columns[field.name] = vectorFromArray(
      rows.map((r) => (r[field.name as keyof Row] ?? null) as never),
      field.type,
    );
  }
  const table = new Table(columns);
  return new RecordBatch(schema, table.batches[0]!.data);
}

export interface WriteCheckpointOptions {
  nowMs?: number | undefined;
  /** Rows per Arrow batch handed to the Parquet writer. */
  batchRows?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Writes the checkpoint of `version` and then `_last_checkpoint`. */
export async function writeCheckpoint(
  store: ObjectStore,
  state: CheckpointSource,
  version: number,
  options: WriteCheckpointOptions = {},
): Promise<CheckpointResult> {
  const rows = checkpointRows(state, options.nowMs ?? Date.now());
  const schema = checkpointSchema();
  const key = checkpointKey(version);
  const batchRows = options.batchRows ?? 50_000;
  async function* batches() {
    for (let i = 0; i < rows.length; i += batchRows) yield toBatch(schema, rows.slice(i, i + batchRows));
  }
  const numOfAddFiles = state.files.size;
  let sizeInBytes: number;
  let written = true;
  try {
    const files = await writeParquetFiles(store, batches(), {
      schema,
      nextKey: () => key,
      targetFileSize: Number.MAX_SAFE_INTEGER,
      signal: options.signal,
    });
    sizeInBytes = files.reduce((sum, file) => sum + file.size, 0);
  } catch (error) {
    if (!hasErrorKind(error, "already_exists")) throw error;
    written = false;
    sizeInBytes = (await store.head(key, { signal: options.signal })).size;
  }
  const hint = { version, size: rows.length, sizeInBytes, numOfAddFiles };
  // Never move the hint backwards past a newer checkpoint another writer recorded.
  const current = await readLastCheckpoint(store, options.signal);
  if (current && current.version > version) return { ...hint, key, written };
  await store.put(LAST_CHECKPOINT_KEY, new TextEncoder().encode(`${JSON.stringify(hint)}\n`), {
    mode: "overwrite",
    signal: options.signal,
  });
  return { ...hint, key, written };
}
