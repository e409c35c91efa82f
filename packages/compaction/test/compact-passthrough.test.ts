/**
 * Compaction's passthrough (passthrough-read.ts): files whose columns are exactly the table's data schema are
 * handed to the encoder worker undecoded, the rest decoded in JS. One bin mixes both, on a table whose
 * schema grew (older files lack a column): compacted once with passthrough and once without
 * (`DELTALITE_COMPACT_PASSTHROUGH_MAX_BYTES=0`), the two results have the same files, the same Add stats, the
 * same row groups and the same content, which delta-rs reads back; so do delta-rs-written files of every
 * primitive kind, which pass through. A failure of the encoder worker while it
 * decodes a passed-through file fails the call with nothing committed and nothing of ours left behind.
 */
import { cp, readdir } from "node:fs/promises";
import { join } from "node:path";
import { writeExistingTable, writeNewTable } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { readParquetFooter } from "@deltalite/parquet-stream";
import {
  Bool,
  DateDay,
  Field,
  Float64,
  Int64,
  List,
  makeTable,
  TimestampMicrosecond,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { afterEach, describe, expect, it } from "vitest";
// The same module the sources of @deltalite/parquet-stream load (tests resolve workspace packages to src).
import { endEncoderWorker } from "../../parquet-stream/src/write/encoder-pool.js";
import { compact } from "../src/index.js";
import { openLocal, workspace } from "./oracle-tables.js";
import { buildZOrderTable } from "./z-order-tables.js";

const ws = workspace("compaction-passthrough-");
const VARIABLE = "DELTALITE_COMPACT_PASSTHROUGH_MAX_BYTES";

afterEach(() => {
  delete process.env[VARIABLE];
});

/** `rows` rows from `start`: the table's first columns, and `score` when `wide`. */
function rowsOf(start: number, rows: number, wide: boolean) {
  const ids = Array.from({ length: rows }, (_, i) => start + i);
  const columns = {
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    name: vectorFromArray(
      ids.map((i) => (i % 7 === 0 ? null : `name-${i % 50}`)),
      new Utf8(),
    ),
    flag: vectorFromArray(
      ids.map((i) => i % 3 === 0),
      new Bool(),
    ),
    day: vectorFromArray(
      ids.map((i) => new Date(Date.UTC(2026, 0, 1 + (i % 300)))),
      new DateDay(),
    ),
    at: vectorFromArray(
      ids.map((i) => Date.UTC(2026, 0, 1) + i * 1000),
      new TimestampMicrosecond("UTC"),
    ),
    tags: vectorFromArray(
      ids.map((i) => (i % 5 === 0 ? null : [`t${i % 4}`, `u${i % 9}`])),
      new List(new Field("element", new Utf8(), true)),
    ),
  };
  if (!wide) return makeTable(columns);
  return makeTable({
    ...columns,
    score: vectorFromArray(
      ids.map((i) => (i % 11 === 0 ? null : i / 8)),
      new Float64(),
    ),
  });
}

/** Three files with the old schema, then three (after a schema merge) with `score`. */
async function evolvedTable(dir: string): Promise<void> {
  const store = new LocalFileStore(dir);
  await writeNewTable(store, rowsOf(0, 3000, false), {});
  for (let n = 1; n < 3; n++)
    await writeExistingTable(await openLocal(dir), rowsOf(n * 3000, 3000, false), {});
  await writeExistingTable(await openLocal(dir), rowsOf(9000, 3000, true), { schemaMode: "merge" });
  for (let n = 4; n < 6; n++)
    await writeExistingTable(await openLocal(dir), rowsOf(n * 3000, 3000, true), {});
}

/** Each live file's Add stats (parsed) and its row groups' row counts, in a stable order. */
async function liveFiles(dir: string) {
  const snapshot = await openLocal(dir);
  const out = [];
  for (const file of snapshot.files) {
    const footer = await readParquetFooter(snapshot.store, file.path, { size: file.size });
    out.push({
      stats: file.stats,
      rowGroups: footer.row_groups.map((g) => Number(g.num_rows)),
      columns: footer.schema.map((s) => s.name),
    });
  }
  return out.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const deltaRsRows = async (uri: string) =>
  (await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri })).rows;

