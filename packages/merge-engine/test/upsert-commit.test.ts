/**
 * The upsert's commit: on a checkpoint-boundary version (delta-rs's rule, `(v + 1) % interval == 0`) the
 * checkpoint is written after the MERGE commit and timed as `maintenanceMs`; delta-rs reads the
 * checkpointed table with the same rows as its own MERGE gives; commitInfo carries the MERGE shape.
 */
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Int64, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";

const schema = new Schema([new Field("id", new Int64(), true), new Field("part", new Utf8(), true)]);
const tableOf = (ids: bigint[], parts: string[]) =>
  new Table(schema, {
    id: vectorFromArray(ids, new Int64()),
    part: vectorFromArray(parts, new Utf8()),
  } as never);

describe("upsert commit and maintenance", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-commit-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("checkpoints on the interval boundary (maintenanceMs > 0 only there) and delta-rs reads the result", async () => {
    const ours = join(dir, "ours");
    const theirs = join(dir, "theirs");
    const initial = join(dir, "initial.arrow");
    await writeFile(initial, tableToIPC(tableOf([1n, 2n, 3n], ["a", "b", "a"]), "file"));
    await oracle.call("merge_create", {
      uris: [ours, theirs],
      data: initial,
      partition_by: ["part"],
      configuration: { "delta.checkpointInterval": "3" },
    });
    const store = new LocalFileStore(ours);
    const results = [];
    for (let i = 0; i < 3; i++) {
      const batch = tableOf([BigInt(i + 1), BigInt(100 + i)], ["a", "b"]);
      results.push(
        await upsert(await Snapshot.open(store), batch, {
          primaryKeys: ["id"],
          partitionKey: "part",
          commitMetadata: { run: i },
        }),
      );
      const source = join(dir, `source-${i}.arrow`);
      await writeFile(source, tableToIPC(batch, "file"));
      await oracle.call("merge_delta_rs", { uri: theirs, source, keys: ["id"], partition_key: "part" });
    }
    expect(results.map((r) => r.version)).toEqual([1, 2, 3]);
    // Version 2 is the boundary for interval 3.
    await access(join(ours, "_delta_log", "00000000000000000002.checkpoint.parquet"));
    expect(results[1]!.maintenanceMs).toBeGreaterThan(0);
    expect(results[0]!.maintenanceMs).toBe(0);
    expect(results[2]!.maintenanceMs).toBe(0);
    const a = await oracle.call<{ rows: unknown[]; commitInfo: Record<string, unknown> }>("merge_read", {
      uri: ours,
    });
    const b = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.commitInfo).toMatchObject({
      operation: "MERGE",
      run: 2,
      operationParameters: {
        predicate: "t.`part` = s.`part` AND t.`id` = s.`id`",
        matchedPredicates: '[{"actionType":"update"}]',
        notMatchedPredicates: '[{"actionType":"insert"}]',
      },
    });
  });
});
