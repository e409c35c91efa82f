/**
 * Upsert parity with delta-rs MERGE for every key type of the matrix (byte … timestamp_ntz, float edge cases
 * -0.0/0.0, NaN payloads, ±inf, decimals, binary, strings that differ only by normalization) and the
 * composite cases with NULLs: the target holds the first values of the case, the source all of them (so
 * some rows update and some insert), both partitioned and not; identical sorted content and schema.
 * Inputs hold no two MERGE-equal keys on one side (a target with duplicate keys is outside the upsert's
 * contract: see the README).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { type Data, type RecordBatch, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeKeys, SourceKeySet, upsert } from "../src/index.js";
import { batchOf, column } from "./arrow-columns.js";
import { type Case, compositeCases, singleColumnCases } from "./key-cases.js";

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
  let oracle: Oracle;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-upsert-keys-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function ipc(batch: RecordBatch): Promise<string> {
    const path = join(dir, `data-${n++}.arrow`);
    await writeFile(path, tableToIPC(new Table(batch), "file"));
    return path;
  }

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
    const ours = join(dir, `ours-${n}`);
    const theirs = join(dir, `theirs-${n++}`);
    await oracle.call("merge_create", {
      uris: [ours, theirs],
      data: await ipc(caseBatch(c, targetRows, "old", c.partitioned)),
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
    await oracle.call("merge_delta_rs", {
      uri: theirs,
      source: await ipc(source),
      keys,
      partition_key: c.partitioned ? "part" : null,
    });
    const a = await oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: ours });
    const b = await oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri: theirs });
    expect(a.rows).toEqual(b.rows);
    expect(a.schema).toEqual(b.schema);
    expect(stats.rowsUpdated).toBeGreaterThan(0);
  });
});
