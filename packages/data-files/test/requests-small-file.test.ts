// The small-file single GET (DELTALITE_SMALL_FILE_SINGLE_GET), counted with the CountingStore on the local
// store and the moto S3 server. Opening and reading a data file of at most 64 KiB (by its Add size):
//
//   on:  1 whole-object GET, under one fetch admission of the file's size
//   off (today): 1 ranged GET of [0, size) — the 64 KiB footer hint is the whole file, whose chunks the reader
//        serves from it — under the same admission
//
// A file over 64 KiB is read as before either way (footer tail GET, then its column chunks). An object whose
// length is not the Add's size falls back to today's read (and its error), holding nothing.
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import type { FileView } from "@deltalite/delta-log";
import { LocalFileStore, type ObjectStore, openStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { testS3 } from "@deltalite/tools/s3-server";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CallBudgets,
  createProcessBudgets,
  type LiveFileReadContext,
  openLiveFile,
  readLiveFile,
  writeNewTable,
} from "../src/index.js";

const SWITCH = "DELTALITE_SMALL_FILE_SINGLE_GET";

let tmp: string;
let previous: string | undefined;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-small-file-"));
  previous = process.env[SWITCH];
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});
afterEach(() => {
  if (previous === undefined) delete process.env[SWITCH];
  else process.env[SWITCH] = previous;
});

const rows = (count: number, width: number) =>
  new Table({
    id: vectorFromArray(
      Array.from({ length: count }, (_, i) => BigInt(i)),
      new Int64(),
    ),
    payload: vectorFromArray(
      Array.from({ length: count }, (_, i) =>
        Array.from({ length: width }, (_, k) => ((i * 7919 + k * 104729) % 1e8).toString(16)).join(""),
      ),
      new Utf8(),
    ),
  });

let n = 0;
async function storeOn(where: "local" | "s3"): Promise<ObjectStore> {
  if (where === "local") return new LocalFileStore(path.join(tmp, `t${n++}`));
  const s3 = testS3();
  const bucket = await s3.createBucket(`small-file-${randomBytes(4).toString("hex")}`);
  return openStore(`s3://${bucket}/t`, { storageOptions: s3.storageOptions });
}

/** One table file of `count` rows, written by us. */
async function oneFile(where: "local" | "s3", count: number, width: number) {
  const store = await storeOn(where);
  const written = await writeNewTable(store, rows(count, width), {});
  const snapshot = written.commit!.snapshot;
  expect(snapshot.files).toHaveLength(1);
  return { store, file: snapshot.files[0]!, fields: snapshot.schema.fields };
}

/** Opens and reads `file` whole through a counting store and a real call admission. */
async function readCounted(store: ObjectStore, file: FileView, fields: Table["schema"]["fields"]) {
  const counting = new CountingStore(store);
  const admitted: number[] = [];
  const budgets = new CallBudgets(
    {},
    { process: createProcessBudgets({}), observer: { fetchAdmitted: (bytes) => admitted.push(bytes) } },
  );
  const context: LiveFileReadContext = { knobs: {}, admission: budgets.readAdmission(), signal: undefined };
  const reader = await openLiveFile(counting, file, context);
  const values: unknown[] = [];
  try {
    for await (const batch of readLiveFile(reader, file, { fields }, context)) {
      values.push(...batch.toArray().map((row) => row.toJSON()));
    }
  } finally {
    reader.close();
  }
  const gets = counting.log.filter((r) => r.method === "get");
  return {
    values,
    requests: {
      get: counting.counts.get.calls,
      head: counting.counts.head.calls,
      list: counting.counts.list.calls,
      put: counting.counts.put.calls,
    },
    ranges: gets.map((r) => r.range),
    admitted,
    fetchFree: budgets.fetch.snapshot().available === budgets.fetch.total,
  };
}

describe.each(["local", "s3"] as const)("data files on %s", (where) => {
  it("a small file: one whole-object GET on, one ranged GET of the whole file off (today)", async () => {
    const { store, file, fields } = await oneFile(where, 50, 4);
    expect(file.size).toBeLessThanOrEqual(64 * 1024);
    const on = await readCounted(store, file, fields);
    expect(on.requests).toEqual({ get: 1, head: 0, list: 0, put: 0 });
    expect(on.ranges).toEqual([undefined]);
    expect(on.admitted).toEqual([file.size]);
    expect(on.fetchFree).toBe(true);

    process.env[SWITCH] = "FALSE";
    const off = await readCounted(store, file, fields);
    expect(off.requests).toEqual({ get: 1, head: 0, list: 0, put: 0 });
    expect(off.ranges).toEqual([{ start: 0, end: file.size }]);
    expect(off.admitted).toEqual([file.size]);
    expect(off.values).toEqual(on.values);
    expect(on.values).toHaveLength(50);
  });

  it("a file over 64 KiB is read as before with the switch on", async () => {
    const { store, file, fields } = await oneFile(where, 200, 250);
    expect(file.size).toBeGreaterThan(64 * 1024);
    const on = await readCounted(store, file, fields);
    process.env[SWITCH] = "0";
    const off = await readCounted(store, file, fields);
    expect(on.requests).toEqual(off.requests);
    expect(on.ranges).toEqual(off.ranges);
    expect(on.ranges[0]).toEqual({ start: file.size - 64 * 1024, end: file.size });
    expect(on.values).toEqual(off.values);
  });

  it("an object of another length than its Add falls back to today's read and its error", async () => {
    const { store, file, fields } = await oneFile(where, 50, 4);
    const wrong: FileView = { ...file, path: file.path, size: file.size - 1 };
    const on = await readCounted(store, wrong, fields).catch((error: unknown) => error);
    process.env[SWITCH] = "no";
    const off = await readCounted(store, wrong, fields).catch((error: unknown) => error);
    expect(on).toMatchObject({ kind: "generic" });
    expect((on as Error).message).toBe((off as Error).message);
  });
});
