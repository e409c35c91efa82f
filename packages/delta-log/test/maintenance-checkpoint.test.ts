// Our checkpoint writer against delta-rs: delta-rs builds a table history (appends, a delete that rewrites
// and removes files); we replay the JSON log, write the checkpoint, delete every commit it replaces, and
// delta-rs must load the table from our checkpoint alone with the same version, files and schema.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { readParquetObjects } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCommit } from "../src/actions.js";
import { commitKey } from "../src/log-path.js";
import { writeCheckpoint } from "../src/maintenance/checkpoint-write.js";
import { ReplayState } from "../src/replay.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-ckpt-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Snapshot {
  version: number;
  files: { path: string; size: number; partitionValues: Record<string, unknown> }[];
  schema: unknown;
  configuration: Record<string, string>;
  protocol: unknown;
  error?: unknown;
}

const sortFiles = (s: Snapshot) => [...s.files].sort((a, b) => a.path.localeCompare(b.path));

async function replay(store: LocalFileStore, upTo: number): Promise<ReplayState> {
  const state = new ReplayState(store.root);
  for (let v = 0; v <= upTo; v++) state.apply(parseCommit(await store.get(commitKey(v)), commitKey(v)), v);
  return state;
}

describe("checkpoints we write are read by delta-rs", () => {
  it.each([
    ["partitioned, with removes", ["day"]],
    ["unpartitioned", []],
  ] as const)("%s", async (_name, partitionBy) => {
    const uri = path.join(tmp, `t-${partitionBy.length}`);
    const columns = { id: [1, 2, 3, 4], day: ["a", "b", "a", "c"], v: [1.5, null, 2.5, 3.5] };
    for (let i = 0; i < 4; i++) {
      await oracle.call("delta_write", { uri, columns, partition_by: [...partitionBy] });
    }
    await oracle.call("delta_delete", { uri, predicate: "id = 2" });
    const expected = await oracle.call<Snapshot>("delta_snapshot", { uri });
    expect(expected.error).toBeUndefined();
    const version = expected.version;

    const store = new LocalFileStore(uri);
    const state = await replay(store, version);
    const result = await writeCheckpoint(store, state, version);
    expect(result.written).toBe(true);
    expect(result.numOfAddFiles).toBe(expected.files.length);
    expect(JSON.parse(new TextDecoder().decode(await store.get("_delta_log/_last_checkpoint")))).toEqual({
      version,
      size: result.size,
      sizeInBytes: result.sizeInBytes,
      numOfAddFiles: expected.files.length,
    });

    // The checkpoint is plain Parquet with one action per row.
    const rows = await readParquetObjects(store, result.key);
    expect(rows.length).toBe(result.size);
    expect(rows.filter((r) => r.add != null).length).toBe(expected.files.length);
    expect(rows.filter((r) => r.remove != null).length).toBeGreaterThan(0);

    // Remove every commit the checkpoint replaces: delta-rs can only succeed by reading our checkpoint.
    for (let v = 0; v < version; v++) await store.delete(commitKey(v));
    const fromCheckpoint = await oracle.call<Snapshot>("delta_snapshot", { uri });
    expect(fromCheckpoint.error).toBeUndefined();
    expect(fromCheckpoint.version).toBe(version);
    expect(sortFiles(fromCheckpoint)).toEqual(sortFiles(expected));
    expect(fromCheckpoint.schema).toEqual(expected.schema);
    expect(fromCheckpoint.protocol).toEqual(expected.protocol);
    expect(fromCheckpoint.configuration).toEqual(expected.configuration);

    // A second writer finding the checkpoint already there succeeds without rewriting it.
    const again = await writeCheckpoint(store, state, version);
    expect(again.written).toBe(false);
    expect(again.sizeInBytes).toBe(result.sizeInBytes);
  });
});
