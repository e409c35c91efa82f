/**
 * On a local store and the native engine the encoder worker writes each file straight into the store's local
 * target (parquet-native `writeParquetFile`), and the store links it into place: the files are byte for byte
 * those the chunked path stores through the sink, nothing is left behind when a write fails or is aborted,
 * and an existing key is never overwritten. With DELTALITE_DIRECT_IO=1, where the filesystem allows, the
 * native engine writes around the page cache (O_DIRECT, in aligned chunks and a cached tail), and by default
 * through it: the same bytes either way. On parquet-wasm the same writes take the sink path.
 */
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  InMemoryStore,
  LocalFileStore,
  type MultipartPutOptions,
  type PutResult,
} from "@deltalite/object-store";
import { makeVector, type RecordBatch, Table, type Vector } from "apache-arrow";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { parquetEngineEntry, parquetEngineName } from "../src/engine.js";
import {
  type ParquetPassthrough,
  parquetFileStream,
  passthroughOf,
  readParquetObjects,
  type WrittenFile,
  writeParquetFiles,
} from "../src/index.js";
import { sequenceTable } from "./write-helpers.js";

const inPlace = parquetEngineName() === "native";
const schema = sequenceTable(0, 1, 12).schema;

/** A local store that counts the puts it is asked for (its `put` is a `putMultipart`; a file written in place is neither). */
class CountingLocalStore extends LocalFileStore {
  puts = 0;
  override async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    this.puts++;
    return super.putMultipart(key, chunks, options);
  }
}

/** `count` batches of 5,000 rows (payloads `width` long). */
async function* batches(count: number, width = 12): AsyncGenerator<RecordBatch> {
  for (let b = 0; b < count; b++) {
    yield sequenceTable(b * 5000, 5000, width).batches[0] as RecordBatch;
  }
}

/** Whether `dir`'s filesystem opens files for direct I/O (Linux O_DIRECT). */
function acceptsDirectIo(dir: string): boolean {
  const probe = join(dir, "direct-probe");
  writeFileSync(probe, "");
  try {
    closeSync(openSync(probe, constants.O_WRONLY | (constants.O_DIRECT ?? 0)));
    return constants.O_DIRECT !== undefined;
  } catch {
    return false;
  } finally {
    rmSync(probe);
  }
}

/**
 * One of the native engine's process-wide counters so far: `directFilesOpened` (files written around the page
 * cache), `syncsBehind` (syncs of a file written through it, made while writing it), `samplesFromCursor`
 * (dictionary samples taken from a passed-through file's batches), `filesMapped` (local files decoded through
 * a read-only mapping).
 */
type EngineCounter = "directFilesOpened" | "syncsBehind" | "samplesFromCursor" | "filesMapped";
function engineCount(counter: EngineCounter): number {
  const engine = createRequire(import.meta.url)(parquetEngineEntry()) as Record<EngineCounter, () => number>;
  return engine[counter]();
}

/** Whether the native engine maps the files under `dir` to decode them: Linux, on a local file system. */
function mapsFilesUnder(dir: string): boolean {
  // statfs(2) magic numbers: ext2/3/4, XFS, Btrfs, tmpfs, overlayfs, F2FS (parquet-native local_file.rs).
  const local = [0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0xf2f52010];
  return process.platform === "linux" && local.includes(statfsSync(dir).type);
}

/**
 * `sequenceTable(0, rows, 12)` with `x` distinct in the first 400 rows and one value after them: a dictionary
 * sample of the first 500 rows judges `x` PLAIN, one of the first 1,000 keeps its dictionary.
 */
function sampleSensitiveTable(rows: number): Table {
  const table = sequenceTable(0, rows, 12);
  const x = Float64Array.from({ length: rows }, (_, i) => (i < 400 ? i / 4 : 0.5));
  return new Table({
    id: table.getChild("id") as Vector,
    payload: table.getChild("payload") as Vector,
    x: makeVector(x),
  });
}

