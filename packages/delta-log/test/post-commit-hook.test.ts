// The post-commit seam: `onCheckpointDue` fires exactly when delta-rs would checkpoint
// ((v + 1) % delta.checkpointInterval == 0); wired to the checkpoint writer of src/maintenance, delta-rs
// then loads the table from our checkpoint alone. A failing hook never fails the durable commit.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Action,
  checkpointDue,
  commitKey,
  commitTransaction,
  createTable,
  type PostCommitContext,
  Snapshot,
} from "../src/index.js";
import { writeCheckpoint } from "../src/maintenance/checkpoint-write.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-hooks-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const schema = {
  type: "struct" as const,
  fields: [{ name: "id", type: "long", nullable: true, metadata: {} }],
};
const add = (i: number): Action => ({
  add: { path: `f-${i}.parquet`, partitionValues: {}, size: 100 + i, modificationTime: i, dataChange: true },
});

describe("post-commit hooks", () => {
  it.each([
    [98, {}, false],
    [99, {}, true],
    [199, {}, true],
    [2, { "delta.checkpointInterval": "3" }, true],
    [3, { "delta.checkpointInterval": "3" }, false],
    [5, { "delta.checkpointInterval": "bogus" }, false],
  ])("checkpointDue(%i, %j) is %s (delta-rs's rule)", (version, configuration, due) => {
    expect(checkpointDue(version, configuration)).toBe(due);
  });

  it("onCheckpointDue runs after versions 2 and 5 with interval 3; delta-rs loads from our checkpoint alone", async () => {
    const uri = path.join(tmp, "checkpointed");
    const store = new LocalFileStore(uri);
    const fired: number[] = [];
    const hooks = {
      onCheckpointDue: async (ctx: PostCommitContext) => {
        fired.push(ctx.version);
        await writeCheckpoint(ctx.store, ctx.snapshot.checkpointSource(), ctx.version);
      },
    };
    let { snapshot } = await createTable(store, {
      schema,
      configuration: { "delta.checkpointInterval": "3" },
      hooks,
    });
    for (let i = 1; i <= 6; i++) {
      const result = await commitTransaction(snapshot, [add(i)], { operation: "WRITE", hooks });
      expect(result.maintenanceError).toBeUndefined();
      expect(result.checkpointDue).toBe(i === 2 || i === 5);
      snapshot = result.snapshot;
    }
    expect(fired).toEqual([2, 5]);
    // Drop every commit the checkpoint at 5 covers: both readers must use it.
    for (let v = 0; v <= 5; v++) await fs.rm(path.join(uri, commitKey(v)));
    const ours = await Snapshot.open(store);
    const theirs = await oracle.call<{ version: number; files: { path: string; size: number }[] }>(
      "delta_snapshot",
      {
        uri,
      },
    );
    expect(theirs.version).toBe(6);
    expect(ours.version).toBe(6);
    expect(theirs.files.map((f) => `${f.path}:${f.size}`).sort()).toEqual(
      ours.files.map((f) => `${f.path}:${f.size}`).sort(),
    );
    expect(ours.numFiles).toBe(6);
  });

  it("maintenanceMs times both hooks (a failing one included) on checkpoint-boundary commits only", async () => {
    const store = new LocalFileStore(path.join(tmp, "timed"));
    const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    const boom = new Error("cleanup failed");
    const ran: number[] = [];
    const hooks = {
      onCheckpointDue: () => pause(30),
      afterCommit: async (ctx: PostCommitContext) => {
        ran.push(ctx.version);
        await pause(30);
        if (ctx.version === 3) throw boom;
      },
    };
    let { snapshot, maintenanceMs } = await createTable(store, {
      schema,
      configuration: { "delta.checkpointInterval": "2" },
      hooks,
    });
    const results = [];
    for (let i = 1; i <= 4; i++) {
      const result = await commitTransaction(snapshot, [add(i)], { operation: "WRITE", hooks });
      results.push(result);
      snapshot = result.snapshot;
    }
    // afterCommit ran after every version, but only boundary versions (1, 3) count its time.
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.checkpointDue)).toEqual([true, false, true, false]);
    expect([maintenanceMs, results[1]!.maintenanceMs, results[3]!.maintenanceMs]).toEqual([0, 0, 0]);
    expect(results[0]!.maintenanceMs).toBeGreaterThanOrEqual(55);
    expect(results[2]!.maintenanceMs).toBeGreaterThanOrEqual(55);
    expect(results[2]!.maintenanceError).toBe(boom);
  });

  it("a failing hook is reported in maintenanceError; the commit stays durable", async () => {
    const store = new LocalFileStore(path.join(tmp, "failing"));
    const { snapshot } = await createTable(store, {
      schema,
      configuration: { "delta.checkpointInterval": "2" },
    });
    const boom = new Error("checkpoint writer unavailable");
    const result = await commitTransaction(snapshot, [add(1)], {
      operation: "WRITE",
      hooks: {
        onCheckpointDue: async () => {
          throw boom;
        },
      },
    });
    expect(result.version).toBe(1);
    expect(result.checkpointDue).toBe(true);
    expect(result.maintenanceError).toBe(boom);
    expect((await Snapshot.open(store)).version).toBe(1);
  });
});
