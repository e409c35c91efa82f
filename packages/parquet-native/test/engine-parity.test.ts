/**
 * The addon against parquet-wasm, the engine it stands in for (both are parquet-rs 59.3.2): for the same
 * writer properties and the same Arrow input, the two write the same Parquet files (`sameParquet`: every byte
 * before the footer equal, and equal footers once each column chunk's encodings and encoding stats are
 * sorted: parquet-rs lists them in hash order, which differs between two runs of either engine), whole
 * (`writeParquet`) or streamed batch by batch (`transformParquetStream`, with slices and relabelled batches as
 * the encoder worker makes them); every Parquet data file of the shared fixtures (Spark, delta-rs, DAT)
 * decodes to the same data in both (shown by re-encoding each decode with fixed properties); and bad input
 * (to the value hashes too) is a thrown error or a rejection, never a crash of the process.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturesDir } from "@deltalite/tools/fixtures";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { tableFromIPC, tableToIPC } from "apache-arrow";
import { parquetMetadata } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const native = require("../engine.cjs");
// biome-ignore lint/suspicious/noExplicitAny: parquet-wasm's node build, loaded the way the worker loads it
const wasm: any = require("parquet-wasm");
// biome-ignore lint/suspicious/noExplicitAny: either engine (the same API)
type Engine = any;

let oracle: Oracle;
let dir: string;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await mkdtemp(join(tmpdir(), "deltalite-native-"));
});

afterAll(async () => {
  oracle.close();
  await rm(dir, { recursive: true, force: true });
});

/** The encoder worker's property calls (encoder-worker.ts `properties`), for either engine. */
function props(
  engine: Engine,
  codec: "SNAPPY" | "ZSTD" | "UNCOMPRESSED",
  rowGroupRows: number,
  plain: string[],
) {
  let builder = new engine.WriterPropertiesBuilder()
    .setWriterVersion(engine.WriterVersion.V1)
    .setCompression(engine.Compression[codec])
    .setMaxRowGroupSize(rowGroupRows)
    .setMaxRowGroupBytes(1 << 20)
    .setStatisticsEnabled(engine.EnabledStatistics.Page)
    .setCreatedBy("deltalite engine parity")
    .setKeyValueMetadata(new Map([["origin", "engine-parity"]]));
  for (const column of plain) builder = builder.setColumnDictionaryEnabled(column, false);
  return builder.build();
}

async function typeMatrixIpc(seed: number, rows: number): Promise<Uint8Array> {
  const path = join(dir, `matrix-${seed}.arrow`);
  await oracle.call("parquet_type_matrix", { out: path, rows, seed });
  return tableToIPC(tableFromIPC(await readFile(path)), "stream");
}

