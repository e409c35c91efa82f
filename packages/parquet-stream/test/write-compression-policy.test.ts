/**
 * The compression policy (compression-policy.ts): a stream whose first input is a passed-through file writes
 * UNCOMPRESSED the columns its codec barely shrank in that file, and every other column with its codec. The
 * rule on its own; then real files: the codec of each written column chunk, the rows pyarrow and delta-rs
 * read back, and, on the native engine, the same bytes written in place as through the encoder worker.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { Field, Int64, type RecordBatch, Schema, Utf8 } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parquetEngineName } from "../src/engine.js";
import {
  type ColumnChunkSizes,
  type ParquetCodec,
  passthroughOf,
  type WrittenFile,
  writeParquetFiles,
} from "../src/index.js";
import { incompressibleColumns, MAX_COMPRESSED_SHARE } from "../src/write/compression-policy.js";
import { batchOf, canonicalRows } from "./write-helpers.js";

let oracle: Oracle;
let dir: string;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await mkdtemp(join(tmpdir(), "deltalite-compression-"));
});

afterAll(async () => {
  oracle.close();
  await rm(dir, { recursive: true, force: true });
});

const schema = new Schema([
  new Field("hex", new Utf8(), true),
  new Field("words", new Utf8(), true),
  new Field("seq", new Int64(), true),
]);

/** Random text (snappy cannot shrink it), repeated words (it can), a sequence. */
function rowsOf(start: number, count: number): RecordBatch {
  const words = ["alpha", "beta", "gamma", "delta"];
  return batchOf(schema, {
    hex: Array.from({ length: count }, () => randomBytes(300).toString("base64")),
    words: Array.from({ length: count }, (_, i) => `${words[i % 4]} ${words[(i >> 2) % 4]} ${i % 7}`),
    seq: Array.from({ length: count }, (_, i) => BigInt(start + i)),
  });
}

const sizes = (column: string, codec: string, compressedBytes: number, uncompressedBytes = 1000) =>
  ({ column, codec, compressedBytes, uncompressedBytes }) satisfies ColumnChunkSizes;

/** Each column chunk's codec in every row group of `file`. */
function codecs(file: WrittenFile): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const group of file.metadata.row_groups)
    for (const chunk of group.columns) {
      const name = chunk.meta_data?.path_in_schema.join(".") as string;
      out[name] = [...(out[name] ?? []), chunk.meta_data?.codec as string];
    }
  return out;
}

