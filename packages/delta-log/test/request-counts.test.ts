// Request budgets of snapshot loading, asserted with the counting store on a delta-rs table that has a
// classic checkpoint (delta.checkpointInterval = 10 → checkpoint at version 9) and k tail commits:
//
//   latest, valid _last_checkpoint:   1 GET (_last_checkpoint) + 1 LIST (from the checkpoint version)
//                                      + CHECKPOINT_GETS ranged GETs of the checkpoint + k GETs (one per commit)
//   latest, corrupt _last_checkpoint: same, the hint being ignored (the LIST covers the whole log)
//   latest, hint naming a missing checkpoint: 1 GET + 2 LISTs (narrow, then whole log) + the same reads
//   at a version (time travel):        1 LIST + CHECKPOINT_GETS + the commits between checkpoint and version
//
// CHECKPOINT_GETS = 2: hyparquet reads the footer with one suffix GET, then the row group's column chunks
// with one more (the checkpoint is one small row group); the file's size comes from the listing, so no HEAD.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkpointKey, commitKey, LAST_CHECKPOINT_KEY, Snapshot } from "../src/index.js";

const CHECKPOINT_GETS = 2;

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-counts-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

let n = 0;
/** A delta-rs table with a checkpoint at version 9 and `k` commits after it (latest = 9 + k). */
async function tableWithTail(k: number): Promise<string> {
  const uri = path.join(tmp, `t${n++}`);
  await oracle.call("delta_write", {
    uri,
    columns: { id: [1, 2], day: ["a", "b"] },
    partition_by: ["day"],
    configuration: { "delta.checkpointInterval": "10" },
    repeat: 10 + k,
  });
  const log = await fs.readdir(path.join(uri, "_delta_log"));
  expect(log.filter((f) => f.includes("checkpoint.parquet"))).toEqual([
    "00000000000000000009.checkpoint.parquet",
  ]);
  return uri;
}

function summarize(store: CountingStore) {
  const gets = store.log.filter((r) => r.method === "get");
  return {
    list: store.counts.list.calls,
    head: store.counts.head.calls,
    hintGets: gets.filter((r) => r.key === LAST_CHECKPOINT_KEY).length,
    checkpointGets: gets.filter((r) => r.key === checkpointKey(9)).length,
    commitGets: gets
      .filter((r) => r.key.endsWith(".json"))
      .map((r) => r.key)
      .sort(),
    other: gets.filter(
      (r) => r.key !== LAST_CHECKPOINT_KEY && r.key !== checkpointKey(9) && !r.key.endsWith(".json"),
    ).length,
  };
}

const tail = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => commitKey(from + i));

describe("snapshot loading request counts", () => {
  it.each([0, 1, 5])("latest with a valid _last_checkpoint and %i tail commits", async (k) => {
    const uri = await tableWithTail(k);
    const store = new CountingStore(new LocalFileStore(uri));
    const snapshot = await Snapshot.open(store);
    expect(snapshot.version).toBe(9 + k);
    expect(summarize(store)).toEqual({
      list: 1,
      head: 0,
      hintGets: 1,
      checkpointGets: CHECKPOINT_GETS,
      commitGets: tail(10, 9 + k),
      other: 0,
    });
  });

  it("latest with a corrupt _last_checkpoint: the hint is ignored, still one LIST", async () => {
    const uri = await tableWithTail(3);
    await fs.writeFile(path.join(uri, "_delta_log", "_last_checkpoint"), "{not json");
    const store = new CountingStore(new LocalFileStore(uri));
    expect((await Snapshot.open(store)).version).toBe(12);
    expect(summarize(store)).toEqual({
      list: 1,
      head: 0,
      hintGets: 1,
      checkpointGets: CHECKPOINT_GETS,
      commitGets: tail(10, 12),
      other: 0,
    });
  });

  it("latest with a hint naming a checkpoint that does not exist: a second, full LIST", async () => {
    const uri = await tableWithTail(3);
    await fs.writeFile(
      path.join(uri, "_delta_log", "_last_checkpoint"),
      JSON.stringify({ version: 11, size: 5 }),
    );
    const store = new CountingStore(new LocalFileStore(uri));
    const snapshot = await Snapshot.open(store);
    expect(snapshot.version).toBe(12);
    expect(summarize(store)).toEqual({
      list: 2,
      head: 0,
      hintGets: 1,
      checkpointGets: CHECKPOINT_GETS,
      commitGets: tail(10, 12),
      other: 0,
    });
    // delta-rs (kernel) refuses such a hint outright; we fall back to listing. What we read equals what
    // delta-rs reads once the bad hint is gone.
    const refused = await oracle.call<{ error?: { message: string } }>("delta_snapshot", { uri });
    expect(refused.error?.message).toContain("Invalid Checkpoint");
    await fs.rm(path.join(uri, "_delta_log", "_last_checkpoint"));
    const fresh = await oracle.call<{ version: number; files: { path: string }[] }>("delta_snapshot", {
      uri,
    });
    expect(fresh.version).toBe(12);
    expect(snapshot.files.map((f) => f.add.path).sort()).toEqual(fresh.files.map((f) => f.path).sort());
  });

  it("time travel to a version after the checkpoint: one LIST, the checkpoint, and only the commits up to it", async () => {
    const uri = await tableWithTail(5);
    const store = new CountingStore(new LocalFileStore(uri));
    expect((await Snapshot.open(store, { version: 11 })).version).toBe(11);
    expect(summarize(store)).toEqual({
      list: 1,
      head: 0,
      hintGets: 0,
      checkpointGets: CHECKPOINT_GETS,
      commitGets: tail(10, 11),
      other: 0,
    });
  });
});
