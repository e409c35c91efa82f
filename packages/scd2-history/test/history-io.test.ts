/**
 * What a history upsert reads and rewrites (counted with object-store's CountingStore): only the current
 * partition's files whose Add stats may hold a source key are opened, and of those only the key and order
 * columns are fetched (far fewer bytes than the file, whose payload column is large and incompressible; the reader's 64 KiB footer hint is the floor); a
 * call that keeps nothing writes and commits nothing; a file holding only re-read keys is not rewritten,
 * while the one holding a closing open row is, with its other rows copied. Also the readBatchSize knob
 * (row by row) gives the same result.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyUpsert } from "../src/index.js";
import {
  CURRENT,
  createHistoryTable,
  historyOptions,
  latest,
  microsOf,
  type SourceRow,
  sourceTable,
  type TableLayout,
} from "./history-fixtures.js";

const layout: TableLayout = { keyColumns: ["k1"], tieBreak: "none" };
const VF = microsOf("2024-01-15T00:00:00Z");
const LATER = microsOf("2024-02-15T00:00:00Z");
const payload = () => randomBytes(25_000).toString("hex");
const rows = (keys: number[], ord: number, vf = VF): SourceRow[] =>
  keys.map((k1) => ({ k1, k2: null, ord, vf, pay: payload() }));
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe("historyUpsert reads only what it needs", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deltalite-scd2-io-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Three current-partition files, keys 0–9, 10–19 and 20–29, each open at order 1. */
  async function threeFiles(): Promise<{ uri: string; files: Map<number, { path: string; size: number }> }> {
    const { uri } = await createHistoryTable(dir, layout);
    const files = new Map<number, { path: string; size: number }>();
    for (const first of [0, 10, 20]) {
      const before = new Set((await latest(uri)).files.map((f) => f.path));
      await historyUpsert(
        await latest(uri),
        sourceTable(rows(range(first, 10), 1), layout, "UTC"),
        historyOptions(layout),
      );
      const added = (await latest(uri)).files.find((f) => !before.has(f.path));
      files.set(first, { path: added!.path, size: added!.size });
    }
    return { uri, files };
  }

  function bytesFetched(store: CountingStore, path: string): number {
    return store.log.filter((r) => r.method === "get" && r.key === path).reduce((n, r) => n + r.bytes, 0);
  }

  it("a re-read source probes one file, key and order columns only, and commits nothing", async () => {
    const { uri, files } = await threeFiles();
    const store = new CountingStore(new LocalFileStore(uri));
    const snapshot = await Snapshot.open(store);
    store.reset();
    const stats = await historyUpsert(
      snapshot,
      sourceTable(rows(range(0, 5), 1), layout, "UTC"),
      historyOptions(layout),
    );
    expect(stats).toMatchObject({
      committed: false,
      version: snapshot.version,
      rowsReread: 5,
      filesProbed: 1,
      filesPrunedByStats: 2,
      filesRemoved: 0,
      filesAdded: 0,
      filesCarriedOver: 3,
    });
    const first = files.get(0)!;
    const fetched = bytesFetched(store, first.path);
    expect(fetched).toBeGreaterThan(0);
    expect(fetched).toBeLessThan(first.size / 4);
    expect(bytesFetched(store, files.get(10)!.path)).toBe(0);
    expect(bytesFetched(store, files.get(20)!.path)).toBe(0);
    expect(store.counts.put.calls).toBe(0);
  });

  for (const readBatchSize of [8192, 1]) {
    it(`rewrites only the file with a closing open row (readBatchSize ${readBatchSize})`, async () => {
      const { uri, files } = await threeFiles();
      const store = new CountingStore(new LocalFileStore(uri));
      const snapshot = await Snapshot.open(store);
      store.reset();
      // Key 3 moves on (file 0–9); key 15 is re-read (file 10–19); keys 20–29 are not in the source.
      const source = [...rows([3], 2, LATER), ...rows([15], 1)];
      const stats = await historyUpsert(snapshot, sourceTable(source, layout, "UTC"), {
        ...historyOptions(layout),
        readBatchSize,
      });
      expect(stats).toMatchObject({
        committed: true,
        rowsReread: 1,
        versionsOpened: 1,
        versionsClosed: 1,
        filesProbed: 2,
        filesPrunedByStats: 1,
        filesRemoved: 1,
        filesCarriedOver: 2,
        rowsCopied: 9,
        bytesRead: files.get(0)!.size,
      });
      // The probed-only file lost no row and was read for its key and order columns alone.
      expect(bytesFetched(store, files.get(10)!.path)).toBeLessThan(files.get(10)!.size / 4);
      expect(bytesFetched(store, files.get(20)!.path)).toBe(0);
      const after = await latest(uri);
      const live = new Set(after.files.map((f) => f.path));
      expect(live.has(files.get(0)!.path)).toBe(false);
      expect(live.has(files.get(10)!.path)).toBe(true);
      expect(after.files.filter((f) => f.partitionValues.part === "2024-02").length).toBe(1);
      expect(after.files.filter((f) => f.partitionValues.part === CURRENT).length).toBe(3);
    });
  }
});
