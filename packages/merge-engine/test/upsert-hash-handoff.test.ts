/**
 * The key-hash handoff (src/upsert/hash-handoff.ts): a hit file's keys are hashed once per upsert call —
 * by the probe, whose hashes the rewrite reuses — and the result still equals delta-rs MERGE. A counting
 * hasher (the upsert's test hook) records how often each key's bytes were hashed. Without a probe
 * ("stats" strategy) the rewrite hashes them itself, once. A file whose probe stopped at an early row group
 * has its later rows hashed by the rewrite. The handoff's cap refuses offers beyond it (the rewrite then
 * hashes), and a batch is used only when all of its rows were handed over.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileView } from "@deltalite/delta-log";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { ProbeCache } from "@deltalite/probe-cache";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Int64, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultKeyHasher, type KeyHasher, upsert } from "../src/index.js";
import { upsertWithHooks } from "../src/internal.js";
import { HashHandoff, handedRows } from "../src/upsert/hash-handoff.js";

const schema = new Schema([new Field("id", new Utf8(), true), new Field("v", new Int64(), true)]);
/** A UUID-shaped 36-byte key for row i. */
const keyOf = (i: number) => {
  const hex = (i * 2654435761 + 12345).toString(16).padStart(32, "0").slice(-32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
const tableOf = (ids: number[], v: number) =>
  new Table(schema, {
    id: vectorFromArray(ids.map(keyOf), new Utf8()),
    v: vectorFromArray(
      ids.map((i) => BigInt(i * 10 + v)),
      new Int64(),
    ),
  } as never);

/** The default hasher, counting how many times each key (as its bytes) was hashed. */
function countingHasher(): { hasher: KeyHasher; times: Map<string, number> } {
  const times = new Map<string, number>();
  const note = (bytes: Uint8Array) => {
    const key = Buffer.from(bytes).toString("latin1");
    times.set(key, (times.get(key) ?? 0) + 1);
  };
  return {
    times,
    hasher: {
      id: defaultKeyHasher.id,
      words8: defaultKeyHasher.words8,
      fixed: defaultKeyHasher.fixed,
      ranges: (bytes, offsets, count, out) => {
        for (let i = 0; i < count; i++) note(bytes.subarray(offsets[i] as number, offsets[i + 1] as number));
        defaultKeyHasher.ranges(bytes, offsets, count, out);
      },
    },
  };
}

const file = (path: string): FileView => ({ path }) as FileView;

describe("the key-hash handoff from the probe to the rewrite", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-hash-handoff-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("hashes each key of a hit file once per call (probe or rewrite), results equal to delta-rs MERGE", async () => {
    const uris = ["probe", "stats", "merge"].map((n) => join(dir, n));
    const data = join(dir, "data.arrow");
    await writeFile(data, tableToIPC(tableOf([...Array(2000).keys()], 0), "file"));
    await oracle.call("merge_create", { uris, data, appends: 10 }); // 10 files of 200 rows
    // One key in each of files 1, 4, 7 and 9 (rows 200f + 17), and two new keys.
    const changed = [217, 817, 1417, 1817];
    const source = tableOf([...changed, 5000, 5001], 1);
    const sourceKeys = new Set([...changed, 5000, 5001].map((i) => Buffer.from(keyOf(i)).toString("latin1")));
    const sourcePath = join(dir, "source.arrow");
    await writeFile(sourcePath, tableToIPC(source, "file"));

    for (const strategy of ["probe", "stats"] as const) {
      const uri = strategy === "probe" ? (uris[0] as string) : (uris[1] as string);
      const { hasher, times } = countingHasher();
      const stats = await upsertWithHooks(
        await Snapshot.open(new LocalFileStore(uri)),
        source,
        { primaryKeys: ["id"], pruneStrategy: strategy },
        { keyHasher: hasher },
      );
      expect(stats).toMatchObject({ rowsUpdated: 4, rowsInserted: 2 });
      if (strategy === "probe") expect(stats.filesRemoved).toBe(4);
      else expect(stats.filesRemoved).toBeGreaterThanOrEqual(4);
      // Every target key that is not a source key was hashed exactly once (2000 - 4 of them).
      const targetCounts = [...times].filter(([key]) => !sourceKeys.has(key)).map(([, n]) => n);
      expect(targetCounts.length).toBe(2000 - 4);
      expect(new Set(targetCounts)).toEqual(new Set([1]));
    }
    await oracle.call("merge_delta_rs", { uri: uris[2], source: sourcePath, keys: ["id"] });
    const [a, b, c] = await Promise.all(
      uris.map((uri) => oracle.call<{ rows: unknown[] }>("merge_read", { uri })),
    );
    expect(a?.rows).toEqual(c?.rows);
    expect(b?.rows).toEqual(c?.rows);
  });

  it("a probe that stopped at an early row group hands those rows; the rewrite hashes the rest", async () => {
    const uris = ["early", "early-merge"].map((n) => join(dir, n));
    const data = join(dir, "early.arrow");
    await writeFile(data, tableToIPC(tableOf([0], 0), "file"));
    await oracle.call("merge_create", { uris, data });
    // Our own upsert writes 400 rows as one file of 8 row groups of 50 rows, in source order.
    const all = [...Array(400).keys()];
    for (const uri of uris) {
      await upsert(await Snapshot.open(new LocalFileStore(uri)), tableOf(all, 0), {
        primaryKeys: ["id"],
        maxRowGroupRows: 50,
      });
    }
    const { hasher, times } = countingHasher();
    const source = tableOf([120], 2); // in the third row group
    const stats = await upsertWithHooks(
      await Snapshot.open(new LocalFileStore(uris[0] as string)),
      source,
      // No probe cache: the file was just written, and a cache entry would answer for it without a probe.
      { primaryKeys: ["id"], readBatchSize: 50, probeCache: new ProbeCache(0) },
      { keyHasher: hasher },
    );
    expect(stats).toMatchObject({ rowsUpdated: 1, rowsInserted: 0, filesRemoved: 1 });
    const count = (i: number) => times.get(Buffer.from(keyOf(i)).toString("latin1")) ?? 0;
    // Rows the probe read (up to the hit's row group) come with their hashes; the rewrite hashes the rest.
    for (const i of all.filter((i) => i !== 120)) expect(count(i)).toBe(1);
    const sourcePath = join(dir, "early-source.arrow");
    await writeFile(sourcePath, tableToIPC(source, "file"));
    await oracle.call("merge_delta_rs", { uri: uris[1], source: sourcePath, keys: ["id"] });
    const [a, b] = await Promise.all(
      uris.map((uri) => oracle.call<{ rows: unknown[] }>("merge_read", { uri })),
    );
    expect(a?.rows).toEqual(b?.rows);
  });

  it("bounds what probes keep and hold, hands each file out once, and covers a batch only when whole", () => {
    const handoff = new HashHandoff(64);
    const a = handoff.keeper();
    a.add(new Uint32Array([1, 2, 3, 4]));
    a.add(new Uint32Array([5, 6])); // 3 rows, 24 bytes kept
    const b = handoff.keeper();
    b.add(new Uint32Array(8)); // 32 bytes: fits beside a's 24
    b.add(new Uint32Array(4)); // 16 more do not: b keeps nothing from now on
    expect(handoff.refused).toBe(1);
    expect(handoff.bytes).toBe(24);
    b.handTo(file("b"));
    a.handTo(file("a"));
    a.drop(); // after handTo: frees nothing held for the rewrite
    expect(handoff.bytes).toBe(24);
    const dropped = handoff.keeper();
    dropped.add(new Uint32Array(10));
    dropped.drop(); // a file without a hit
    expect(handoff.bytes).toBe(24);
    const handed = handoff.take(file("a"));
    expect(handed?.rows).toBe(3);
    expect([...(handed?.words ?? [])]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(handoff.take(file("a"))).toBeUndefined();
    expect(handoff.take(file("b"))).toBeUndefined();
    expect(handoff.bytes).toBe(0);
    expect([...(handedRows(handed, 1, 2) ?? [])]).toEqual([3, 4, 5, 6]);
    expect(handedRows(handed, 2, 2)).toBeUndefined(); // row 3 was never hashed by the probe
    expect(handedRows(undefined, 0, 1)).toBeUndefined();
  });

  it("frees the native buffers a keeper owns once nothing reads them: on drop, on refusal, after the rewrite", () => {
    const released: string[] = [];
    const owner = (name: string) => () => released.push(name);
    const handoff = new HashHandoff(64);
    const dropped = handoff.keeper();
    dropped.add(new Uint32Array(4));
    dropped.own(owner("dropped"));
    expect(released).toEqual([]);
    dropped.drop(); // a file without a hit
    expect(released).toEqual(["dropped"]);
    const handed = handoff.keeper();
    handed.add(new Uint32Array(4));
    handed.own(owner("handed 1"));
    handed.own(owner("handed 2"));
    handed.handTo(file("a"));
    handed.drop(); // after handTo: what was handed is the rewrite's to free
    expect(released).toEqual(["dropped"]);
    const full = handoff.keeper();
    full.add(new Uint32Array(8));
    full.own(owner("kept"));
    full.add(new Uint32Array(16)); // does not fit: the keeper keeps nothing, and frees what it owned
    expect(released).toEqual(["dropped", "kept"]);
    full.own(owner("refused")); // keeping nothing, it frees at once
    expect(released).toEqual(["dropped", "kept", "refused"]);
    const taken = handoff.take(file("a"));
    expect(released).toHaveLength(3); // the rewrite reads them until it calls release
    taken?.release?.();
    expect(released).toEqual(["dropped", "kept", "refused", "handed 1", "handed 2"]);
    const twice = handoff.keeper();
    twice.add(new Uint32Array(2));
    twice.own(owner("offered twice"));
    twice.handTo(file("b"));
    const again = handoff.keeper();
    again.add(new Uint32Array(2));
    again.own(owner("second offer"));
    again.handTo(file("b")); // a path is held once: the second offer is freed
    expect(released.slice(-1)).toEqual(["second offer"]);
  });
});
