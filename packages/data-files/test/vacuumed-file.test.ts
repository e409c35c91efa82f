/**
 * A data file the log names but storage lacks (vacuumed away): every read through the one live-file
 * reader — a scan, time travel to a vacuumed version, a read with a cached footer (the upsert probe's path),
 * a passed-through file about to be read in place — is `not_found` saying the file was likely removed by VACUUM and what time travel needs.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Snapshot, vacuum } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader, parquetEngineName } from "@deltalite/parquet-stream";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  localPassthroughSource,
  openLiveFile,
  readLiveFile,
  scanTable,
  writeExistingTable,
  writeNewTable,
} from "../src/index.js";

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-vacuumed-"));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const rows = (ids: number[]) =>
  new Table({
    id: vectorFromArray(ids.map(BigInt), new Int64()),
    name: vectorFromArray(
      ids.map((i) => `n${i}`),
      new Utf8(),
    ),
  });

async function drain(iterable: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of iterable) n++;
  return n;
}

function expectVacuumWording(error: unknown, file: string, version?: number) {
  expect(error).toMatchObject({ kind: "not_found" });
  const message = (error as Error).message;
  expect(message).toContain(`data file ${file}`);
  expect(message).toContain("likely removed by VACUUM");
  expect(message).toContain("time travel");
  expect(message).toContain("delta.deletedFileRetentionDuration");
  if (version !== undefined) expect(message).toContain(`at version ${version}`);
  expect((error as Error).cause).toMatchObject({ kind: "not_found" });
}

let n = 0;
async function vacuumedTable() {
  const store = new LocalFileStore(path.join(tmp, `t${n++}`));
  const v0 = await writeNewTable(store, rows([1, 2, 3]), {});
  const v0File = v0.commit!.snapshot.files[0]!.path;
  await writeExistingTable(await Snapshot.open(store), rows([4, 5]), { mode: "overwrite" });
  const vacuumed = await vacuum(await Snapshot.open(store), {
    retentionHours: 0,
    enforceRetentionDuration: false,
  });
  expect(vacuumed.files).toEqual([v0File]);
  return { store, v0File };
}

describe("a data file vacuum removed", () => {
  it("time travel to the vacuumed version says so (scan)", async () => {
    const { store, v0File } = await vacuumedTable();
    const error = await drain(scanTable(() => Snapshot.open(store, { version: 0 }))).catch((e: unknown) => e);
    expectVacuumWording(error, v0File, 0);
    expect((error as Error).message).toContain(store.root);
  });

  it("the current version still reads", async () => {
    const { store } = await vacuumedTable();
    expect(await drain(scanTable(await Snapshot.open(store)))).toBe(1);
  });

  it("a live file deleted behind the log's back is named the same way", async () => {
    const { store } = await vacuumedTable();
    const snapshot = await Snapshot.open(store);
    const live = snapshot.files[0]!;
    await store.delete(live.path);
    const error = await drain(scanTable(snapshot, { columns: ["id"] })).catch((e: unknown) => e);
    expectVacuumWording(error, live.path, snapshot.version);
  });

  it("a read with the footer already known (no open GET) fails on the first ranged read, same words", async () => {
    const store = new LocalFileStore(path.join(tmp, `footer-${n++}`));
    const { commit } = await writeNewTable(store, rows([1, 2]), {});
    const file = commit!.snapshot.files[0]!;
    const metadata = (await openParquetReader(store, file.path, { size: file.size })).metadata;
    await store.delete(file.path);
    const context = { knobs: {}, signal: undefined };
    const reader = await openLiveFile(store, file, context, metadata);
    const fields = commit!.snapshot.schema.fields;
    const error = await drain(readLiveFile(reader, file, { fields }, context)).catch((e: unknown) => e);
    expectVacuumWording(error, file.path);
  });

  it("without the footer, opening fails with the same words", async () => {
    const store = new LocalFileStore(path.join(tmp, `open-${n++}`));
    const { commit } = await writeNewTable(store, rows([1]), {});
    const file = commit!.snapshot.files[0]!;
    await store.delete(file.path);
    const error = await openLiveFile(store, file, { knobs: {}, signal: undefined, version: 0 }).catch(
      (e: unknown) => e,
    );
    expectVacuumWording(error, file.path, 0);
  });

  it.skipIf(parquetEngineName() !== "native")(
    "a file to be read in place (a passed-through file's local path) fails its HEAD with the same words",
    async () => {
      const store = new LocalFileStore(path.join(tmp, `in-place-${n++}`));
      const { commit } = await writeNewTable(store, rows([1, 2]), {});
      const file = commit!.snapshot.files[0]!;
      const context = { version: 0, signal: undefined };
      expect(await localPassthroughSource(store, file, context)).toEqual({
        path: store.localPath(file.path),
        size: file.size,
      });
      // Another length than the Add's: not read in place (the caller reads it the usual way).
      expect(await localPassthroughSource(store, { ...file, size: file.size + 1 }, context)).toBeUndefined();
      await store.delete(file.path);
      const error = await localPassthroughSource(store, file, context).catch((e: unknown) => e);
      expectVacuumWording(error, file.path, 0);
    },
  );
});
