/**
 * The rig of the S3 fault suites: the tools' fault proxy in front of the run's moto server (loopback only),
 * storage options through the proxy (with a short request deadline, so stalls outlast it) and direct to
 * moto (for set-up and for judging), small partitioned tables, and the judges: which commits carry an
 * operation's `opId`, and whether every version is whole — delta-rs reads each one, and every data file a
 * version references exists on the server.
 */
import { randomBytes } from "node:crypto";
import { decodeLogPath, listLogFiles, parseCommit, Snapshot } from "@deltalite/delta-log";
import { listAll, openStore } from "@deltalite/object-store";
import { type FaultProxy, startFaultProxy } from "@deltalite/tools/fault-proxy";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { Field, Int64, Schema, Table, Utf8, vectorFromArray } from "apache-arrow";

/** The request deadline through the proxy; injected stalls last longer. */
export const REQUEST_DEADLINE_MS = 1500;
export const STALL_MS = 2500;

export interface FaultRig {
  proxy: FaultProxy;
  oracle: Oracle;
  bucket: string;
  /** Storage options that go through the proxy. */
  viaProxy: Record<string, string>;
  /** Storage options straight to moto (set-up and judging). */
  direct: Record<string, string>;
  close(): Promise<void>;
}

export async function startRig(name: string): Promise<FaultRig> {
  const s3 = testS3();
  const bucket = await s3.createBucket(`${name}-${randomBytes(4).toString("hex")}`);
  const proxy = await startFaultProxy({ target: s3.endpoint });
  const oracle = await connectOracle();
  return {
    proxy,
    oracle,
    bucket,
    viaProxy: { ...s3.storageOptions, AWS_ENDPOINT_URL: proxy.endpoint, timeout: `${REQUEST_DEADLINE_MS}ms` },
    direct: s3.storageOptions,
    async close() {
      oracle.close();
      await proxy.stop();
    },
  };
}

/** Rows `ids` with `val` = `${tag}-${id}` (or null where `nullVal` says) and part `p${id % 3}`. */
export function rowsOf(ids: readonly number[], tag: string, nullVal: (id: number) => boolean = () => false) {
  return new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    val: vectorFromArray(
      ids.map((i) => (nullVal(i) ? null : `${tag}-${i}`)),
      new Utf8(),
    ),
    part: vectorFromArray(
      ids.map((i) => `p${i % 3}`),
      new Utf8(),
    ),
  });
}

/** The schema of `rowsOf` with `val` not nullable (for the relax commit). */
export function strictSchema(): Schema {
  const fields = rowsOf([0], "x").schema.fields;
  return new Schema(fields.map((f) => (f.name === "val" ? new Field(f.name, f.type, false) : f)));
}

/** One commit of the log as the judge sees it. */
export interface LoggedCommit {
  version: number;
  operation: unknown;
  opId: unknown;
}

/** The commits of the table from `fromVersion` on (all by default), read straight from moto. */
export async function loggedCommits(
  uri: string,
  direct: Record<string, string>,
  fromVersion?: number,
): Promise<LoggedCommit[]> {
  const store = openStore(uri, { storageOptions: direct });
  const out: LoggedCommit[] = [];
  for (const file of await listLogFiles(store, fromVersion)) {
    if (file.kind !== "commit") continue;
    const info = parseCommit(await store.get(file.key), file.key).find((a) => "commitInfo" in a);
    const commitInfo = info && "commitInfo" in info ? info.commitInfo : {};
    out.push({ version: file.version, operation: commitInfo.operation, opId: commitInfo.opId });
  }
  return out;
}

export interface Wholeness {
  /** delta-rs's reading of each version: rows, or the error it met. */
  versions: { version: number; rows?: number; error?: { type: string; message: string } }[];
  /** Data files some version references that are not on the server. */
  missing: string[];
}

/**
 * Is every version from `fromVersion` on whole? delta-rs reads each one, and every data file one of them
 * references exists on the server: the live files at `fromVersion` and every file a later commit adds (a
 * file live in some version was added by a commit at or before it). After a vacuum, versions older than the
 * one it vacuumed for are not expected to be whole.
 */
export async function wholeness(rig: FaultRig, uri: string, fromVersion = 0): Promise<Wholeness> {
  const every = (await rig.oracle.call("delta_read_every_version", {
    uri,
    storage_options: rig.direct,
  })) as Wholeness["versions"];
  const versions = every.filter((v) => v.version >= fromVersion);
  const store = openStore(uri, { storageOptions: rig.direct });
  const present = new Set((await listAll(store, "")).map((m) => m.key));
  const referenced = new Map<string, number>();
  for (const file of (await Snapshot.open(store, { version: fromVersion })).files) {
    referenced.set(file.path, fromVersion);
  }
  for (const file of await listLogFiles(store, fromVersion + 1)) {
    if (file.kind !== "commit") continue;
    for (const action of parseCommit(await store.get(file.key), file.key)) {
      if ("add" in action) referenced.set(decodeLogPath(action.add.path), file.version);
    }
  }
  const missing = [...referenced].filter(([key]) => !present.has(key)).map(([key, v]) => `v${v}: ${key}`);
  return { versions, missing };
}

/** The data files (`.parquet`) under the table root on the server. */
export async function dataFilesOnServer(uri: string, direct: Record<string, string>): Promise<string[]> {
  const store = openStore(uri, { storageOptions: direct });
  return (await listAll(store, ""))
    .map((m) => m.key)
    .filter((k) => k.endsWith(".parquet"))
    .sort();
}
