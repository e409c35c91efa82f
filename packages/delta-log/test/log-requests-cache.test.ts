// The commit-JSON cache of one operation: its bounds (256 files, 8 MiB in all, 1 MiB per file), that an entry
// answers only a read naming the same object (etag and size of the listing), and its reservations in the
// process buffered budget (data-files' real Budget, counted in KiB): taken without waiting, refused when the
// budget is busy or short, given back when the operation ends. Then, through a handle with adoption off: the
// post-commit refresh finds its own commit in the cache (seeded from the put, never read back).
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore, type ObjectMeta } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Budget } from "../../data-files/src/budgets/budget.js";
import { COMMIT_JSON_CACHE_LIMITS, CommitJsonCache, commitKey } from "../src/index.js";
import { DeltaLiteTable, openHandle, requestsOf, rows, withSwitchesOff } from "./helpers/handle-rig.js";

const KIB = 1024;
const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);
const meta = (key: string, size: number, etag: string | undefined): ObjectMeta => ({
  key,
  size,
  etag,
  lastModified: 0,
});

describe("CommitJsonCache", () => {
  it("answers only a read of the same object: etag and size as listed", () => {
    const cache = new CommitJsonCache();
    const key = commitKey(3);
    cache.put(key, bytes(10), '"e1"');
    expect(cache.get(key, meta(key, 10, '"e1"'))).toEqual(bytes(10));
    expect(cache.get(key, meta(key, 10, '"e2"'))).toBeUndefined();
    expect(cache.get(key, meta(key, 11, '"e1"'))).toBeUndefined();
    expect(cache.get(key, meta(key, 10, undefined))).toBeUndefined();
    expect(cache.get(key, undefined)).toBeUndefined();
    // Bytes of unknown etag are never kept (nothing could prove a later read names them).
    cache.put(commitKey(4), bytes(10), undefined);
    expect(cache.stats).toEqual({ hits: 1, stored: 1, bytes: 10 });
  });

  it("keeps at most 1 MiB per file, 8 MiB in all and 256 files", () => {
    const limits = COMMIT_JSON_CACHE_LIMITS;
    expect(limits).toEqual({ files: 256, totalBytes: 8 * 1024 * KIB, fileBytes: 1024 * KIB });
    const cache = new CommitJsonCache();
    cache.put("big", bytes(limits.fileBytes + 1), '"b"');
    expect(cache.stats.stored).toBe(0);
    for (let i = 0; i < 8; i++) cache.put(`mib${i}`, bytes(limits.fileBytes), `"m${i}"`);
    expect(cache.stats).toMatchObject({ stored: 8, bytes: limits.totalBytes });
    cache.put("one-more", bytes(1), '"x"');
    expect(cache.stats.stored).toBe(8);
    const small = new CommitJsonCache();
    for (let i = 0; i < 300; i++) small.put(`k${i}`, bytes(1), `"s${i}"`);
    expect(small.stats.stored).toBe(256);
    expect(small.get("k255", meta("k255", 1, '"s255"'))).toBeDefined();
    expect(small.get("k256", meta("k256", 1, '"s256"'))).toBeUndefined();
  });

  it("reserves from the process buffered budget without waiting and gives it back on clear", async () => {
    const budget = new Budget("bufferKb", 4);
    const cache = new CommitJsonCache(budget);
    cache.put("a", bytes(2 * KIB), '"a"');
    cache.put("b", bytes(KIB + 1), '"b"'); // 2 KiB, rounded up
    expect(budget.snapshot().available).toBe(0);
    cache.put("c", bytes(1), '"c"'); // the budget is short: not kept
    expect(cache.stats.stored).toBe(2);
    cache.clear();
    await Promise.resolve();
    await Promise.resolve();
    expect(budget.snapshot().available).toBe(4);
    expect(cache.stats).toMatchObject({ stored: 0, bytes: 0 });
  });

  it("does not jump the budget's queue: with a waiter, nothing is kept", async () => {
    const budget = new Budget("bufferKb", 2);
    const held = await budget.acquire(2);
    const waiting = budget.acquire(1);
    held.release();
    const permit = await waiting; // the waiter now holds 1 of 2
    const queued = budget.acquire(2); // waits: 1 free, a waiter queued
    const cache = new CommitJsonCache(budget);
    cache.put("a", bytes(1), '"a"');
    expect(cache.stats.stored).toBe(0);
    permit.release();
    (await queued).release();
  });
});

describe("the commit-JSON cache through a handle", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-commit-cache-"));
  });
  afterAll(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it("with adoption off, the post-commit refresh LISTs but does not read the handle's own commit back", async () => {
    const uri = path.join(tmp, "t");
    await DeltaLiteTable.write(uri, rows([1, 2, 3], 0), { partitionBy: ["day"] });
    const store = new CountingStore(new LocalFileStore(uri));
    const table = await openHandle(store);
    for (const off of [["adoptCommitSnapshot"], ["adoptCommitSnapshot", "commitJsonCache"]] as const) {
      store.reset();
      await withSwitchesOff(off, () => table.upsert(rows([2], 5), { primaryKeys: ["id"] }));
      const ownCommit = commitKey(table.version);
      const readBack = store.log.filter((r) => r.method === "get" && r.key === ownCommit).length;
      expect(readBack, off.join(",")).toBe(off.length === 1 ? 0 : 1);
      expect(requestsOf(store).log.list).toBe(1);
    }
  });
});
