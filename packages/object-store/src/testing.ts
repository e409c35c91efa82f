/**
 * The ObjectStore contract suite (vitest). Every store implementation runs it — memory, local and S3 against
 * a real server — so they all honour the same guarantees: round trips, ranges, sorted listings with
 * start-after, atomic `create`, `ifMatch` where declared, multipart uploads, idempotent deletes, key
 * hygiene, local paths where given, and racing writers with exactly one winner per round.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { isDeltaLiteError } from "@deltalite/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { listAll } from "./collect.js";
import type { ObjectStore } from "./types.js";

export interface ContractOptions {
  /** Part size for multipart cases (S3 needs ≥ 5 MiB). */
  partSizeBytes?: number;
  /** Rounds and writers of the racing-creators case (defaults 20 and 8). */
  raceRounds?: number;
  raceWriters?: number;
  /** Per-test timeout in ms. */
  timeoutMs?: number;
}

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array) => new TextDecoder().decode(b);

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isDeltaLiteError(error)) return error.kind;
    throw error;
  }
  return "no error";
}

async function* chunked(total: number, chunk: number, seed: number): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < total; offset += chunk) {
    const part = new Uint8Array(Math.min(chunk, total - offset));
    for (let i = 0; i < part.length; i++) part[i] = (offset + i + seed) & 0xff;
    yield part;
  }
}

function expectPattern(data: Uint8Array, total: number, seed: number): void {
  expect(data.length).toBe(total);
  for (let i = 0; i < total; i += 4099) expect(data[i]).toBe((i + seed) & 0xff);
  expect(data[total - 1]).toBe((total - 1 + seed) & 0xff);
}

