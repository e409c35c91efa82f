import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Float64, Int64, makeData, RecordBatch, Schema, Struct, Utf8 } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  judgedFields,
  passthroughOf,
  readParquetFooter,
  type WrittenFile,
  writeParquetFiles,
} from "../src/index.js";
import { plainColumns } from "../src/write/dictionary-policy.js";
import { batchOf, canonicalRows } from "./write-helpers.js";

let oracle: Oracle;
let dir: string;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await mkdtemp(join(tmpdir(), "deltalite-dictionary-"));
});

afterAll(async () => {
  oracle.close();
  await rm(dir, { recursive: true, force: true });
});

const schema = new Schema([
  new Field("id", new Utf8(), true),
  new Field("status", new Utf8(), true),
  new Field("seq", new Int64(), true),
  new Field("rare", new Float64(), true),
  new Field("price", new Float64(), true),
  new Field("note", new Utf8(), true),
]);

/** A distinct 300-byte text per row: 5,000 of them make a dictionary of ~1.5 MB, past parquet-rs's 1 MiB. */
function longText(i: number): string {
  return `${i}`.padStart(300, "n");
}

/** Unique ids and seqs, 4 statuses, a column that is almost all NULL, unique prices and long unique notes. */
function sample(rows: number) {
  return batchOf(schema, {
    id: Array.from({ length: rows }, (_, i) => `id-${(i * 7919) % 100_003}-${i}`),
    status: Array.from({ length: rows }, (_, i) => ["new", "paid", "shipped", "cancelled"][i % 4]),
    seq: Array.from({ length: rows }, (_, i) => BigInt(i) * 1_000_003n),
    rare: Array.from({ length: rows }, (_, i) => (i % 200 === 0 ? i / 3 : null)),
    price: Array.from({ length: rows }, (_, i) => i * 0.37),
    note: Array.from({ length: rows }, (_, i) => longText(i)),
  });
}

/** `rows` distinct strings of exactly `length` bytes, in one column `s`. */
function distinctStrings(rows: number, length: number) {
  const one = new Schema([new Field("s", new Utf8(), true)]);
  return batchOf(one, { s: Array.from({ length: rows }, (_, i) => `${i}`.padStart(length, "s")) });
}