describe("compression policy", () => {
  it("names the columns the stream's own codec left above the share, and no other", () => {
    const over = Math.floor(MAX_COMPRESSED_SHARE * 1000) + 1;
    const at = Math.floor(MAX_COMPRESSED_SHARE * 1000);
    const given = [
      sizes("over", "SNAPPY", over),
      sizes("at", "SNAPPY", at),
      sizes("grown", "SNAPPY", 1040),
      sizes("other-codec", "ZSTD", 990),
      sizes("mixed", "mixed", 990),
      sizes("empty", "SNAPPY", 0, 0),
    ];
    expect(incompressibleColumns(given, "snappy")).toEqual(["over", "grown"]);
    expect(incompressibleColumns(given, "zstd")).toEqual(["other-codec"]);
    expect(incompressibleColumns(given, "uncompressed")).toEqual([]);
    // A column left UNCOMPRESSED stays so beside columns of the stream's codec, not in a file of none.
    const kept = [sizes("raw", "UNCOMPRESSED", 1000), sizes("text", "SNAPPY", 300)];
    expect(incompressibleColumns(kept, "snappy")).toEqual(["raw"]);
    expect(incompressibleColumns(kept, "zstd")).toEqual([]);
    expect(incompressibleColumns([sizes("raw", "UNCOMPRESSED", 1000)], "snappy")).toEqual([]);
  });

  const codecCases: Array<[string, ParquetCodec | undefined, "unit" | "batch", Record<string, string>]> = [
    ["a passed-through file first: its incompressible column", undefined, "unit", { hex: "UNCOMPRESSED" }],
    ["an Arrow batch first: no column", undefined, "batch", {}],
    ["another codec than the file's: no column", "zstd", "unit", {}],
  ];
  it.each(codecCases)("written UNCOMPRESSED after %s", async (_case, codec, first, expected) => {
    const source = await sourceFile(`src-${first}-${codec ?? "default"}`);
    const unit = passthroughOf({ bytes: source.bytes }, source.file.metadata, () => undefined);
    const batch = rowsOf(10_000, 500);
    const inputs = first === "unit" ? [unit, batch] : [batch, unit];
    const out = join(dir, `out-${first}-${codec ?? "default"}`);
    const [file, ...more] = await writeParquetFiles(new LocalFileStore(out), inputs, {
      schema,
      nextKey: () => "part-0.parquet",
      ...(codec ? { codec } : {}),
    });
    expect(more).toEqual([]);
    const written = file as WrittenFile;
    const name = (codec ?? "snappy").toUpperCase();
    for (const column of ["hex", "words", "seq"])
      for (const chunkCodec of codecs(written)[column] ?? [])
        expect([column, chunkCodec]).toEqual([column, expected[column] ?? name]);
    const rows = first === "unit" ? [...source.batches, batch] : [batch, ...source.batches];
    const fromPyarrow = await oracle.call<{ rows: unknown[] }>("parquet_canonical", {
      files: [join(out, written.key)],
    });
    expect(fromPyarrow.rows).toEqual(canonicalRows(rows));
    const fromDeltaRs = await oracle.call<{ rows: unknown[] }>("delta_read_parquet", {
      dir: out,
      files: [{ path: written.key, size: written.size }],
    });
    const sorted = (list: unknown[]) => list.map((r) => JSON.stringify(r)).sort();
    expect(sorted(fromDeltaRs.rows)).toEqual(sorted(canonicalRows(rows)));
  });

  it("a file it wrote, passed through again, keeps its UNCOMPRESSED column", async () => {
    const source = await sourceFile("src-again");
    const first = join(dir, "again-1");
    const once = passthroughOf({ bytes: source.bytes }, source.file.metadata, () => undefined);
    const [middle] = await writeParquetFiles(new LocalFileStore(first), [once], {
      schema,
      nextKey: () => "part-0.parquet",
    });
    const bytes = new Uint8Array(await readFile(join(first, (middle as WrittenFile).key)));
    const again = passthroughOf({ bytes }, (middle as WrittenFile).metadata, () => undefined);
    const [last] = await writeParquetFiles(new LocalFileStore(join(dir, "again-2")), [again], {
      schema,
      nextKey: () => "part-0.parquet",
    });
    for (const file of [middle, last])
      expect(codecs(file as WrittenFile)).toEqual({
        hex: ["UNCOMPRESSED"],
        words: ["SNAPPY"],
        seq: ["SNAPPY"],
      });
  });

  it.skipIf(parquetEngineName() !== "native")(
    "the native engine writes in place the bytes the encoder worker writes",
    async () => {
      const source = await sourceFile("src-engines");
      const path = join(dir, "src-engines.parquet");
      await writeFile(path, source.bytes);
      const batch = rowsOf(10_000, 500);
      const write = async (store: LocalFileStore | InMemoryStore, fromPath: boolean) => {
        const unit = passthroughOf(
          fromPath ? { path, size: source.bytes.byteLength } : { bytes: new Uint8Array(source.bytes) },
          source.file.metadata,
          () => undefined,
        );
        const [file] = await writeParquetFiles(store, [unit, batch], {
          schema,
          nextKey: () => "part-0.parquet",
        });
        expect(codecs(file as WrittenFile).hex).toEqual(["UNCOMPRESSED"]);
        return Buffer.from(await store.get("part-0.parquet"));
      };
      const inPlace = await write(new LocalFileStore(join(dir, "in-place")), true);
      const worker = await write(new InMemoryStore(), false);
      expect(inPlace.equals(worker)).toBe(true);
    },
  );
});

/** A snappy file of 4,000 rows in one row group, whose `hex` column snappy barely shrank and `words` it did. */
async function sourceFile(name: string) {
  const batches = [rowsOf(0, 4000)];
  const at = join(dir, name);
  const [file] = await writeParquetFiles(new LocalFileStore(at), batches, {
    schema,
    nextKey: () => "in.parquet",
  });
  const written = file as WrittenFile;
  const share = (column: string) => {
    const chunk = written.metadata.row_groups[0]?.columns.find(
      (c) => c.meta_data?.path_in_schema[0] === column,
    )?.meta_data;
    return Number(chunk?.total_compressed_size) / Number(chunk?.total_uncompressed_size);
  };
  expect(share("hex")).toBeGreaterThan(MAX_COMPRESSED_SHARE);
  expect(share("words")).toBeLessThan(MAX_COMPRESSED_SHARE);
  const bytes = new Uint8Array(await readFile(join(at, written.key)));
  return { file: written, bytes, batches };
}
