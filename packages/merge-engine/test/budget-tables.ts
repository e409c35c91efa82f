/**
 * Test tables for the budget, timeout and probe-cache suites: a table delta-rs writes (partitioned by `day`,
 * several files per partition, random UUID-shaped string keys so Add stats prune nothing, a ~200-byte
 * payload per row), copies of it, a source batch that updates keys spread over every file and inserts new
 * ones, a live-byte meter that sees fetched bytes arrive at the store and leave through the upsert's
 * budget observer, and small process budgets with a check that every permit came back.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type BudgetObserver,
  createProcessBudgets,
  limitsSnapshot,
  type ProcessBudgets,
} from "@deltalite/data-files";
import type {
  GetOptions,
  ListOptions,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutOptions,
  PutResult,
  SignalOptions,
} from "@deltalite/object-store";
import type { Oracle } from "@deltalite/tools/oracle";
import { Field, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { expect } from "vitest";

export const schema = new Schema([
  new Field("id", new Utf8(), true),
  new Field("day", new Utf8(), true),
  new Field("payload", new Utf8(), true),
]);

/** A deterministic UUID-shaped key. */
export function keyOf(n: number): string {
  let h = (n + 1) * 2654435761;
  const hex: string[] = [];
  for (let i = 0; i < 32; i++) {
    h = (h ^ (h >>> 13)) * 1274126177;
    hex.push(((h >>> 7) & 15).toString(16));
  }
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export const dayOf = (n: number, days: number) => `2026-11-${String(1 + (n % days)).padStart(2, "0")}`;

function payloadOf(n: number, version: number): string {
  return Array.from({ length: 25 }, (_, k) =>
    ((n * 7919 + k * 104729 + version * 31) % 1e8).toString(16).padStart(8, "0"),
  ).join("");
}

export function rowsTable(ns: readonly number[], days: number, version: number): Table {
  return new Table(schema, {
    id: vectorFromArray(ns.map(keyOf), new Utf8()),
    day: vectorFromArray(
      ns.map((n) => dayOf(n, days)),
      new Utf8(),
    ),
    payload: vectorFromArray(
      ns.map((n) => payloadOf(n, version)),
      new Utf8(),
    ),
  } as never);
}

export interface BudgetTable {
  rows: number;
  days: number;
  files: number;
}

/** Writes the table (delta-rs, `appends` appends → one file per append and day) to every uri. */
export async function createTables(
  oracle: Oracle,
  dir: string,
  uris: readonly string[],
  options: { rows: number; days: number; appends: number },
): Promise<BudgetTable> {
  const data = join(dir, `data-${options.rows}-${options.days}-${options.appends}.arrow`);
  const ns = [...Array(options.rows).keys()];
  await writeFile(data, tableToIPC(rowsTable(ns, options.days, 0), "file"));
  const created = await oracle.call<{ numFiles: number }>("merge_create", {
    uris,
    data,
    appends: options.appends,
    partition_by: ["day"],
  });
  return { rows: options.rows, days: options.days, files: created.numFiles };
}

/** Updates every `stride`-th existing row (spread over all files and days) and inserts `inserts` new keys. */
export function sourceBatch(table: BudgetTable, stride: number, inserts: number, version = 1): Table {
  const updates = [...Array(Math.floor(table.rows / stride)).keys()].map((i) => i * stride);
  const fresh = [...Array(inserts).keys()].map((i) => table.rows + i);
  return rowsTable([...updates, ...fresh], table.days, version);
}

/**
 * Live bytes as the store and the upsert see them: fetched data-file bytes count from the moment a GET
 * returns them until the upsert reports their admission released; decoded batches from the moment the
 * upsert holds them until it drops them. Peaks are kept.
 */
export class LiveBytes implements BudgetObserver {
  fetched = 0;
  peakFetched = 0;
  arrivedTotal = 0;
  admittedTotal = 0;
  /** Bytes admitted again for a file handed from the probe to the rewrite without a GET. */
  handedOverTotal = 0;
  largestFetchAdmission = 0;
  decoded = 0;
  peakDecoded = 0;
  largestBatch = 0;

  arrived(bytes: number): void {
    this.arrivedTotal += bytes;
    this.fetched += bytes;
    this.peakFetched = Math.max(this.peakFetched, this.fetched);
  }
  fetchHandedOver(bytes: number): void {
    // Held again under the rewrite's admission: live as if they had just arrived.
    this.handedOverTotal += bytes;
    this.fetched += bytes;
    this.peakFetched = Math.max(this.peakFetched, this.fetched);
  }
  fetchAdmitted(bytes: number): void {
    this.admittedTotal += bytes;
    this.largestFetchAdmission = Math.max(this.largestFetchAdmission, bytes);
  }
  fetchReleased(bytes: number): void {
    this.fetched -= bytes;
  }
  batchHeld(bytes: number): void {
    this.decoded += bytes;
    this.largestBatch = Math.max(this.largestBatch, bytes);
    this.peakDecoded = Math.max(this.peakDecoded, this.decoded);
  }
  batchDropped(bytes: number): void {
    this.decoded -= bytes;
  }
}

/** Passes every call through and tells `meter` the bytes each data-file GET returned. */
export class MeteredStore implements ObjectStore {
  readonly root: string;
  /**
   * `arrivalDelayMs`: how long a data-file GET's bytes, already counted as arrived, wait before the caller
   * gets them — as a busy event loop or a slow network delivers them. Several fetches then overlap, which
   * is what a byte budget has to bound (a local disk answers too fast for that to happen by itself).
   */
  constructor(
    private readonly inner: ObjectStore,
    private readonly meter: LiveBytes,
    private readonly arrivalDelayMs = 0,
  ) {
    this.root = inner.root;
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const bytes = await this.inner.get(key, options);
    if (key.endsWith(".parquet") && !key.startsWith("_delta_log/")) {
      this.meter.arrived(bytes.byteLength);
      if (this.arrivalDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.arrivalDelayMs));
    }
    return bytes;
  }
  head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    return this.inner.head(key, options);
  }
  async put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    await this.#slowWrite(key);
    return this.inner.put(key, data, options);
  }
  putMultipart(
    key: string,
    data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    const slowWrite = (k: string) => this.#slowWrite(k);
    async function* slowed() {
      for await (const part of data) {
        await slowWrite(key);
        yield part;
      }
    }
    return this.inner.putMultipart(key, this.arrivalDelayMs > 0 ? slowed() : data, options);
  }
  /** Data-file writes take `arrivalDelayMs` per part too (an upload), so the writer pushes back. */
  async #slowWrite(key: string): Promise<void> {
    if (this.arrivalDelayMs > 0 && key.endsWith(".parquet") && !key.startsWith("_delta_log/")) {
      await new Promise((resolve) => setTimeout(resolve, this.arrivalDelayMs));
    }
  }
  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta> {
    return this.inner.list(prefix, options);
  }
  delete(key: string, options?: SignalOptions): Promise<void> {
    return this.inner.delete(key, options);
  }
}

/** Process budgets from the seed-named variables (not this process's own environment). */
export function processBudgets(
  partitions: number,
  files: number,
  bufferedBytes: number,
  fetchBytes: number,
): ProcessBudgets {
  return createProcessBudgets({
    DELTALITE_PROCESS_MAX_PARALLEL_PARTITIONS: String(partitions),
    DELTALITE_PROCESS_MAX_PARALLEL_FILES: String(files),
    DELTALITE_PROCESS_MAX_BUFFERED_BYTES: String(bufferedBytes),
    DELTALITE_PROCESS_MAX_FETCH_BYTES: String(fetchBytes),
  });
}

/** Every permit of every budget is back and nobody waits. */
export function expectAllReturned(budgets: ProcessBudgets): void {
  for (const budget of Object.values(limitsSnapshot(budgets))) {
    expect(budget).toEqual({ available: budget.total, total: budget.total, waiters: 0 });
  }
}