describe("compact: passthrough of files with the table's schema", () => {
  it("a bin mixing older-schema files (decoded in JS) and current ones (passed through) writes what the JS path writes", async () => {
    const withPass = join(ws.dir, "mixed-pass");
    const without = join(ws.dir, "mixed-js");
    await evolvedTable(withPass);
    await cp(withPass, without, { recursive: true });
    const before = await deltaRsRows(withPass);
    expect(before).toHaveLength(18_000);

    process.env[VARIABLE] = "0";
    const js = await compact(await openLocal(without));
    delete process.env[VARIABLE];
    const passed = await compact(await openLocal(withPass));

    // Newest first: the first current file is decoded (it sets the writer up), the two after it pass
    // through, the three older files (no `score`) are decoded and null-filled.
    expect(js.filesPassedThrough).toBe(0);
    expect(passed.filesPassedThrough).toBe(2);
    expect(passed.numFilesRemoved).toBe(6);
    for (const key of ["numFilesAdded", "numFilesRemoved", "numBatches", "rowsRewritten"] as const) {
      expect(passed[key], key).toBe(js[key]);
    }
    expect(await liveFiles(withPass)).toEqual(await liveFiles(without));
    expect(await deltaRsRows(withPass)).toEqual(before);
    expect(await deltaRsRows(without)).toEqual(before);
  });
});

describe("compact: passthrough of delta-rs files of every primitive kind", () => {
  it("passes them through and writes what the JS path writes; delta-rs reads the same rows", async () => {
    const table = await buildZOrderTable(ws, "kinds", { appends: 5, rows: 400, seed: 11 });
    process.env[VARIABLE] = "0";
    const js = await compact(await openLocal(table.theirs));
    delete process.env[VARIABLE];
    const before = await deltaRsRows(table.ours);
    const passed = await compact(await openLocal(table.ours));
    // int64, int32, float64, string, date32, timestamp(us, UTC), decimal(12, 2), boolean: every file after
    // the bin's first passes through.
    expect(passed.filesPassedThrough).toBe(4);
    expect(js.filesPassedThrough).toBe(0);
    expect(await liveFiles(table.ours)).toEqual(await liveFiles(table.theirs));
    expect(await deltaRsRows(table.ours)).toEqual(before);
  });
});

describe("compact: passthrough of delta-rs files with nested columns", () => {
  it("passes list and struct columns through, decodes a map column in JS, and keeps every row", async () => {
    const build = (name: string, withMap: boolean) =>
      ws.oracle.call("optimize_build_nested", { uri: join(ws.dir, name), appends: 5, rows: 300, withMap });
    for (const [name, withMap] of [
      ["nested", false],
      ["nested-map", true],
    ] as const) {
      await build(name, withMap);
      const uri = join(ws.dir, name);
      const before = await deltaRsRows(uri);
      const result = await compact(await openLocal(uri));
      // List and struct files pass through (not the bin's first: it is decoded in JS); a map column sends
      // every file to the JS path (parquet-rs would name the map's entries otherwise and refuse the batch).
      expect(result).toMatchObject({ numFilesRemoved: 5, numFilesAdded: 1 });
      if (withMap) expect(result.filesPassedThrough).toBe(0);
      else expect(result.filesPassedThrough).toBeGreaterThan(0);
      expect(await deltaRsRows(uri)).toEqual(before);
    }
  });
});

/**
 * A local store whose files are not written in place, so its writes go through an encoder worker on either
 * engine (with local targets the native engine encodes on its own threads, without a worker: a failure there
 * is parquet-stream's write-in-place.test.ts).
 */
function encodedByWorker(dir: string): LocalFileStore {
  const store = new LocalFileStore(dir);
  Object.defineProperty(store, "localTarget", { value: undefined });
  return store;
}

describe("compact: a worker failure during passthrough", () => {
  it("fails the call; nothing is committed and nothing of ours is left behind", async () => {
    const dir = join(ws.dir, "crash");
    await evolvedTable(dir);
    const before = await filesUnder(dir);
    const version = (await openLocal(dir)).version;
    let ended = false;
    let reads = 0;
    let lastBytes = 0;
    const failure = await compact(await Snapshot.open(encodedByWorker(dir)), {
      onProgress: (progress) => {
        if (progress.bytesDone > lastBytes) reads++;
        lastBytes = progress.bytesDone;
        // Once the decoded first file and one passed-through file were read, the worker dies.
        if (!ended && reads >= 2) {
          ended = true;
          void endEncoderWorker();
        }
      },
    }).catch((error: unknown) => error);
    expect(ended).toBe(true);
    expect(failure).toMatchObject({ kind: "generic" });
    expect(String((failure as Error).message)).toMatch(/encoder worker/);
    expect((await openLocal(dir)).version).toBe(version);
    expect(await filesUnder(dir)).toEqual(before);
    // The next call gets a fresh worker and compacts.
    const again = await compact(await openLocal(dir));
    expect(again.filesPassedThrough).toBe(2);
    expect(await deltaRsRows(dir)).toHaveLength(18_000);
  });
});

/** Every file under `dir`, relative. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name).slice(dir.length + 1));
  }
  return out.sort();
}
