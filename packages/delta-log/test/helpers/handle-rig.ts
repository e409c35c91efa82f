/**
 * The rig of the log-request tests: a real `DeltaLiteTable` handle over a store the test wraps (a
 * CountingStore, a degraded store), the request switches flipped for one block, the requests a call sent to
 * `_delta_log/` and to data files (failed reads included: a 404 GET is a request), and the upsert sources.
 * The handle lives in @deltalite/deltalite, which depends on this package, so it is imported by path.
 */
import type { ObjectStore } from "@deltalite/object-store";
import type { CountingStore } from "@deltalite/object-store/testing";
import { Field, Int64, Schema, Table, Utf8, vectorFromArray } from "apache-arrow";
import { DeltaLiteTable } from "../../../deltalite/src/table.js";
import { type RequestSwitchName, Snapshot } from "../../src/index.js";

export { DeltaLiteTable };

/** A handle over `store` (the table must exist), as `DeltaLiteTable.open` makes one over its own store. */
export async function openHandle(store: ObjectStore): Promise<DeltaLiteTable> {
  const snapshot = await Snapshot.open(store);
  const construct = DeltaLiteTable as unknown as new (
    uri: string,
    store: ObjectStore,
    snapshot: Snapshot,
  ) => DeltaLiteTable;
  return new construct(store.root, store, snapshot);
}

const VARIABLES: Record<RequestSwitchName, string> = {
  probeRefresh: "DELTALITE_PROBE_REFRESH",
  optimisticCommitVersion: "DELTALITE_OPTIMISTIC_COMMIT_VERSION",
  commitJsonCache: "DELTALITE_COMMIT_JSON_CACHE",
  smallFileSingleGet: "DELTALITE_SMALL_FILE_SINGLE_GET",
  adoptCommitSnapshot: "DELTALITE_ADOPT_COMMIT_SNAPSHOT",
};

/** The four switches of this work (the small-file GET is another's and stays as the environment says). */
export const LOG_SWITCHES: RequestSwitchName[] = [
  "probeRefresh",
  "optimisticCommitVersion",
  "commitJsonCache",
  "adoptCommitSnapshot",
];

/** Runs `body` with the switches in `off` turned off (each with another off word), then restores the env. */
export async function withSwitchesOff<T>(
  off: readonly RequestSwitchName[],
  body: () => Promise<T>,
): Promise<T> {
  const words = ["0", " OFF ", "false", "No"];
  const saved = off.map((name) => [VARIABLES[name], process.env[VARIABLES[name]]] as const);
  off.forEach((name, i) => {
    process.env[VARIABLES[name]] = words[i % words.length];
  });
  try {
    return await body();
  } finally {
    for (const [variable, value] of saved) {
      if (value === undefined) delete process.env[variable];
      else process.env[variable] = value;
    }
  }
}

export interface Requests {
  get: number;
  head: number;
  list: number;
  put: number;
}

/** Requests sent since the last reset, under `_delta_log/` (`log`) and elsewhere (`data`), failed ones included. */
export function requestsOf(store: CountingStore): { log: Requests; data: Requests; logKeys: string[] } {
  const inLog = (key: string) => key.startsWith("_delta_log/");
  const count = (wanted: (key: string) => boolean): Requests => {
    const sent = [...store.log, ...store.failures].filter((r) => wanted(r.key));
    const of = (method: string) => sent.filter((r) => r.method === method).length;
    return { get: of("get"), head: of("head"), list: of("list"), put: of("put") + of("putMultipart") };
  };
  const logKeys = [
    ...store.log.map((r) => `${r.method} ${r.key}`),
    ...store.failures.map((f) => `${f.method} ${f.key} (${f.kind})`),
  ].filter((line) => line.includes("_delta_log/"));
  return { log: count(inLog), data: count((key) => !inLog(key)), logKeys };
}

export const sourceSchema = new Schema([
  new Field("id", new Int64(), true),
  new Field("day", new Utf8(), true),
  new Field("v", new Int64(), true),
]);

/** Rows `ids` with `day = d<id % 3>` and `v` = `value`. */
export function rows(ids: readonly number[], value: number): Table {
  return new Table(sourceSchema, {
    id: vectorFromArray(ids.map(BigInt), new Int64()),
    day: vectorFromArray(
      ids.map((i) => `d${i % 3}`),
      new Utf8(),
    ),
    v: vectorFromArray(
      ids.map(() => BigInt(value)),
      new Int64(),
    ),
  } as never);
}

/** The same rows as delta-rs `write_deltalake` columns. */
export function columnsOf(ids: readonly number[], value: number) {
  return { id: [...ids], day: ids.map((i) => `d${i % 3}`), v: ids.map(() => value) };
}