/** Every chunk `transformParquetStream` yields for `batches`, joined. */
async function streamed(engine: Engine, batches: unknown[], properties: unknown): Promise<Buffer> {
  const input = new ReadableStream({
    pull(controller) {
      const next = batches.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
  const chunks: Uint8Array[] = [];
  for await (const chunk of await engine.transformParquetStream(input, properties)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The worker's shapes of input: a file's row groups read back in small batches, sliced, relabelled. */
function workerBatches(engine: Engine, file: Uint8Array, rowGroups: number[]): unknown[] {
  const table = engine.readParquet(file, { rowGroups, batchSize: 37 });
  const out: unknown[] = [];
  for (const batch of table.recordBatches()) {
    const half = Math.floor(batch.numRows / 2);
    out.push(batch.slice(0, half).withSchema(table.schema), batch.slice(half, batch.numRows - half));
    batch.free();
  }
  table.free();
  return out;
}

/** A Parquet file as compared: its bytes before the footer, and its footer with sorted encodings. */
function comparable(file: Uint8Array): { data: string; footer: unknown } {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  const footerLength = bytes.readUInt32LE(bytes.length - 8);
  const metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  for (const group of metadata.row_groups) {
    for (const column of group.columns) {
      column.meta_data?.encodings.sort();
      column.meta_data?.encoding_stats?.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    }
  }
  const data = bytes.subarray(0, bytes.length - 8 - footerLength).toString("base64");
  return { data, footer: metadata };
}

function expectSameParquet(ours: Uint8Array, theirs: Uint8Array, what = ""): void {
  expect(ours.byteLength, what).toBe(theirs.byteLength);
  expect(comparable(ours), what).toEqual(comparable(theirs));
}

/** A batch stream's batches, read to its end (each table's batches kept, the table freed). */
function drained(stream: {
  nextTable(): { recordBatches(): unknown[]; free(): void } | null;
  readonly released?: boolean;
}): unknown[] {
  const batches: unknown[] = [];
  for (let table = stream.nextTable(); table !== null; table = stream.nextTable()) {
    batches.push(...table.recordBatches());
    table.free();
  }
  return batches;
}

/** Two lists of batches written alike (uncompressed, row groups of 1,000) give the same Parquet file. */
async function expectSameWritten(
  engine: Engine,
  ours: unknown[],
  theirs: unknown[],
  what: string,
): Promise<void> {
  const written = (input: unknown[]) => streamed(engine, input, props(engine, "UNCOMPRESSED", 1000, []));
  expectSameParquet(await written(ours), await written(theirs), what);
}

function parquetFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".parquet"))
    .map((name) => join(root, name))
    .sort();
}

// Setup builds the addon wherever cargo runs; only a build skipped on purpose skips this suite.
describe.skipIf(process.env.DELTALITE_NATIVE_BUILD === "0")(
  "the addon writes and reads as parquet-wasm does",
  () => {
    it("is built here (setup builds it with cargo)", () => {
      expect(native.available).toBe(true);
    });

    it.each([
      [1, "SNAPPY"],
      [2, "ZSTD"],
      [3, "UNCOMPRESSED"],
    ] as const)(
      "type matrix seed %i, %s: writeParquet and the streamed writer write parquet-wasm's files",
      async (seed, codec) => {
        const ipc = await typeMatrixIpc(seed, 700);
        const plain = seed === 1 ? ["string_col"] : [];
        const whole = (engine: Engine) =>
          Buffer.from(engine.writeParquet(engine.Table.fromIPCStream(ipc), props(engine, codec, 250, plain)));
        const ours = whole(native);
        expectSameParquet(ours, whole(wasm));
        expect(ours.subarray(0, 4).toString()).toBe("PAR1");

        const streamedBy = (engine: Engine) =>
          streamed(engine, workerBatches(engine, ours, [2, 0]), props(engine, codec, 100, plain));
        const [nativeStream, wasmStream] = [await streamedBy(native), await streamedBy(wasm)];
        expect(nativeStream.length).toBeGreaterThan(1000);
        expectSameParquet(nativeStream, wasmStream);
        native.releaseParquet(ours);
      },
    );

    it("every Parquet data file of the shared fixtures decodes to parquet-wasm's data", () => {
      const files = parquetFiles(fixturesDir());
      expect(files.length).toBeGreaterThan(100);
      let compared = 0;
      for (const path of files) {
        const bytes = new Uint8Array(readFileSync(path));
        const reencoded = (engine: Engine) => {
          try {
            const table = engine.readParquet(bytes, { batchSize: 1000 });
            return engine.writeParquet(table, props(engine, "UNCOMPRESSED", 1000, [])) as Uint8Array;
          } catch {
            return "refused";
          }
        };
        const ours = reencoded(native);
        native.releaseParquet(bytes);
        const theirs = reencoded(wasm);
        if (typeof ours === "string" || typeof theirs === "string") expect(ours, path).toEqual(theirs);
        else {
          expectSameParquet(ours, theirs, path);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(100);
    });

    it("a file read a batch at a time in place (readParquetBatches) is the data read whole, and is released", async () => {
      const files = parquetFiles(fixturesDir()).slice(0, 60);
      let compared = 0;
      for (const path of files) {
        const bytes = new Uint8Array(readFileSync(path));
        let whole: unknown[];
        try {
          whole = native.readParquet(bytes, { batchSize: 300 }).recordBatches();
        } catch {
          expect(() => native.readParquetBatches(bytes, { batchSize: 300 }).nextTable(), path).toThrow();
          continue;
        } finally {
          native.releaseParquet(bytes);
        }
        const stream = native.readParquetBatches(bytes, { batchSize: 300 });
        const batches: unknown[] = [];
        for (let table = stream.nextTable(); table !== null; table = stream.nextTable()) {
          expect(stream.released, path).toBe(false);
          batches.push(...table.recordBatches());
          table.free();
        }
        expect(stream.released, path).toBe(true);
        expect(batches.length, path).toBe(whole.length);
        if (batches.length === 0) continue;
        await expectSameWritten(native, batches, whole, path);
        compared++;
      }
      expect(compared).toBeGreaterThan(30);
      // A stream freed part-way releases the buffer; one over bytes that are no Parquet file throws.
      const ipc = await typeMatrixIpc(5, 400);
      const file = native.writeParquet(native.Table.fromIPCStream(ipc), props(native, "SNAPPY", 100, []));
      const partial = native.readParquetBatches(file, { rowGroups: [3, 1], batchSize: 40 });
      const first = partial.nextTable();
      expect(first.numRows).toBe(40);
      expect(partial.released).toBe(false);
      first.free();
      partial.free();
      expect(partial.released).toBe(true);
      expect(() => native.readParquetBatches(file, { rowGroups: [9] })).toThrow(/row group 9/);
      expect(() => native.readParquetBatches(new Uint8Array([1, 2, 3]))).toThrow();
    });

    it("a local file read a batch at a time from its path (readParquetFileBatches) is the data read in place", async () => {
      const files = parquetFiles(fixturesDir()).slice(0, 60);
      let compared = 0;
      for (const path of files) {
        const bytes = new Uint8Array(readFileSync(path));
        let inPlace: unknown[];
        try {
          inPlace = drained(native.readParquetBatches(bytes, { batchSize: 300 }));
        } catch {
          expect(
            () => native.readParquetFileBatches(path, bytes.byteLength, { batchSize: 300 }).nextTable(),
            path,
          ).toThrow();
          continue;
        }
        const fromPath = native.readParquetFileBatches(path, bytes.byteLength, { batchSize: 300 });
        const batches = drained(fromPath);
        expect(fromPath.released, path).toBe(true);
        expect(batches.length, path).toBe(inPlace.length);
        if (batches.length === 0) continue;
        await expectSameWritten(native, batches, inPlace, path);
        compared++;
      }
      expect(compared).toBeGreaterThan(30);
      // Row groups asked for in any order; a file of another length, a missing file, a non-Parquet file: refused.
      const ipc = await typeMatrixIpc(5, 400);
      const file = native.writeParquet(native.Table.fromIPCStream(ipc), props(native, "SNAPPY", 100, []));
      const dir = mkdtempSync(join(tmpdir(), "parquet-native-path-"));
      try {
        const path = join(dir, "part.parquet");
        writeFileSync(path, file);
        const partial = native.readParquetFileBatches(path, file.byteLength, {
          rowGroups: [3, 1],
          batchSize: 40,
        });
        const inPlace = native.readParquetBatches(file, { rowGroups: [3, 1], batchSize: 40 });
        const rows = (stream: { nextTable(): { numRows: number; free(): void } | null }) => {
          const counts: number[] = [];
          for (let table = stream.nextTable(); table !== null; table = stream.nextTable()) {
            counts.push(table.numRows);
            table.free();
          }
          return counts;
        };
        expect(rows(partial)).toEqual(rows(inPlace));
        expect(() => native.readParquetFileBatches(path, file.byteLength + 1)).toThrow(/expected/);
        expect(() => native.readParquetFileBatches(path, file.byteLength, { rowGroups: [9] })).toThrow(
          /row group 9/,
        );
        expect(() => native.readParquetFileBatches(join(dir, "missing.parquet"), 10)).toThrow(/cannot open/);
        writeFileSync(join(dir, "junk.parquet"), new Uint8Array([1, 2, 3]));
        expect(() => native.readParquetFileBatches(join(dir, "junk.parquet"), 3)).toThrow();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("hashes a local file's byte-array column from its path as from its fetched footer and chunk", async () => {
      const ipc = await typeMatrixIpc(6, 500);
      const file = native.writeParquet(native.Table.fromIPCStream(ipc), props(native, "SNAPPY", 120, []));
      const local = mkdtempSync(join(tmpdir(), "parquet-native-hash-path-"));
      try {
        const path = join(local, "part.parquet");
        writeFileSync(path, file);
        const size = file.byteLength;
        const footerLength = new DataView(file.buffer, file.byteOffset + size - 8, 4).getUint32(0, true) + 8;
        const footer = file.subarray(size - footerLength);
        const metadata = parquetMetadata(file.buffer.slice(file.byteOffset, file.byteOffset + size));
        for (const [column, binary] of [
          ["string_col", false],
          ["binary_col", true],
        ] as const) {
          const layout = await native.fileColumnLayout(path, size, column);
          const leaf = metadata.schema.slice(1).findIndex((e) => e.name === column);
          expect(layout).toMatchObject({ present: true, leaf, binary });
          expect(layout.first ?? undefined).toBeUndefined();
          // Given a seed, the first row group's hashes come with the layout: those of row group 0 by itself.
          const withFirst = await native.fileColumnLayout(path, size, column, 3, 4);
          const { first, ...rest } = withFirst;
          expect(rest).toEqual(layout);
          const alone = await native.hashFileColumnValues(path, size, 0, leaf, 3, 4, false);
          expect(first?.rows).toBe(alone.rows);
          expect(Buffer.from(first?.hashes ?? []).equals(Buffer.from(alone.hashes))).toBe(true);
          expect(first?.nulls ? [...first.nulls] : null).toEqual(alone.nulls ? [...alone.nulls] : null);
          expect(first?.values ?? undefined).toBeUndefined();
          expect(layout.rows).toEqual(metadata.row_groups.map((g) => Number(g.num_rows)));
          expect(layout.rows.length).toBe(5);
          for (let g = 0; g < layout.rows.length; g++) {
            const meta = metadata.row_groups[g]?.columns[leaf]?.meta_data;
            const start = Number(meta?.dictionary_page_offset || meta?.data_page_offset);
            const length = Number(meta?.total_compressed_size);
            expect(layout.chunkBytes[g]).toBe(length);
            expect(layout.uncompressedBytes[g]).toBe(Number(meta?.total_uncompressed_size));
            const parts = [footer, file.subarray(start, start + length)];
            const fetched = await native.hashColumnValues(
              size,
              [size - footerLength, start],
              parts,
              g,
              leaf,
              3,
              4,
              true,
            );
            const fromPath = await native.hashFileColumnValues(path, size, g, leaf, 3, 4, g % 2 === 0);
            expect(fromPath.rows).toBe(fetched.rows);
            expect(Buffer.from(fromPath.hashes).equals(Buffer.from(fetched.hashes))).toBe(true);
            expect(fromPath.nulls ? [...fromPath.nulls] : null).toEqual(
              fetched.nulls ? [...fetched.nulls] : null,
            );
            if (g % 2 === 0) {
              expect(Buffer.from(fromPath.values).equals(Buffer.from(fetched.values))).toBe(true);
              expect(Buffer.from(fromPath.offsets).equals(Buffer.from(fetched.offsets))).toBe(true);
            } else expect(fromPath.values ?? undefined).toBeUndefined();
          }
        }
        // A column the file lacks is absent; nested, repeated or non-byte-array columns are refused, as are a
        // file of another length, a missing file and a non-Parquet file.
        expect((await native.fileColumnLayout(path, size, "no_such_col")).present).toBe(false);
        expect(
          (await native.fileColumnLayout(path, size, "no_such_col", 3, 4)).first ?? undefined,
        ).toBeUndefined();
        for (const column of ["struct_col", "list_col", "int_col", "long_col"]) {
          await expect(native.fileColumnLayout(path, size, column), column).rejects.toThrow(
            /not a top-level/,
          );
        }
        await expect(native.fileColumnLayout(path, size + 1, "string_col")).rejects.toThrow(/expected/);
        await expect(native.hashFileColumnValues(path, size - 1, 0, 0, 1, 2)).rejects.toThrow(/expected/);
        await expect(native.hashFileColumnValues(path, size, 9, 0, 1, 2)).rejects.toThrow(/row group 9/);
        const missing = join(local, "missing.parquet");
        await expect(native.fileColumnLayout(missing, 10, "string_col")).rejects.toThrow(/cannot open/);
        await expect(native.hashFileColumnValues(missing, 10, 0, 0, 1, 2)).rejects.toThrow(/cannot open/);
        writeFileSync(join(local, "junk.parquet"), new Uint8Array([1, 2, 3]));
        await expect(native.fileColumnLayout(join(local, "junk.parquet"), 3, "string_col")).rejects.toThrow();
      } finally {
        rmSync(local, { recursive: true, force: true });
      }
    });

    it("a file below holdBelowBytes comes out whole as one buffer; above it, row group by row group", async () => {
      const ipc = await typeMatrixIpc(7, 600);
      const file = native.writeParquet(native.Table.fromIPCStream(ipc), props(native, "SNAPPY", 60, []));
      const chunksOf = async (holdBelowBytes?: number) => {
        const batches = native.readParquet(file, { batchSize: 50 }).recordBatches();
        const chunks: Uint8Array[] = [];
        const options = holdBelowBytes === undefined ? undefined : { holdBelowBytes };
        const output = native.transformParquetStream(batches, props(native, "SNAPPY", 60, []), options);
        for await (const chunk of output) chunks.push(chunk);
        return chunks;
      };
      const streamedChunks = await chunksOf();
      expect(streamedChunks.length).toBeGreaterThan(5); // ten row groups, then the footer
      const whole = Buffer.concat(streamedChunks);
      const held = await chunksOf(whole.byteLength + 1);
      expect(held).toHaveLength(1);
      expectSameParquet(Buffer.from(held[0] as Uint8Array), whole);
      // Held until the file passes the bound, then handed out as it flushes.
      const partly = await chunksOf(Math.floor(whole.byteLength / 2));
      expect(partly.length).toBeGreaterThan(1);
      expect(partly.length).toBeLessThan(streamedChunks.length);
      expect(partly[0]?.byteLength).toBeGreaterThanOrEqual(Math.floor(whole.byteLength / 2));
      expectSameParquet(Buffer.concat(partly), whole);
    });

    it("keepRanges copies the rows of its ranges into one batch: the same file as their slices", async () => {
      const ipc = await typeMatrixIpc(5, 300);
      const properties = () => props(native, "SNAPPY", 1000, []);
      const file = native.writeParquet(native.Table.fromIPCStream(ipc), properties());
      const ranges: [number, number][] = [
        [0, 3],
        [4, 5],
        [17, 120],
        [121, 299],
      ];
      const batchOf = () => native.readParquet(file, { rowGroups: [0], batchSize: 300 }).recordBatches()[0];
      const whole = batchOf();
      const kept = whole.keepRanges(
        ranges.map(([start]) => start),
        ranges.map(([, end]) => end),
      );
      expect(kept.numRows).toBe(ranges.reduce((n, [start, end]) => n + end - start, 0));
      const sliced = batchOf();
      const slices = ranges.map(([start, end]) => sliced.slice(start, end - start));
      expectSameParquet(
        await streamed(native, [kept], properties()),
        await streamed(native, slices, properties()),
      );
      // Ranges that overlap, descend or run past the batch are refused.
      expect(() => whole.keepRanges([0, 2], [3, 4])).toThrow(/ascend/);
      expect(() => whole.keepRanges([5], [4])).toThrow(/ascend/);
      expect(() => whole.keepRanges([0], [301])).toThrow(/ascend/);
      expect(() => whole.keepRanges([0, 1], [1])).toThrow(/differ in length/);
      whole.free();
      sliced.free();
    });

    it("bad input is a thrown error, and the process goes on", async () => {
      const ipc = await typeMatrixIpc(4, 50);
      const file = native.writeParquet(native.Table.fromIPCStream(ipc), props(native, "SNAPPY", 50, []));
      expect(() => native.readParquet(file, { rowGroups: [7] })).toThrow(/row group 7/);
      expect(() => native.readParquet(new Uint8Array([1, 2, 3]))).toThrow();
      expect(() => native.Table.fromIPCStream(new Uint8Array(64))).toThrow();
      const table = native.readParquet(file, { rowGroups: [0] });
      const [batch] = table.recordBatches();
      expect(() => batch.slice(10, 100)).toThrow(/past the batch/);
      const other = native.Table.fromIPCStream(tableToIPC(tableFromIPC(ipc).select(["int_col"]), "stream"));
      expect(() => batch.withSchema(other.schema)).toThrow();
      batch.free();
      expect(() => batch.numRows).toThrow(/after free/);
      expect(native.wasmMemory().buffer.byteLength).toBeGreaterThan(1 << 16);
      // Value hashes: parts that do not match, a range not given, a leaf that is no byte array.
      const size = file.byteLength;
      const footerLength = new DataView(file.buffer, file.byteOffset + size - 8, 4).getUint32(0, true) + 8;
      const footer = file.subarray(size - footerLength);
      expect(() => native.hashColumnValues(size, [0, 1], [footer], 0, 0, 1, 2)).toThrow(/do not match/);
      await expect(
        native.hashColumnValues(size, [size - footerLength], [footer], 0, 0, 1, 2),
      ).rejects.toThrow(/not among the fetched ranges/);
      await expect(native.hashColumnValues(size, [0], [file], 9, 0, 1, 2)).rejects.toThrow(/row group 9/);
      await expect(native.hashColumnValues(size, [0], [new Uint8Array(64)], 0, 0, 1, 2)).rejects.toThrow();
    });
  },
);
