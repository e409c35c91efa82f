/**
 * The probe reads only the key column: on a table whose rows carry a wide payload, an upsert whose keys
 * fall inside every file's min/max but match no row (so stats rule nothing out) probes every file, rewrites
 * none, and fetches only a small fraction of the table's bytes (counted by the CountingStore over the real
 * local store). The "stats" strategy, which has no probe, rewrites every file instead. On a local store with
 * the native engine a string key is probed from each file's path (probe.ts `probedInPlace`): a file without
 * a hit is then not read through the store at all, and the upsert's counters, Add stats and rows are those of
 * the same upsert through a store that cannot be read in place.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { parquetEngineName } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Int64, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";
import { addStats, comparableCounters, copiesOf } from "./commit-compare.js";

const schema = new Schema([new Field("id", new Int64(), true), new Field("payload", new Utf8(), true)]);
const tableOf = (ids: number[]) =>
  new Table(schema, {
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    // Hard-to-compress payload: ~2 KB per row, so a file (~400 KB) is much larger than the 64 KiB footer read.
    payload: vectorFromArray(
      ids.map((i) =>
        Array.from({ length: 250 }, (_, k) => ((i * 7919 + k * 104729) % 1e8).toString(16)).join(""),
      ),
      new Utf8(),
    ),
  } as never);

describe("the probe's I/O", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-probe-io-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("probe reads the key column only; nothing is rewritten", async () => {
    const uris = [join(dir, "probe"), join(dir, "stats")];
    const data = join(dir, "data.arrow");
    // 10 appends of 200 even ids each (file f: 2·(10j + f)), so every file spans about the whole id range.
    const ordered = [...Array(10).keys()].flatMap((f) => [...Array(200).keys()].map((j) => 2 * (j * 10 + f)));
    await writeFile(data, tableToIPC(tableOf(ordered), "file"));
    await oracle.call("merge_create", { uris, data, appends: 10 });
    const source = tableOf([21, 1001, 2001, 3001, 3901]); // odd: inside every file's range, in no file

    const counting = new CountingStore(new LocalFileStore(uris[0]!));
    const snapshot = await Snapshot.open(counting);
    const tableBytes = snapshot.files.reduce((n, f) => n + f.size, 0);
    counting.reset();
    const probe = await upsert(snapshot, source, { primaryKeys: ["id"] });
    expect(probe).toMatchObject({
      filesCandidates: 10,
      filesPrunedByStats: 0,
      filesProbed: 10,
      filesRemoved: 0,
    });
    expect(probe.rowsInserted).toBe(5);
    const fetched = counting.log
      .filter((r) => r.method === "get" && r.key.endsWith(".parquet"))
      .reduce((n, r) => n + r.bytes, 0);
    expect(fetched).toBeGreaterThan(0);
    expect(fetched).toBeLessThan(tableBytes * 0.25);

    const stats = await upsert(await Snapshot.open(new LocalFileStore(uris[1]!)), source, {
      primaryKeys: ["id"],
      pruneStrategy: "stats",
    });
    expect(stats).toMatchObject({ filesProbed: 0, filesRemoved: 10, rowsCopied: 2000 });
    const a = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: uris[0] });
    const b = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: uris[1] });
    expect(a.rows).toEqual(b.rows);
  });

  it.skipIf(parquetEngineName() !== "native")(
    "a local table's string keys are probed from each file's path: a file without a hit is not read here",
    async () => {
      const base = join(dir, "string-keys");
      const data = join(dir, "string-keys.arrow");
      const ids = [...Array(10).keys()].flatMap((f) => [...Array(200).keys()].map((j) => 2 * (j * 10 + f)));
      const stringTable = (of: number[]) =>
        new Table({
          sk: vectorFromArray(
            of.map((i) => `k${String(i).padStart(6, "0")}`),
            new Utf8(),
          ),
          payload: tableOf(of).getChild("payload") as never,
        });
      await writeFile(data, tableToIPC(stringTable(ids), "file"));
      await oracle.call("merge_create", { uris: [base], data, appends: 10 });
      const [inPlace, fetched] = await copiesOf(base, ["in-place", "fetched"] as const);
      // Keys 22 and 3004 are in files 1 and 2 (of 10); the odd ones in no file.
      const source = stringTable([21, 22, 1001, 3004, 3901]);

      // In place: the store's `localPath` is passed on, and its GETs are counted.
      const local = new LocalFileStore(inPlace);
      const counting = Object.assign(new CountingStore(local), {
        localPath: (key: string) => local.localPath(key),
      });
      const snapshot = await Snapshot.open(counting);
      counting.reset();
      const a = await upsert(snapshot, source, { primaryKeys: ["sk"] });
      const b = await upsert(await Snapshot.open(new CountingStore(new LocalFileStore(fetched))), source, {
        primaryKeys: ["sk"],
      });
      expect(a).toMatchObject({ filesProbed: 10, filesRemoved: 2, rowsUpdated: 2, rowsInserted: 3 });
      expect(comparableCounters(a)).toEqual(comparableCounters(b));
      const after = new Set((await Snapshot.open(new LocalFileStore(inPlace))).files.map((f) => f.path));
      const removed = snapshot.files.map((f) => f.path).filter((path) => !after.has(path));
      const readHere = counting.log.filter((r) => r.method === "get" && r.key.endsWith(".parquet"));
      // Only the two hit files are read through the store (opened to hand their footers to the rewrite).
      expect(removed).toHaveLength(2);
      expect([...new Set(readHere.map((r) => r.key))].sort()).toEqual(removed.sort());
      expect(await addStats(inPlace, a.version)).toEqual(await addStats(fetched, b.version));
      const ra = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: inPlace });
      const rb = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: fetched });
      expect(ra.rows).toEqual(rb.rows);
    },
    60_000,
  );
});