/** Registers the contract suite for one store. `makeStore` is called once, before the cases run. */
export function runObjectStoreContract(
  name: string,
  makeStore: () => ObjectStore | Promise<ObjectStore>,
  options: ContractOptions = {},
): void {
  const partSize = options.partSizeBytes ?? 5 * 1024 * 1024;
  const timeout = options.timeoutMs ?? 60_000;
  describe(`ObjectStore contract: ${name}`, () => {
    let store: ObjectStore;
    let ns: string;
    beforeAll(async () => {
      store = await makeStore();
    });
    const fresh = () => {
      ns = `contract-${randomBytes(6).toString("hex")}`;
      return ns;
    };

    it("round-trips bytes, overwrites, and reports size, etag and last-modified", { timeout }, async () => {
      const key = `${fresh()}/dir/object.bin`;
      const before = Date.now();
      await store.put(key, text("hello world"));
      expect(str(await store.get(key))).toBe("hello world");
      const meta = await store.head(key);
      expect(meta.key).toBe(key);
      expect(meta.size).toBe(11);
      expect(Math.abs(meta.lastModified - before)).toBeLessThan(120_000);
      await store.put(key, text("bye"), { mode: "overwrite" });
      expect(str(await store.get(key))).toBe("bye");
      const meta2 = await store.head(key);
      expect(meta2.size).toBe(3);
      if (meta.etag !== undefined) expect(meta2.etag).not.toBe(meta.etag);
    });

    // The log's refresh probe proves "same object" by a HEAD's etag and last-modified against a listing's.
    it("head and list agree on etag and last-modified; a re-created object has a new etag", {
      timeout,
    }, async () => {
      const key = `${fresh()}/log/00.json`;
      const { etag: putEtag } = await store.put(key, text("first"), { mode: "create" });
      const head = await store.head(key);
      const [listed] = await listAll(store, `${ns}/log/`);
      expect(listed?.key).toBe(key);
      expect(head.etag).toBeTypeOf("string");
      expect(listed?.etag).toBe(head.etag);
      if (putEtag !== undefined) expect(putEtag).toBe(head.etag);
      // Listings may carry milliseconds that an HTTP date drops: they agree to the second.
      expect(Math.floor(listed!.lastModified / 1000)).toBe(Math.floor(head.lastModified / 1000));
      await store.delete(key);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.put(key, text("again"), { mode: "create" });
      expect((await store.head(key)).etag).not.toBe(head.etag);
    });

    it("answers not_found for a missing object on get, ranged get and head", { timeout }, async () => {
      const key = `${fresh()}/missing`;
      expect(await kindOf(store.get(key))).toBe("not_found");
      expect(await kindOf(store.get(key, { range: { start: 0, end: 4 } }))).toBe("not_found");
      expect(await kindOf(store.head(key))).toBe("not_found");
    });

    it("reads byte ranges: middle, the last byte, clamped past the end, and empty ranges", {
      timeout,
    }, async () => {
      const key = `${fresh()}/range.bin`;
      const data = new Uint8Array(1000).map((_, i) => i % 251);
      await store.put(key, data);
      expect([...(await store.get(key, { range: { start: 10, end: 20 } }))]).toEqual([...data.slice(10, 20)]);
      expect([...(await store.get(key, { range: { start: 999, end: 1000 } }))]).toEqual([data[999]]);
      expect([...(await store.get(key, { range: { start: 0, end: 1 } }))]).toEqual([data[0]]);
      expect((await store.get(key, { range: { start: 990, end: 5000 } })).length).toBe(10);
      expect((await store.get(key, { range: { start: 1000, end: 1000 } })).length).toBe(0);
      expect((await store.get(key, { range: { start: 5, end: 5 } })).length).toBe(0);
      expect(await kindOf(store.get(key, { range: { start: 1001, end: 1002 } }))).not.toBe("no error");
      expect(await kindOf(store.get(key, { range: { start: 5, end: 2 } }))).not.toBe("no error");
    });

    it("reads an object of several MiB whole and by ranges either side of 1 MiB", { timeout }, async () => {
      const key = `${fresh()}/large.bin`;
      const MiB = 1 << 20;
      const data = new Uint8Array(3 * MiB + 17).map((_, i) => (i * 7) % 251);
      await store.put(key, data);
      const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
      expect(same(await store.get(key), data)).toBe(true);
      for (const [start, end] of [
        [0, MiB],
        [1, MiB + 2],
        [MiB - 1, 3 * MiB],
        [2 * MiB, 4 * MiB],
      ] as const) {
        expect(same(await store.get(key, { range: { start, end } }), data.subarray(start, end))).toBe(true);
      }
    });

    it("a local path, where the store gives one, holds exactly the object's bytes", {
      timeout,
    }, async (ctx) => {
      const localPath = store.localPath?.bind(store);
      if (!localPath) return ctx.skip();
      const key = `${fresh()}/dir/local.bin`;
      const data = randomBytes(70_001);
      await store.put(key, data);
      expect(Buffer.from(readFileSync(localPath(key))).equals(data)).toBe(true);
      // Overwritten in place or replaced, the path reads what `get` reads.
      await store.put(key, text("second"));
      expect(str(readFileSync(localPath(key)))).toBe("second");
      expect(str(await store.get(key))).toBe("second");
      for (const bad of ["../escape", "/abs", "a//b", ""]) {
        expect(() => localPath(bad), bad).toThrow();
      }
    });

    it("a local target, where the store gives one, stores what was written there as put would", {
      timeout,
    }, async (ctx) => {
      const localTarget = store.localTarget?.bind(store);
      if (!localTarget) return ctx.skip();
      const key = `${fresh()}/deep/dir/written.bin`;
      const data = randomBytes(70_001);
      const target = await localTarget(key);
      expect(readFileSync(target.path).length).toBe(0); // there, empty: the writer opens it, never creates it
      writeFileSync(target.path, data, { flag: "r+" });
      await expect(store.head(key)).rejects.toMatchObject({ kind: "not_found" }); // nothing before commit
      await target.commit({ mode: "create" });
      expect(Buffer.from(await store.get(key)).equals(data)).toBe(true);
      expect(existsSync(target.path)).toBe(false);
      expect((await listAll(store, `${ns}/`)).map((m) => m.key)).toContain(key);
      // A second create of the same key is refused, its temp file removed; overwrite replaces the object.
      const again = await localTarget(key);
      writeFileSync(again.path, text("other"));
      await expect(again.commit({ mode: "create" })).rejects.toMatchObject({ kind: "already_exists" });
      expect(existsSync(again.path)).toBe(false);
      expect(Buffer.from(await store.get(key)).equals(data)).toBe(true);
      const over = await localTarget(key);
      writeFileSync(over.path, text("third"));
      await over.commit({ mode: "overwrite" });
      expect(str(await store.get(key))).toBe("third");
      // Discarded: nothing stored, nothing left.
      const droppedKey = `${fresh()}/dropped.bin`;
      const dropped = await localTarget(droppedKey);
      writeFileSync(dropped.path, text("never"));
      await dropped.discard();
      expect(existsSync(dropped.path)).toBe(false);
      // A writer that comes to it after the discard fails: nothing is left behind.
      expect(() => writeFileSync(dropped.path, text("late"), { flag: "r+" })).toThrow();
      expect(existsSync(dropped.path)).toBe(false);
      await expect(store.head(droppedKey)).rejects.toMatchObject({ kind: "not_found" });
      for (const bad of ["../escape", "/abs", "a//b", ""]) {
        await expect(localTarget(bad), bad).rejects.toThrow();
      }
    });

    it("stores and reads empty objects, whole and by an empty range", { timeout }, async () => {
      const key = `${fresh()}/empty`;
      await store.put(key, new Uint8Array(0), { mode: "create" });
      expect((await store.get(key)).length).toBe(0);
      expect((await store.get(key, { range: { start: 0, end: 0 } })).length).toBe(0);
      expect((await store.head(key)).size).toBe(0);
      expect((await listAll(store, `${ns}/`)).map((m) => m.key)).toEqual([key]);
    });

    it("lists by prefix in UTF-8 byte order, with exclusive start-after", { timeout }, async () => {
      const base = `${fresh()}/list/`;
      const names = [
        "b",
        "a.txt",
        "a/x",
        "a/y/z",
        "ab",
        "A",
        "é",
        "\u{1F600}",
        "\uFFFD",
        "a%2Fb",
        "z=1/p.parquet",
        "0",
      ];
      for (const n of [...names].reverse()) await store.put(base + n, text(n));
      await store.put(`${ns}/list-sibling`, text("outside"));
      const expected = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const listed = await listAll(store, base);
      expect(listed.map((m) => m.key.slice(base.length))).toEqual(expected);
      expect(listed.find((m) => m.key === `${base}ab`)?.size).toBe(2);
      const after = expected[4]!;
      expect(
        (await listAll(store, base, { startAfter: base + after })).map((m) => m.key.slice(base.length)),
      ).toEqual(expected.slice(5));
      expect((await listAll(store, `${base}a`)).map((m) => m.key.slice(base.length))).toEqual(
        expected.filter((n) => n.startsWith("a")),
      );
      expect(await listAll(store, `${base}nothing-here/`)).toEqual([]);
      expect(await listAll(store, base, { startAfter: `${base}\u{10FFFF}` })).toEqual([]);
    });

    it("create on an existing key fails with already_exists and leaves the object unchanged", {
      timeout,
    }, async () => {
      const key = `${fresh()}/_delta_log/00000000000000000000.json`;
      await store.put(key, text("first"), { mode: "create" });
      expect(await kindOf(store.put(key, text("second"), { mode: "create" }))).toBe("already_exists");
      expect(str(await store.get(key))).toBe("first");
    });

    it("ifMatch replaces only with the current etag, else precondition_failed", { timeout }, async () => {
      const key = `${fresh()}/cas`;
      await store.put(key, text("v1"));
      const { etag } = await store.head(key);
      if (!store.capabilities.ifMatch) {
        expect(await kindOf(store.put(key, text("v2"), { mode: { ifMatch: etag ?? "x" } }))).toBe(
          "not_implemented",
        );
        expect(str(await store.get(key))).toBe("v1");
        return;
      }
      expect(etag).toBeTypeOf("string");
      const { etag: etag2 } = await store.put(key, text("v2"), { mode: { ifMatch: etag! } });
      expect(str(await store.get(key))).toBe("v2");
      expect(await kindOf(store.put(key, text("v3"), { mode: { ifMatch: etag! } }))).toBe(
        "precondition_failed",
      );
      expect(str(await store.get(key))).toBe("v2");
      expect(
        await kindOf(store.put(`${ns}/absent`, text("x"), { mode: { ifMatch: etag2 ?? etag! } })),
      ).toMatch(/precondition_failed|not_found/);
    });

    it("data handed over (put and multipart) is stored as given, whether or not the store frees it", {
      timeout,
    }, async () => {
      const key = `${fresh()}/handed.bin`;
      const data = randomBytes(50_000);
      const expected = Buffer.from(data);
      await store.put(key, new Uint8Array(data), { handOver: true });
      expect(Buffer.from(await store.get(key)).equals(expected)).toBe(true);
      const total = partSize + 777;
      const source = randomBytes(total);
      const chunks = [0, 4096, partSize, total].slice(1).map((end, i, ends) => {
        const start = i === 0 ? 0 : (ends[i - 1] as number);
        return new Uint8Array(source.subarray(start, end)); // each in a buffer of its own
      });
      await store.putMultipart(`${ns}/handed-multi.bin`, chunks, { partSizeBytes: partSize, handOver: true });
      expect(Buffer.from(await store.get(`${ns}/handed-multi.bin`)).equals(source)).toBe(true);
    });

    it("multipart upload streams parts into one object and honours create", { timeout }, async () => {
      const key = `${fresh()}/big.bin`;
      const total = 2 * partSize + 12345;
      await store.putMultipart(key, chunked(total, 1 << 20, 7), { mode: "create", partSizeBytes: partSize });
      expectPattern(await store.get(key), total, 7);
      expect((await store.head(key)).size).toBe(total);
      const again = store.putMultipart(key, chunked(total, 1 << 20, 9), {
        mode: "create",
        partSizeBytes: partSize,
      });
      expect(await kindOf(again)).toBe("already_exists");
      expectPattern(await store.get(key), total, 7);
      await store.putMultipart(key, chunked(1000, 300, 3), { mode: "overwrite", partSizeBytes: partSize });
      expectPattern(await store.get(key), 1000, 3);
      const small = `${ns}/small.bin`;
      await store.putMultipart(small, [text("tiny")], { mode: "create", partSizeBytes: partSize });
      expect(str(await store.get(small))).toBe("tiny");
    });

    it("a multipart upload whose source fails leaves no object behind", { timeout }, async () => {
      const key = `${fresh()}/failed.bin`;
      async function* failing() {
        yield new Uint8Array(1024);
        throw new Error("source broke");
      }
      await expect(
        store.putMultipart(key, failing(), { mode: "create", partSizeBytes: partSize }),
      ).rejects.toThrow();
      expect(await kindOf(store.head(key))).toBe("not_found");
      expect(await listAll(store, `${ns}/`)).toEqual([]);
    });

    it("delete removes an object and is idempotent", { timeout }, async () => {
      const key = `${fresh()}/gone`;
      await store.put(key, text("x"));
      await store.delete(key);
      await store.delete(key);
      expect(await kindOf(store.get(key))).toBe("not_found");
    });

    it.each([["../escape"], ["/absolute"], ["a/../../b"], ["a//b"], ["./a"], [""], ["a/"], ["a\\..\\b"]])(
      "rejects the key %j with invalid_path",
      async (bad) => {
        expect(await kindOf(store.put(bad, text("x")))).toBe("invalid_path");
        expect(await kindOf(store.get(bad))).toBe("invalid_path");
        expect(await kindOf(store.delete(bad))).toBe("invalid_path");
      },
    );

    it("racing creators: exactly one winner per round", { timeout: Math.max(timeout, 120_000) }, async () => {
      const rounds = options.raceRounds ?? 20;
      const writers = options.raceWriters ?? 8;
      const base = fresh();
      for (let round = 0; round < rounds; round++) {
        const key = `${base}/_delta_log/${String(round).padStart(20, "0")}.json`;
        const results = await Promise.allSettled(
          Array.from({ length: writers }, (_, w) => store.put(key, text(`writer-${w}`), { mode: "create" })),
        );
        const winners = results.flatMap((r, w) => (r.status === "fulfilled" ? [w] : []));
        const losers = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
        expect(winners).toHaveLength(1);
        expect(losers.every((e) => isDeltaLiteError(e) && e.kind === "already_exists")).toBe(true);
        expect(str(await store.get(key))).toBe(`writer-${winners[0]}`);
      }
    });

    it("racing ifMatch increments lose no update", { timeout: Math.max(timeout, 120_000) }, async () => {
      if (!store.capabilities.ifMatch) return;
      const key = `${fresh()}/counter`;
      await store.put(key, text("0"), { mode: "create" });
      const workers = 5;
      const increments = 10;
      await Promise.all(
        Array.from({ length: workers }, async () => {
          for (let i = 0; i < increments; ) {
            const meta = await store.head(key);
            const value = Number(str(await store.get(key)));
            try {
              await store.put(key, text(String(value + 1)), { mode: { ifMatch: meta.etag! } });
              i++;
            } catch (error) {
              if (!isDeltaLiteError(error) || error.kind !== "precondition_failed") throw error;
            }
          }
        }),
      );
      expect(str(await store.get(key))).toBe(String(workers * increments));
    });
  });
}
