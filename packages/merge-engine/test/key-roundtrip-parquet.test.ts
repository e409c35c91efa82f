/**
 * Target keys read back through our own Parquet reader encode exactly like the source keys in memory: every
 * key case (each Delta key type with its edge cases, composite keys with NULLs) is written by delta-rs
 * (write_deltalake), its key columns are read with @deltalite/parquet-stream from the local store, and each
 * row's key type signature, NULL flag, canonical bytes and hash must equal those of the in-memory batch —
 * otherwise an upsert would miss matches on that type, or the probe cache would hold unusable hashes. The
 * hashes the native engine computes of a string or binary key column for the probe (parquet-stream
 * `valueHashes`) must be those same hashes and flags; of every other column it gives none.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader, type ParquetReader, parquetEngineName } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { type RecordBatch, Table, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeKeys, SourceKeySet } from "../src/index.js";
import { KEY_HASH_SEED } from "../src/keys/key-hasher.js";
import { batchFor, compositeCases, singleColumnCases } from "./key-cases.js";

describe("keys read back from delta-rs-written Parquet equal the in-memory keys", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-key-roundtrip-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([...singleColumnCases, ...compositeCases])("$name", async (c) => {
    const batch = batchFor(c);
    const keyColumns = c.columns.map(([name]) => name);
    const slug = c.name.replace(/[^a-z0-9]+/gi, "_");
    const ipc = join(dir, `${slug}.arrow`);
    const root = join(dir, slug);
    await writeFile(ipc, tableToIPC(new Table(batch), "file"));
    const files = await oracle.call<Array<{ path: string; size: number }>>("merge_keys_write_target", {
      ipc,
      uri: root,
    });
    expect(files).toHaveLength(1);
    const file = files[0] as { path: string; size: number };

    const reader = await openParquetReader(new LocalFileStore(root), file.path, { size: file.size });
    const source = encodeKeys(batch, keyColumns);
    const set = SourceKeySet.build({ keys: source });
    let row = 0;
    let group = 0;
    for await (const part of reader.readRowGroups({ columns: keyColumns })) {
      const target = encodeKeys(part, keyColumns);
      for (const [name, type] of c.columns) await expectValueHashes(reader, group, part, name, type);
      group++;
      expect(target.signature).toBe(source.signature);
      for (let i = 0; i < target.length; i++, row++) {
        expect(target.isNullKey(i)).toBe(source.isNullKey(row));
        expect([...target.keyBytes(i)]).toEqual([...source.keyBytes(row)]);
        expect([target.hashWords[2 * i], target.hashWords[2 * i + 1]]).toEqual([
          source.hashWords[2 * row],
          source.hashWords[2 * row + 1],
        ]);
        // Each non-null target row finds its own source row's key.
        expect(set.has(target, i)).toBe(!source.isNullKey(row));
      }
    }
    expect(row).toBe(batch.numRows);
  });
});

/**
 * `reader.valueHashes` of column `name` in row group `group`: with the native engine, for a string or binary
 * column, the hashes and NULL flags of that column as a single-column key of `part` (the row group read and
 * encoded in JavaScript); else none.
 */
async function expectValueHashes(
  reader: ParquetReader,
  group: number,
  part: RecordBatch,
  name: string,
  type: string,
): Promise<void> {
  const got = await reader.valueHashes(group, name, KEY_HASH_SEED);
  if (parquetEngineName() !== "native" || (type !== "string" && type !== "binary")) {
    expect(got).toBeUndefined();
    return;
  }
  const keys = encodeKeys(part, [name]);
  expect(got).toBeDefined();
  expect([...(got?.hashWords ?? [])]).toEqual([...keys.hashWords.subarray(0, 2 * keys.length)]);
  const flags = Array.from({ length: keys.length }, (_, i) => (keys.isNullKey(i) ? 1 : 0));
  expect([...(got?.nulls ?? new Uint8Array(keys.length))]).toEqual(flags);
}
