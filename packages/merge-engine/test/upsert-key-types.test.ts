import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { type Data, type RecordBatch, Utf8, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { encodeKeys, SourceKeySet, upsert } from "../src/index.js";
import { batchOf, column } from "./arrow-columns.js";
import { type Case, compositeCases, singleColumnCases } from "./key-cases.js";
import { oracleWorkspace } from "./oracle-workspace.js";

const utf8 = (values: (string | null)[]) => vectorFromArray(values, new Utf8()).data[0] as Data;

/** Row indexes of `rows` whose key has not appeared before (NULL keys always kept). */
function firstOfEachKey(c: Case, rows: number[]): number[] {
  const keys = c.columns.map(([name]) => name);
  const batch = batchOf(
    c.columns.map(([name, type, values]) => [
      name,
      column(
        type,
        rows.map((r) => values[r]!),
      ),
    ]),
  );
  const encoded = encodeKeys(batch, keys);
  const keep: number[] = [];
  const seen: number[] = [];
  rows.forEach((row, i) => {
    if (!encoded.isNullKey(i)) {
      const set = SourceKeySet.build({ keys: encoded, rows: seen });
      if (set.has(encoded, i)) return;
      seen.push(i);
    }
    keep.push(row);
  });
  return keep;
}

function caseBatch(c: Case, rows: number[], tag: string, partitioned: boolean): RecordBatch {
  const columns: Array<[string, Data]> = c.columns.map(([name, type, values]) => [
    name,
    column(
      type,
      rows.map((r) => values[r]!),
    ),
  ]);
  columns.push(["name", utf8(rows.map((r) => `${tag}-${r}`))]);
  columns.push(["part", utf8(rows.map((r) => (partitioned ? ["p", "q"][r % 2]! : "p")))]);
  return batchOf(columns);
}

describe("upsert = delta-rs MERGE for every key type", () => {
  const ws = oracleWorkspace("deltalite-upsert-keys-");
  /** Numbers the table folders of this suite. */
  let n = 0;

  const cases = [...singleColumnCases, ...compositeCases].flatMap((c) => [
    { ...c, partitioned: false },
    { ...c, partitioned: true },
  ]);
  it.each(cases)("$name (partitioned: $partitioned)", async (c) => {
    const length = c.columns[0]![2].length;
    const all = Array.from({ length }, (_, i) => i);
    // Partitioned: rows alternate p/q, so MERGE-equal keys in different partitions stay distinct rows.
    const dedupe = (rows: number[]) =>
      c.partitioned
        ? [0, 1]
            .flatMap((p) =>
              firstOfEachKey(
                c,
                rows.filter((r) => r % 2 === p),
              ),
            )
            .sort((x, y) => x - y)
        : firstOfEachKey(c, rows);
    const targetRows = dedupe(all.slice(0, Math.ceil(length / 2) + 1));
    const sourceRows = dedupe([...all].reverse());
    const ours = join(ws.dir, `ours-${n}`);
    const theirs = join(ws.dir, `theirs-${n++}`);
    await ws.oracle.call("merge_create", {
      uris: [ours, theirs],
      data: await ws.ipc(caseBatch(c, targetRows, "old", c.partitioned)),
      partition_by: c.partitioned ? ["part"] : null,
      appends: 2,
    });
    const keys = c.columns.map(([name]) => name);
    const source = caseBatch(c, sourceRows, "new", c.partitioned);
    const stats = await upsert(await Snapshot.open(new LocalFileStore(ours)), source, {
      primaryKeys: keys,
      ...(c.partitioned ? { partitionKey: "part" } : {}),
    });
    expect(stats.rowsInserted + stats.rowsUpdated).toBe(sourceRows.length);
    await ws.oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ws.ipc(source),
      keys,
      partition_key: c.partitioned ? "part" : null,
    });
    const a = await ws.oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: ours });
    const b = await ws.oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.schema).toEqual(b.schema);
    expect(stats.rowsUpdated).toBeGreaterThan(0);
  });
});
