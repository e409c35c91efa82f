/**
 * The probe cache inside the upsert: a probe that reads a file without a hit caches its key hashes, a landed
 * commit caches the files it wrote and drops the files it removed; a second upsert on unchanged files
 * probes none of them (all decided from the cache) and the content still equals the cache-less run as
 * delta-rs reads it. A hash that collides (every key hashes to 0, or to 4 bits) may only add files to the
 * rewrite, never skip one that holds a key. Caps: an entry above an eighth of the cap is not cached (that
 * file is probed every time) and the cache never holds more than its cap.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { ProbeCache } from "@deltalite/probe-cache";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultKeyHasher, type UpsertOptions, upsert } from "../src/index.js";
import { upsertWithHooks } from "../src/internal.js";
import { type BudgetTable, createTables, rowsTable } from "./budget-tables.js";
import { truncated, zeroHasher } from "./colliding-hashers.js";

describe("the probe cache in the upsert", () => {
  let oracle: Oracle;
  let dir: string;
  let table: BudgetTable;
  const uri = (name: string) => join(dir, name);
  const names = ["a", "b", "off", "zero", "bits", "exact", "capped"];

  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-probe-cache-"));
    // 3 days × 8 appends = 24 files of 100 rows; random keys: stats prune nothing.
    table = await createTables(oracle, dir, names.map(uri), { rows: 2400, days: 3, appends: 8 });
    expect(table.files).toBe(24);
  }, 120_000);
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const read = async (name: string) =>
    (await oracle.call<{ rows: unknown[] }>("merge_read", { uri: uri(name) })).rows;
  const base: UpsertOptions = { primaryKeys: ["id"], partitionKey: "day" };
  const open = (name: string) => Snapshot.open(new LocalFileStore(uri(name)));
  /** New keys only (inserts into every day) and a batch updating 3 keys of known rows. */
  const inserts = (from: number) =>
    rowsTable(
      [...Array(30).keys()].map((i) => from + i),
      table.days,
      1,
    );
  const updates = rowsTable([5, 1000, 2001], 3, 2);

  it("a second upsert on unchanged files probes 0 of them; the landed commit's files are cached too", async () => {
    const cache = new ProbeCache(64 * 1024 * 1024);
    const first = await upsert(await open("a"), inserts(10_000), { ...base, probeCache: cache });
    expect(first).toMatchObject({
      filesCandidates: 24,
      filesPrunedByStats: 0,
      filesProbed: 24,
      filesProbeCached: 0,
    });
    expect(first.filesRemoved).toBe(0);
    // 24 probed files + the 3 files the commit wrote (one per day).
    expect(cache.stats().entries).toBe(24 + first.filesAdded);

    const second = await upsert(await open("a"), inserts(20_000), { ...base, probeCache: cache });
    expect(second).toMatchObject({
      filesCandidates: 24 + first.filesAdded,
      filesProbed: 0,
      filesProbeCached: 24 + first.filesAdded,
      filesRemoved: 0,
    });

    // Updates: the cache answers "maybe" for exactly the files holding the keys; they are rewritten and leave it.
    const third = await upsert(await open("a"), updates, { ...base, probeCache: cache });
    expect(third.filesProbed).toBe(0);
    expect(third.filesRemoved).toBe(3);
    expect(third.rowsUpdated).toBe(3);
    const live = new Set((await open("a")).files.map((f) => f.path));
    for (const [, path] of cache.keys()) expect(live.has(path)).toBe(true);
    expect(cache.stats().entries).toBe(live.size);

    // The same three upserts without a cache: the same table, as delta-rs reads it.
    const off = new ProbeCache(0);
    for (const source of [inserts(10_000), inserts(20_000), updates]) {
      const stats = await upsert(await open("off"), source, { ...base, probeCache: off });
      expect(stats.filesProbeCached).toBe(0);
    }
    expect(await read("a")).toEqual(await read("off"));
  }, 120_000);

  it.each([
    ["zero", zeroHasher],
    ["bits", truncated(4)],
  ])(
    "a colliding hash (%s) only adds files to the rewrite, never skips one holding a key",
    async (name, hasher) => {
      const exactCache = new ProbeCache(64 * 1024 * 1024);
      const cache = new ProbeCache(64 * 1024 * 1024);
      const tableName = name === "zero" ? "zero" : "bits";
      for (const [t, c, h] of [
        ["exact", exactCache, defaultKeyHasher],
        [tableName, cache, hasher],
      ] as const) {
        // Fill the cache (no hits: inserts), then update known keys from the cache alone.
        await upsertWithHooks(await open(t), inserts(10_000), { ...base, probeCache: c }, { keyHasher: h });
      }
      const exact = await upsert(await open("exact"), updates, { ...base, probeCache: exactCache });
      const colliding = await upsertWithHooks(
        await open(tableName),
        updates,
        { ...base, probeCache: cache },
        { keyHasher: hasher },
      );
      expect(colliding.filesProbed).toBe(0);
      expect(colliding.rowsUpdated).toBe(3);
      expect(colliding.filesRemoved).toBeGreaterThanOrEqual(exact.filesRemoved);
      // Every hash is 0: the cache says "maybe" for every file the stats leave.
      if (name === "zero") {
        expect(colliding.filesProbeCached).toBe(colliding.filesCandidates - colliding.filesPrunedByStats);
        expect(colliding.filesRemoved).toBe(colliding.filesProbeCached);
      }
      expect(await read(tableName)).toEqual(await read("exact"));
    },
    120_000,
  );

  it("caps: an entry above 1/8 of the cap is not cached (probed every time); the cache stays within its cap", async () => {
    // A 100-row file's entry is 800 bytes of hashes + overhead; a cap of 8 KiB allows 1 KiB per entry.
    const roomy = new ProbeCache(8 * 1024);
    await upsert(await open("capped"), inserts(10_000), { ...base, probeCache: roomy });
    expect(roomy.stats().size).toBeLessThanOrEqual(8 * 1024);
    expect(roomy.stats().entries).toBeGreaterThan(0);
    expect(roomy.stats().entries).toBeLessThan(24); // evicted down to the cap
    const tight = new ProbeCache(4 * 1024); // 512 bytes per entry: no file fits
    const first = await upsert(await open("capped"), inserts(20_000), { ...base, probeCache: tight });
    const second = await upsert(await open("capped"), inserts(30_000), { ...base, probeCache: tight });
    expect(tight.stats().entries).toBe(0);
    expect(first.filesProbeCached).toBe(0);
    expect(second.filesProbeCached).toBe(0);
    expect(second.filesProbed).toBe(second.filesCandidates);
    expect(tight.stats().inFlightBytes).toBe(0);
  }, 120_000);
});