describe("dictionary policy", () => {
  it("writes PLAIN the mostly distinct fixed-width columns, and strings only past the dictionary limit", () => {
    // Unique ids keep the dictionary attempt (5,000 × ~15 bytes fit a dictionary page: their PLAIN pages read
    // slower in pyarrow); the unique 300-byte notes would pass the limit, so they are written PLAIN.
    expect(plainColumns(sample(5000))).toEqual(["seq", "price", "note"]);
    // 3,000 notes (3,000 × 304 bytes) fit: the dictionary is kept.
    expect(plainColumns(sample(3000))).toEqual(["seq", "price"]);
    // Too few values to judge: every column keeps the default.
    expect(plainColumns(sample(20))).toEqual([]);
  });

  it("a string column's projected dictionary counts parquet-rs's 4-byte prefix, up to the limit exactly", () => {
    // 4,096 distinct values of 252 bytes: 4,096 × (252 + 4) = 1 MiB, the limit itself.
    expect(plainColumns(distinctStrings(4096, 252))).toEqual(["s"]);
    expect(plainColumns(distinctStrings(4096, 251))).toEqual([]);
    // A long column of few values keeps its dictionary, whatever its bytes.
    const one = new Schema([new Field("s", new Utf8(), true)]);
    const repeated = batchOf(one, { s: Array.from({ length: 8000 }, (_, i) => longText(i % 10)) });
    expect(plainColumns(repeated)).toEqual([]);
  });

  it("the file's pages follow it, and pyarrow and delta-rs read back the same rows", async () => {
    const batches = [sample(5000), sample(3000)];
    const tableDir = join(dir, "t");
    let n = 0;
    const [file] = await writeParquetFiles(new LocalFileStore(tableDir), batches, {
      schema,
      nextKey: () => `part-${n++}.parquet`,
    });
    const encodings = Object.fromEntries(
      file!.metadata.row_groups[0]!.columns.map((c) => [
        c.meta_data!.path_in_schema.join("."),
        c.meta_data!.encoding_stats!.map((e) => e.page_type).sort(),
      ]),
    );
    for (const plain of ["seq", "price", "note"]) expect(encodings[plain]).not.toContain("DICTIONARY_PAGE");
    for (const dictionary of ["id", "status", "rare"])
      expect(encodings[dictionary]).toContain("DICTIONARY_PAGE");
    const expected = canonicalRows(batches);
    const fromPyarrow = await oracle.call<{ rows: unknown[] }>("parquet_canonical", {
      files: [join(tableDir, file!.key)],
    });
    expect(fromPyarrow.rows).toEqual(expected);
    const fromDeltaRs = await oracle.call<{ rows: unknown[] }>("delta_read_parquet", {
      dir: tableDir,
      files: [{ path: file!.key, size: file!.size }],
    });
    const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(fromDeltaRs.rows)).toEqual(sorted(expected));
    // Statistics do not depend on the encoding: min / max / nulls of the plain columns are the values'.
    const stats = Object.fromEntries(
      file!.metadata.row_groups[0]!.columns.map((c) => [
        c.meta_data!.path_in_schema[0],
        c.meta_data!.statistics,
      ]),
    );
    expect(stats.seq?.min_value).toBe(0n);
    expect(stats.seq?.max_value).toBe(4999n * 1_000_003n);
    expect(Number(stats.rare?.null_count)).toBe(8000 - 25 - 15);
  });

  it("judges a stream whose first input is a passed-through file on the sample it carries", async () => {
    // The source file has a dictionary in every column (the policy fixed to none PLAIN).
    const store = new InMemoryStore();
    const batches = [sample(5000)];
    const [source] = await writeParquetFiles(store, batches, {
      schema,
      nextKey: () => "in.parquet",
      plainColumns: [],
    });
    const bytes = await store.get("in.parquet");
    const metadata = await readParquetFooter(store, "in.parquet", { size: (source as WrittenFile).size });
    expect(judgedFields(schema).map((f) => f.name)).toEqual(["id", "status", "seq", "rare", "price", "note"]);
    // The judged columns of the first batch, as a decoded sample of the file's first rows.
    const fields = judgedFields(schema);
    const first = batches[0]!;
    const judgedSample = new RecordBatch(
      new Schema(fields),
      makeData({
        type: new Struct(fields),
        length: first.numRows,
        nullCount: 0,
        children: fields.map((f) => first.getChild(f.name)!.data[0]!),
      }),
    );
    const pages = async (withSample: boolean) => {
      let n = 0;
      const unit = passthroughOf(
        { bytes: new Uint8Array(bytes) },
        metadata,
        () => undefined,
        undefined,
        withSample ? judgedSample : undefined,
      );
      const [file] = await writeParquetFiles(store, [unit], {
        schema,
        nextKey: () => `out-${withSample}-${n++}.parquet`,
      });
      const rows = await oracle.call<{ rows: unknown[] }>("parquet_canonical", {
        files: [await localCopy(store, file!.key)],
      });
      expect(rows.rows).toEqual(canonicalRows(batches));
      return Object.fromEntries(
        file!.metadata.row_groups[0]!.columns.map((c) => [
          c.meta_data!.path_in_schema.join("."),
          c.meta_data!.encoding_stats!.some((e) => e.page_type === "DICTIONARY_PAGE"),
        ]),
      );
    };
    // Without a sample the stream keeps parquet-rs's defaults: a dictionary everywhere.
    expect(await pages(false)).toEqual({
      id: true,
      status: true,
      seq: true,
      rare: true,
      price: true,
      note: true,
    });
    // With one, as a decoded first batch of the same rows is judged.
    expect(await pages(true)).toEqual({
      id: true,
      status: true,
      seq: false,
      rare: true,
      price: false,
      note: false,
    });
  });
});

/** A local copy of an in-memory object (pyarrow reads files). */
async function localCopy(store: InMemoryStore, key: string): Promise<string> {
  const local = new LocalFileStore(join(dir, "copies"));
  await local.put(key, await store.get(key));
  return join(dir, "copies", key);
}
