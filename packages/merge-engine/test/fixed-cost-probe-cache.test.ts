/**
 * The warm probe of many cached files by a large source (the fixed cost BENCHMARKS.md "Small upserts: fixed
 * cost per call" cut): a source of thousands of keys is built once per partition into ProbeKeys and asked of
 * every cached file — by a filter scan of the file's hashes when the source is large, by a search per source
 * key when it is small. Both ways must decide exactly the files a cache-less probe decides (it reads every
 * file), so the tables end equal as delta-rs reads them; a colliding hash (4 bits: every filter slot and
 * hash shared) may only add files to the rewrite.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { ProbeCache } from "@deltalite/probe-cache";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type UpsertOptions, upsert } from "../src/index.js";
import { upsertWithHooks } from "../src/internal.js";
import { type BudgetTable, createTables, rowsTable } from "./budget-tables.js";
import { truncated } from "./colliding-hashers.js";

describe("a warm probe of many cached files by a large source", () => {
  let oracle: Oracle;
  let dir: string;
  let table: BudgetTable;
  const uri = (name: string) => join(dir, name);

  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-fixed-cost-probe-"));
    // One partition, 30 appends of 200 rows: 30 candidate files; random keys, so stats prune nothing.
    table = await createTables(oracle, dir, ["cached", "uncached", "colliding", "reference"].map(uri), {
      rows: 6000,
      days: 1,
      appends: 30,
    });
    expect(table.files).toBe(30);
  }, 120_000);
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const base: UpsertOptions = { primaryKeys: ["id"], partitionKey: "day" };
  const open = (name: string) => Snapshot.open(new LocalFileStore(uri(name)));
  const read = async (name: string) =>
    (await oracle.call<{ rows: unknown[] }>("merge_read", { uri: uri(name) })).rows;
  const fresh = (from: number, count: number) => [...Array(count).keys()].map((i) => from + i);
  // Call 1 fills the cache (inserts only); call 2: 3,000 inserts and 4 updates (a source 15× a file: the
  // filter scan); call 3: 3 updates (a source far smaller than a file: a search per source key).
  const batches = [
    rowsTable(fresh(100_000, 3000), 1, 1),
    rowsTable([...fresh(200_000, 3000), 7, 1500, 3001, 5999], 1, 2),
    rowsTable([8, 2222, 4444], 1, 3),
  ];

  it("decides from the cache alone exactly the files a cache-less probe rewrites; the tables stay equal", async () => {
    const cache = new ProbeCache(64 * 1024 * 1024);
    const off = new ProbeCache(0);
    const warm = [];
    const exact = [];
    for (const batch of batches) {
      warm.push(await upsert(await open("cached"), batch, { ...base, probeCache: cache }));
      exact.push(await upsert(await open("uncached"), batch, { ...base, probeCache: off }));
    }
    expect(warm[0]).toMatchObject({ filesProbed: 30, filesProbeCached: 0, filesRemoved: 0 });
    for (const k of [1, 2]) {
      const stats = warm[k];
      expect(stats?.filesProbed).toBe(0);
      expect(stats?.filesProbeCached).toBe(stats?.filesCandidates);
      expect(stats?.filesRemoved).toBe(exact[k]?.filesRemoved);
      expect(stats?.rowsUpdated).toBe(exact[k]?.rowsUpdated);
    }
    // At least the named keys are updated (keyOf may also give a "fresh" number an existing key), each in
    // one file: at least one file, never more files than updated rows.
    expect(warm[1]?.rowsUpdated).toBeGreaterThanOrEqual(4);
    expect(warm[2]?.rowsUpdated).toBeGreaterThanOrEqual(3);
    for (const k of [1, 2]) {
      expect(warm[k]?.filesRemoved).toBeGreaterThanOrEqual(1);
      expect(warm[k]?.filesRemoved).toBeLessThanOrEqual(warm[k]?.rowsUpdated ?? 0);
    }
    expect(await read("cached")).toEqual(await read("uncached"));
  }, 180_000);

  it("a colliding hash (4 bits) only adds files to the rewrite; the content is the same", async () => {
    const cache = new ProbeCache(64 * 1024 * 1024);
    const stats = [];
    for (const batch of batches) {
      await upsert(await open("reference"), batch, { ...base, probeCache: new ProbeCache(0) });
      stats.push(
        await upsertWithHooks(
          await open("colliding"),
          batch,
          { ...base, probeCache: cache },
          {
            keyHasher: truncated(4),
          },
        ),
      );
    }
    expect(stats[2]?.filesProbed).toBe(0);
    expect(stats[2]?.rowsUpdated).toBe(3);
    expect(await read("colliding")).toEqual(await read("reference"));
  }, 180_000);
});
