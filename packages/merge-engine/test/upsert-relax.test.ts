import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { Field, Int64, Schema, Table, Utf8, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";
import { oracleWorkspace } from "./oracle-workspace.js";

function tableOf(
  rows: { id: number; name?: string | null; part: string }[],
  nameNullable: boolean,
  withName = true,
) {
  const columns: [Field, unknown[]][] = [
    [new Field("id", new Int64(), true), rows.map((r) => BigInt(r.id))],
    ...(withName
      ? [[new Field("name", new Utf8(), nameNullable), rows.map((r) => r.name ?? null)] as [Field, unknown[]]]
      : []),
    [new Field("part", new Utf8(), true), rows.map((r) => r.part)],
  ];
  // Vectors are given in the schema's order (the Table constructor pairs them with fields by position).
  const vectors = Object.fromEntries(columns.map(([f, values]) => [f.name, vectorFromArray(values, f.type)]));
  return new Table(new Schema(columns.map(([f]) => f)), vectors as never);
}

const initial = Array.from({ length: 12 }, (_, i) => ({ id: i, name: `old-${i}`, part: ["a", "b"][i % 2]! }));

describe("upsert nullability relax", () => {
  const ws = oracleWorkspace("deltalite-upsert-relax-");
  /** Numbers the table folders of this suite. */
  let n = 0;

  async function tables() {
    const ours = join(ws.dir, `ours-${n}`);
    const theirs = join(ws.dir, `theirs-${n++}`);
    await ws.oracle.call("merge_create", {
      uris: [ours],
      data: await ws.ipc(tableOf(initial, false)),
      partition_by: ["part"],
    });
    await ws.oracle.call("merge_create", {
      uris: [theirs],
      data: await ws.ipc(tableOf(initial, true)),
      partition_by: ["part"],
    });
    return { ours, theirs };
  }

  it.each([
    {
      name: "NULLs in the non-nullable column",
      source: tableOf(
        [
          { id: 0, name: null, part: "a" },
          { id: 1, name: "upd-1", part: "b" },
          { id: 50, name: null, part: "a" },
        ],
        true,
      ),
    },
    {
      name: "the non-nullable column missing from the source",
      source: tableOf(
        [
          { id: 2, part: "a" },
          { id: 51, part: "b" },
        ],
        true,
        false,
      ),
      // The upsert replaces whole rows, null-padding columns the source lacks (as the original does);
      // delta-rs's update_all would keep the target's value there, so it gets the padded source.
      deltaRsSource: tableOf(
        [
          { id: 2, name: null, part: "a" },
          { id: 51, name: null, part: "b" },
        ],
        true,
      ),
    },
  ])("$name → relaxed by a metadata commit, then the upsert; equals delta-rs MERGE", async (c) => {
    const source = c.source;
    const { ours, theirs } = await tables();
    const store = new LocalFileStore(ours);
    const before = await Snapshot.open(store);
    expect(before.schema.fields.find((f) => f.name === "name")!.nullable).toBe(false);
    const stats = await upsert(before, source, { primaryKeys: ["id"], partitionKey: "part" });
    expect(stats.columnsRelaxed).toBe(1);
    expect(stats.version).toBe(before.version + 2);
    const after = await Snapshot.open(store);
    const history = await after.history(2);
    expect(history.map((h) => h.operation)).toEqual(["MERGE", "CHANGE COLUMN"]);
    await ws.oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ws.ipc("deltaRsSource" in c && c.deltaRsSource ? c.deltaRsSource : source),
      keys: ["id"],
      partition_key: "part",
    });
    const a = await ws.oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: ours });
    const b = await ws.oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.schema).toEqual(b.schema);
  });

  it("no NULLs for the column → no relax, the column stays non-nullable", async () => {
    const { ours } = await tables();
    const store = new LocalFileStore(ours);
    const before = await Snapshot.open(store);
    const stats = await upsert(before, tableOf([{ id: 3, name: "x", part: "b" }], false), {
      primaryKeys: ["id"],
      partitionKey: "part",
    });
    expect(stats.columnsRelaxed).toBe(0);
    expect(stats.version).toBe(before.version + 1);
    expect((await Snapshot.open(store)).schema.fields.find((f) => f.name === "name")!.nullable).toBe(false);
  });

  it("duplicates in a batch that would need a relax → error before the relax commit, table unchanged", async () => {
    const { ours } = await tables();
    const store = new LocalFileStore(ours);
    const before = await Snapshot.open(store);
    const source = tableOf(
      [
        { id: 7, name: null, part: "b" },
        { id: 7, name: "again", part: "b" },
      ],
      true,
    );
    const error = await upsert(before, source, { primaryKeys: ["id"], partitionKey: "part" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as { kind?: string }).kind).toBe("generic");
    const after = await Snapshot.open(store);
    expect(after.version).toBe(before.version);
    expect(after.schemaJson).toBe(before.schemaJson);
  });
});
