/**
 * Spark (pyspark + delta-spark, the engine that defines Delta) reads the change data feed we write: Spark's
 * `readChangeFeed` of a table changed by OUR upsert (with deletes) and delete equals our `readChanges` of
 * it — rows, `_change_type` and `_commit_version`, timestamps ignored — from version 0 and from the upsert
 * on. As spark-interop.test.ts: Spark only reads (its session starts in 20-90 s), one test, 240 s.
 */
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { describe, expect, it } from "vitest";
import { upsert } from "../../merge-engine/src/index.js";
import { oracleWorkspace } from "../../merge-engine/test/oracle-workspace.js";
import { FLAG, type Row, tableOf } from "../../merge-engine/test/upsert-scenarios.js";
import { deleteWhere } from "../src/index.js";
import { type CanonicalChanges, ourChanges } from "./changes-helpers.js";

const ws = oracleWorkspace("deltalite-changes-spark-");
const row = (id: number, name: string, part: string, del: boolean | null = null): Row => ({
  id,
  k2: "x",
  name,
  part,
  del,
});

describe("Spark reads our change data feed", () => {
  it("Spark readChangeFeed of our upsert with deletes and our delete = our readChanges", {
    timeout: 240_000,
  }, async () => {
    const ours = join(ws.dir, "ours");
    await ws.oracle.call("merge_create", {
      uris: [ours],
      data: await ws.ipc(
        tableOf([row(1, "a", "a"), row(2, "b", "b"), row(3, "c", "a"), row(4, "d", "b")], false),
      ),
      partition_by: ["part"],
      configuration: { "delta.enableChangeDataFeed": "true" },
    });
    const store = new LocalFileStore(ours);
    const batch = [row(1, "A", "a"), row(2, "", "b", true), row(7, "g", "b")];
    await upsert(await Snapshot.open(store), tableOf(batch, true), {
      primaryKeys: ["id"],
      partitionKey: "part",
      deleteColumn: FLAG,
    });
    await deleteWhere(await Snapshot.open(store), [{ column: "id", op: "eq", value: 3 }]);
    const mine = await ourChanges(ws.oracle, ws.dir, ours, { startingVersion: 0 });
    const spark = await ws.oracle.call<CanonicalChanges>("spark_read_change_feed", {
      uri: ours,
      starting_version: 0,
    });
    expect(mine.rows).toEqual(spark.rows);
    const types = mine.rows.map((r) => r._change_type).sort();
    const fromUpsert = await ourChanges(ws.oracle, ws.dir, ours, { startingVersion: 1, endingVersion: 1 });
    const sparkFromUpsert = await ws.oracle.call<CanonicalChanges>("spark_read_change_feed", {
      uri: ours,
      starting_version: 1,
      ending_version: 1,
    });
    expect(fromUpsert.rows).toEqual(sparkFromUpsert.rows);
    expect(fromUpsert.count).toBe(4); // id 1: pre- and post-image, id 2: delete, id 7: insert
    expect(types).toEqual([
      "delete",
      "delete",
      "insert",
      "insert",
      "insert",
      "insert",
      "insert",
      "update_postimage",
      "update_preimage",
    ]);
  });
});