/** Waits (up to 5 s) for `ready`: the native engine's background syncs finish on their own thread. */
async function eventually(ready: () => boolean): Promise<boolean> {
  for (let waited = 0; !ready() && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  return ready();
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(dir.length + 1))
    .sort();
}

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "deltalite-in-place-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe(`files written in place on a local store (${inPlace ? "native engine: in place" : "parquet-wasm: through the sink"})`, () => {
  it("writes the bytes the sink path stores, rolls over and describes each file the same way", async () => {
    const dir = scratch();
    const local = new CountingLocalStore(dir);
    const memory = new InMemoryStore();
    const options = (prefix: string) => {
      let n = 0;
      return {
        schema,
        nextKey: () => `part=a/${prefix}${n++}.parquet`,
        maxRowGroupRows: 7_000,
        targetFileSize: 300_000,
        codec: "snappy" as const,
      };
    };
    const there = await writeParquetFiles(local, batches(12), options("f"));
    const here = await writeParquetFiles(memory, batches(12), options("f"));
    expect(there.length).toBeGreaterThan(2); // rolled over
    expect(there.map(({ key, size, numRows }) => ({ key, size, numRows }))).toEqual(
      here.map(({ key, size, numRows }) => ({ key, size, numRows })),
    );
    for (const [i, file] of there.entries()) {
      const bytes = readFileSync(join(dir, file.key));
      expect(Buffer.from(await memory.get(file.key)).equals(bytes)).toBe(true);
      expect(file.metadata).toEqual((here[i] as WrittenFile).metadata);
    }
    expect(local.puts).toBe(inPlace ? 0 : there.length);
    expect(filesUnder(dir)).toEqual(there.map((f) => f.key).sort()); // no temp file left
    const ids = await readParquetObjects(local, there[0]?.key as string, {
      size: there[0]?.size as number,
      columns: ["id"],
    });
    expect(ids.map((row) => row.id)).toEqual(Array.from({ length: ids.length }, (_, i) => BigInt(i)));
  });

  it.each([
    ["through the page cache (the default)", undefined],
    ["around the page cache where the filesystem allows (DELTALITE_DIRECT_IO=1)", "1"],
  ])("files of several MiB, written %s: the sink path's bytes", async (_how, switchValue) => {
    const dir = scratch();
    const direct = inPlace && switchValue === "1" && acceptsDirectIo(dir);
    const before = inPlace ? engineCount("directFilesOpened") : 0;
    const syncsBefore = inPlace ? engineCount("syncsBehind") : 0;
    const local = new LocalFileStore(dir);
    const memory = new InMemoryStore();
    const options = (prefix: string) => {
      let n = 0;
      return {
        schema: sequenceTable(0, 1, 200).schema,
        nextKey: () => `${prefix}${n++}.parquet`,
        maxRowGroupRows: 7_000,
        targetFileSize: 3_500_000, // files of about 4 MB: several 1 MiB direct chunks, then a tail
        codec: "uncompressed" as const,
      };
    };
    const saved = process.env.DELTALITE_DIRECT_IO;
    if (switchValue === undefined) delete process.env.DELTALITE_DIRECT_IO;
    else process.env.DELTALITE_DIRECT_IO = switchValue; // the addon reads it as each file opens
    let there: WrittenFile[];
    try {
      there = await writeParquetFiles(local, batches(10, 200), options("d"));
    } finally {
      if (saved === undefined) delete process.env.DELTALITE_DIRECT_IO;
      else process.env.DELTALITE_DIRECT_IO = saved;
    }
    const here = await writeParquetFiles(memory, batches(10, 200), options("d"));
    expect(there.length).toBeGreaterThan(1);
    expect(there.slice(0, -1).every((file) => file.size > 3 * 1024 * 1024)).toBe(true);
    for (const [i, file] of there.entries()) {
      const bytes = readFileSync(join(dir, file.key));
      expect(bytes.byteLength).toBe(file.size);
      expect(Buffer.from(await memory.get(file.key)).equals(bytes)).toBe(true);
      expect(file.metadata).toEqual((here[i] as WrittenFile).metadata);
    }
    if (inPlace) expect(engineCount("directFilesOpened") - before).toBe(direct ? there.length : 0);
    // Through the cache, each file of several row groups is synced behind its writer as row groups flush (Linux).
    if (inPlace && !direct && process.platform === "linux")
      expect(await eventually(() => engineCount("syncsBehind") - syncsBefore >= there.length)).toBe(true);
    expect(filesUnder(dir)).toEqual(there.map((f) => f.key).sort());
  });

  it.skipIf(!inPlace)(
    "passed-through files (from their paths, rows skipped, the dictionary judged on their sample): the worker's bytes",
    async () => {
      // Source files of 10,000 rows (one row group, or groups of 3,000 or 2,000), on disk for the stream and as
      // bytes for the worker. Their `x` is distinct in the first 400 rows only, so a dictionary sample of other
      // rows than the worker's (which decodes its sample apart) can judge `x` otherwise and change the bytes.
      const dir = scratch();
      const sources = new Map<
        number,
        { path: string; bytes: Uint8Array; metadata: WrittenFile["metadata"] }
      >();
      for (const groupRows of [10_000, 3000, 2000]) {
        const memory = new InMemoryStore();
        const [source] = await writeParquetFiles(memory, sampleSensitiveTable(10_000).batches, {
          schema,
          nextKey: () => "in.parquet",
          maxRowGroupRows: groupRows,
          codec: "zstd",
        });
        const bytes = await memory.get("in.parquet");
        const path = join(dir, `in-${groupRows}.parquet`);
        writeFileSync(path, bytes);
        sources.set(groupRows, { path, bytes, metadata: (source as WrittenFile).metadata });
      }
      const written = async (store: LocalFileStore | InMemoryStore, from: "path" | "bytes", knobs: Knobs) => {
        const { path, bytes, metadata } = sources.get(knobs.sourceGroupRows) as NonNullable<
          ReturnType<typeof sources.get>
        >;
        const unit = (skip: number[]) =>
          passthroughOf(
            from === "path" ? { path, size: bytes.byteLength } : { bytes: new Uint8Array(bytes) },
            metadata,
            () => undefined,
            skip.length > 0 ? Int32Array.from(skip) : undefined,
            undefined,
            { batchRows: knobs.judgeRows },
          );
        const batch = sequenceTable(20_000, knobs.batchRows, 12).batches[0] as RecordBatch;
        const inputs = knobs.unitFirst
          ? [unit(knobs.skip), batch, unit(knobs.skipAgain)]
          : [batch, unit(knobs.skip), unit(knobs.skipAgain)];
        let n = 0;
        const files = await writeParquetFiles(store, inputs, {
          schema,
          nextKey: () => `out/${n++}.parquet`,
          // The stream decodes a passed-through file in batches of this many rows (its rows are small).
          maxRowGroupRows: knobs.rowGroupRows,
          targetFileSize: knobs.targetFileSize,
        });
        const contents = [];
        for (const file of files) contents.push(Buffer.from(await store.get(file.key)));
        return { files: files.map(({ key, size, numRows }) => ({ key, size, numRows })), contents };
      };
      type Knobs = {
        sourceGroupRows: number;
        skip: number[];
        skipAgain: number[];
        judgeRows: number;
        rowGroupRows: number;
        targetFileSize: number;
        batchRows: number;
        unitFirst: boolean;
      };
      const skips = fc
        .uniqueArray(fc.integer({ min: 0, max: 9999 }), { maxLength: 300 })
        .map((rows) => rows.sort((a, b) => a - b));
      const firstRows = (n: number) => Array.from({ length: n }, (_, i) => i);
      // Where the stream's batches tile the sample's, it takes the sample from them (samplesFromCursor):
      // a sample of two batches, of ten (the whole one-group file), after a first sample batch skipped whole;
      // then a first row group skipped whole, and a sample of 600 rows in batches of 1,000 (both decoded apart:
      // the first 1,000 rows would judge `x` otherwise).
      const tiled = (knobs: Partial<Knobs>): [Knobs] => [
        {
          sourceGroupRows: 10_000,
          skip: [],
          skipAgain: [],
          judgeRows: 1000,
          rowGroupRows: 500,
          targetFileSize: 400_000,
          batchRows: 10,
          unitFirst: true,
          ...knobs,
        },
      ];
      const examples = [
        tiled({}),
        tiled({ judgeRows: 12_000, rowGroupRows: 1000, skip: [5, 999, 4000] }),
        tiled({ sourceGroupRows: 3000, judgeRows: 2000, rowGroupRows: 1000, skip: firstRows(1000) }),
        tiled({ judgeRows: 3000, rowGroupRows: 1500, skip: firstRows(3200) }),
        tiled({ sourceGroupRows: 2000, rowGroupRows: 500, skip: firstRows(3200) }),
        tiled({ judgeRows: 600, rowGroupRows: 1000 }),
      ];
      const numRuns = 30;
      const fromCursorBefore = engineCount("samplesFromCursor");
      const mappedBefore = engineCount("filesMapped");
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            sourceGroupRows: fc.constantFrom(10_000, 3000, 2000),
            skip: fc.oneof(skips, fc.constant(firstRows(3200))),
            skipAgain: skips,
            judgeRows: fc.oneof(fc.integer({ min: 100, max: 4000 }), fc.constantFrom(1000, 3000, 12_000)),
            rowGroupRows: fc.oneof(fc.integer({ min: 500, max: 6000 }), fc.constantFrom(500, 1000, 1500)),
            targetFileSize: fc.integer({ min: 20_000, max: 400_000 }),
            batchRows: fc.integer({ min: 1, max: 5000 }),
            unitFirst: fc.boolean(),
          }),
          async (knobs) => {
            const inPlaceFiles = await written(
              new LocalFileStore(join(dir, `t${Math.random()}`)),
              "path",
              knobs,
            );
            const workerFiles = await written(new InMemoryStore(), "bytes", knobs);
            expect(inPlaceFiles.files).toEqual(workerFiles.files);
            for (const [i, content] of inPlaceFiles.contents.entries())
              expect(content.equals(workerFiles.contents[i] as Buffer)).toBe(true);
          },
        ),
        { numRuns, examples },
      );
      // The first four examples take their sample from the stream's batches; the last two decode it apart.
      expect(engineCount("samplesFromCursor") - fromCursorBefore).toBeGreaterThanOrEqual(4);
      // Every run passes two files through from their paths; where the engine maps them, it read them so.
      if (mapsFilesUnder(dir))
        expect(engineCount("filesMapped") - mappedBefore).toBeGreaterThanOrEqual(
          2 * (numRuns + examples.length),
        );
      else expect(engineCount("filesMapped")).toBe(mappedBefore);
    },
  );

  it("an encoder failure mid-write leaves the files before it whole and nothing of the one it was writing", async () => {
    const dir = scratch();
    const store = new LocalFileStore(dir);
    // A file whose pages do not decode (its footer intact): passed through after 30 batches, it fails the
    // encoder with a file half written.
    const memory = new InMemoryStore();
    const [whole] = await writeParquetFiles(memory, [sequenceTable(0, 5000, 12).batches[0] as RecordBatch], {
      schema,
      nextKey: () => "whole.parquet",
      codec: "uncompressed",
    });
    const bytes = (await memory.get("whole.parquet")).slice();
    const footerLength = new DataView(bytes.buffer).getUint32(bytes.byteLength - 8, true);
    bytes.fill(0xff, 4, bytes.byteLength - footerLength - 8);
    const broken = passthroughOf({ bytes }, (whole as WrittenFile).metadata, () => undefined);
    async function* inputs(): AsyncGenerator<RecordBatch | ParquetPassthrough> {
      for (let b = 0; b < 40; b++) {
        if (b === 30) yield broken;
        yield sequenceTable(b * 5000, 5000, 12).batches[0] as RecordBatch;
      }
    }
    let n = 0;
    const written: WrittenFile[] = [];
    const failure = await (async () => {
      for await (const file of parquetFileStream(store, inputs(), {
        schema,
        nextKey: () => `f${n++}.parquet`,
        maxRowGroupRows: 5_000,
        targetFileSize: 2_000_000, // about four batches a file
        codec: "uncompressed",
      }))
        written.push(file);
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: "generic" });
    expect(written.length).toBeGreaterThan(0);
    expect(filesUnder(dir)).toEqual(written.map((f) => f.key).sort());
  });

  it("an abort mid-write leaves nothing of the file being written", async () => {
    const dir = scratch();
    const store = new LocalFileStore(dir);
    const controller = new AbortController();
    async function* slow(): AsyncGenerator<RecordBatch> {
      for (let b = 0; b < 20; b++) {
        if (b === 6) {
          // Let the worker write the first row groups into its target, then abort while it writes.
          await new Promise((resolve) => setTimeout(resolve, 200));
          controller.abort(new Error("stop"));
        }
        yield sequenceTable(b * 5000, 5000, 12).batches[0] as RecordBatch;
      }
    }
    const failure = await writeParquetFiles(store, slow(), {
      schema,
      nextKey: () => "only.parquet",
      maxRowGroupRows: 5_000,
      targetFileSize: 1 << 30,
      signal: controller.signal,
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: "aborted" });
    expect(filesUnder(dir)).toEqual([]);
  });

  it("never overwrites an object already at the key: already_exists, the object unchanged", async () => {
    const dir = scratch();
    const store = new LocalFileStore(dir);
    await store.put("taken.parquet", new TextEncoder().encode("someone else's"));
    const failure = await writeParquetFiles(store, batches(2), {
      schema,
      nextKey: () => "taken.parquet",
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: "already_exists" });
    expect(readFileSync(join(dir, "taken.parquet"), "utf8")).toBe("someone else's");
    expect(filesUnder(dir)).toEqual(["taken.parquet"]);
  });
});
