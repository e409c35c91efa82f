/**
 * Upserting into a table whose older files were written under an earlier schema (delta-rs grew it with a
 * merge append: a nested struct field, a list column and a timestamp column the first file lacks): the
 * rewrite reads the old file in the table's types (missing nested fields and columns null-filled) and the
 * result equals delta-rs MERGE on a copy of the same table.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import {
  Field,
  Int32,
  Int64,
  List,
  Struct,
  Table,
  TimestampMicrosecond,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";

describe("upsert into files written under an older schema", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-evolved-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("null-fills what old files lack and equals delta-rs MERGE", async () => {
    const ours = join(dir, "ours");
    const theirs = join(dir, "theirs");
    for (const uri of [ours, theirs]) await oracle.call("scan_make_evolved_table", { uri });
    const sType = new Struct([new Field("x", new Int32(), true), new Field("y", new Utf8(), true)]);
    const source = new Table({
      id: vectorFromArray([2n, 4n, 9n], new Int64()),
      s: vectorFromArray([{ x: 20, y: "twenty" }, null, { x: 90, y: null }], sType),
      tags: vectorFromArray([["b"], null, []], new List(new Field("element", new Utf8(), true))),
      ts: vectorFromArray([1_700_000_000_000, null, 1_800_000_000_000], new TimestampMicrosecond("UTC")),
    });
    const snapshot = await Snapshot.open(new LocalFileStore(ours));
    // The table's own Arrow types, so the source aligns by name and type.
    const aligned = new Table(
      snapshot.schema,
      Object.fromEntries(snapshot.schema.fields.map((f) => [f.name, source.getChild(f.name)!])) as never,
    );
    const stats = await upsert(snapshot, aligned, { primaryKeys: ["id"] });
    expect(stats).toMatchObject({ rowsUpdated: 2, rowsInserted: 1, filesRemoved: 2 });
    const batch = join(dir, "source.arrow");
    await writeFile(batch, tableToIPC(aligned, "file"));
    await oracle.call("merge_delta_rs", { uri: theirs, source: batch, keys: ["id"] });
    const a = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: ours });
    const b = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.rows).toHaveLength(6);
  });
});
