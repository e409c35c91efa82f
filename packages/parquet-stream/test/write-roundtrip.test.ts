import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore, listAll, openStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { Field, Int32, Int64, type RecordBatch, Schema, Struct, tableFromIPC } from "apache-arrow";
import { parquetMetadata } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CREATED_BY, FOOTER_PARSERS, type ParquetCodec, writeParquetFiles } from "../src/index.js";
import { batchOf, canonicalRows, sequenceTable } from "./write-helpers.js";

interface CanonicalFiles {
  rows: Record<string, unknown>[];
  files: {
    num_rows: number;
    created_by: string;
    row_groups: { num_rows: number; total_byte_size: number }[];
    compression: string[];
  }[];
}

let oracle: Oracle;
let dir: string;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await mkdtemp(join(tmpdir(), "deltalite-write-"));
});

afterAll(async () => {
  oracle.close();
  await rm(dir, { recursive: true, force: true });
});

async function typeMatrix(name: string, seed: number, rows: number): Promise<RecordBatch[]> {
  const path = join(dir, `${name}.arrow`);
  await oracle.call("parquet_type_matrix", { out: path, rows, seed });
  return tableFromIPC(await readFile(path)).batches;
}

function keys(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}/part-${String(n++).padStart(5, "0")}.parquet`;
}

describe("writeParquetFiles: the Delta type matrix round-trips through pyarrow and delta-rs", () => {
  it.each<[number, ParquetCodec]>([
    [1, "snappy"],
    [2, "zstd"],
    [3, "uncompressed"],
    [4, "snappy"],
  ])("seed %i, %s: pyarrow and delta-rs read back exactly the rows we wrote", async (seed, codec) => {
    const batches = await typeMatrix(`matrix-${seed}`, seed, 400);
    const tableDir = join(dir, `table-${seed}`);
    const store = new LocalFileStore(tableDir);
    const files = await writeParquetFiles(store, batches, {
      schema: batches[0]!.schema,
      nextKey: keys("data"),
      codec,
      maxRowGroupRows: 150,
    });
    expect(files).toHaveLength(1);
    const [file] = files;
    expect(file!.numRows).toBe(400);
    expect(file!.metadata.row_groups.map((rg) => Number(rg.num_rows))).toEqual([150, 150, 100]);
    // DataPage V1 (as delta-rs writes), per the footer's page encoding stats.
    const pageTypes = new Set(
      file!.metadata.row_groups.flatMap((rg) =>
        rg.columns.flatMap((c) => (c.meta_data?.encoding_stats ?? []).map((e) => e.page_type)),
      ),
    );
    expect([...pageTypes].sort()).toEqual(["DATA_PAGE", "DICTIONARY_PAGE"]);
    const expected = canonicalRows(batches);

    const fromPyarrow = await oracle.call<CanonicalFiles>("parquet_canonical", {
      files: [join(tableDir, file!.key)],
    });
    expect(fromPyarrow.rows).toEqual(expected);
    expect(fromPyarrow.files[0]!.compression).toEqual([codec.toUpperCase()]);
    expect(fromPyarrow.files[0]!.created_by).toBe(DEFAULT_CREATED_BY);

    const fromDeltaRs = await oracle.call<{ rows: unknown[] }>("delta_read_parquet", {
      dir: tableDir,
      files: [{ path: file!.key, size: file!.size }],
    });
    // DataFusion scans row groups in parallel: compare delta-rs's rows as a multiset.
    const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(fromDeltaRs.rows)).toEqual(sorted(expected));
  });

  it("returns the footer parsed from the streamed bytes, equal to parsing the stored object", async () => {
    const batches = await typeMatrix("footer", 9, 120);
    const store = new CountingStore(new LocalFileStore(join(dir, "footer")));
    const [file] = await writeParquetFiles(store, batches, {
      schema: batches[0]!.schema,
      nextKey: keys("f"),
    });
    expect(store.counts.get.calls).toBe(0);
    const bytes = await readFile(join(dir, "footer", file!.key));
    expect(file!.size).toBe(bytes.byteLength);
    expect(file!.metadata).toEqual(parquetMetadata(new Uint8Array(bytes), { parsers: FOOTER_PARSERS }));
    expect(Number(file!.metadata.num_rows)).toBe(120);
  });
});

describe("writeParquetFiles: row groups and file rollover follow the knobs", () => {
  const rows = 120_000;
  const input = () => sequenceTable(0, rows).batches;

  it("closes a row group every maxRowGroupRows rows", async () => {
    const store = new LocalFileStore(join(dir, "rg-rows"));
    const files = await writeParquetFiles(store, input(), {
      schema: sequenceTable(0, 1).schema,
      nextKey: keys("d"),
      maxRowGroupRows: 25_000,
    });
    expect(files).toHaveLength(1);
    expect(files[0]!.metadata.row_groups.map((rg) => Number(rg.num_rows))).toEqual([
      25_000, 25_000, 25_000, 25_000, 20_000,
    ]);
  });

  it("closes a row group at maxRowGroupBytes of uncompressed data", async () => {
    const store = new LocalFileStore(join(dir, "rg-bytes"));
    const cap = 512 * 1024;
    const files = await writeParquetFiles(store, input(), {
      schema: sequenceTable(0, 1).schema,
      nextKey: keys("d"),
      maxRowGroupBytes: cap,
      codec: "uncompressed",
    });
    const groups = files[0]!.metadata.row_groups;
    const total = groups.reduce((n, rg) => n + Number(rg.total_byte_size), 0);
    expect(groups.length).toBeGreaterThanOrEqual(Math.floor(total / cap));
    // Every group but the last is near the cap: parquet-rs closes it once the estimate reaches the cap.
    for (const rg of groups.slice(0, -1)) {
      expect(Number(rg.total_byte_size)).toBeGreaterThan(cap * 0.8);
      expect(Number(rg.total_byte_size)).toBeLessThan(cap * 1.2);
    }
    expect(groups.reduce((n, rg) => n + Number(rg.num_rows), 0)).toBe(rows);
  });

  it("rolls over to a new file at the first row-group boundary at or beyond targetFileSize", async () => {
    const root = join(dir, "rollover");
    const store = new LocalFileStore(root);
    const target = 400 * 1024;
    const batches = input();
    const files = await writeParquetFiles(store, batches, {
      schema: batches[0]!.schema,
      nextKey: keys("d"),
      maxRowGroupRows: 10_000,
      targetFileSize: target,
    });
    expect(files.length).toBeGreaterThan(2);
    for (const file of files.slice(0, -1)) {
      const groups = file.metadata.row_groups;
      const lastGroup = groups[groups.length - 1]!;
      const bytesBeforeLastGroup = groups
        .slice(0, -1)
        .reduce(
          (n, rg) =>
            n + Number(rg.columns.reduce((m, c) => m + Number(c.meta_data!.total_compressed_size), 0)),
          4,
        );
      expect(file.size).toBeGreaterThanOrEqual(target);
      expect(bytesBeforeLastGroup).toBeLessThan(target);
      expect(Number(lastGroup.num_rows)).toBeLessThanOrEqual(10_000);
    }
    expect(files.reduce((n, f) => n + f.numRows, 0)).toBe(rows);
    const read = await oracle.call<CanonicalFiles>("parquet_canonical", {
      files: files.map((f) => join(root, f.key)),
    });
    expect(read.rows).toEqual(canonicalRows(batches));
    expect(read.files.map((f) => f.row_groups.length)).toEqual(
      files.map((f) => f.metadata.row_groups.length),
    );
  });
});

describe("writeParquetFiles through the S3 store (moto)", () => {
  it.each([
    ["one put below the multipart threshold", 20_000, 64 * 1024 * 1024, 0],
    ["a multipart put above it", 150_000, 5 * 1024 * 1024, 1],
  ])("%s: pyarrow reads the object back", async (_label, rows, threshold, multipartCalls) => {
    const s3 = testS3();
    const bucket = await s3.createBucket(`write-${rows}-${Date.now()}`);
    const store = new CountingStore(
      await openStore(`s3://${bucket}/t`, { storageOptions: s3.storageOptions }),
    );
    const batches = sequenceTable(7, rows, 40).batches;
    const files = await writeParquetFiles(store, batches, {
      schema: batches[0]!.schema,
      nextKey: keys("data"),
      multipartThresholdBytes: threshold,
      multipartPartSizeBytes: 5 * 1024 * 1024,
      multipartConcurrency: 2,
      codec: "uncompressed",
    });
    expect(files).toHaveLength(1);
    expect(store.counts.putMultipart.calls).toBe(multipartCalls);
    expect(store.counts.put.calls).toBe(1 - multipartCalls);
    const head = await store.head(files[0]!.key);
    expect(head.size).toBe(files[0]!.size);
    if (multipartCalls) expect(files[0]!.size).toBeGreaterThan(threshold);
    const read = await oracle.call<CanonicalFiles>("parquet_canonical", {
      files: [`s3://${bucket}/t/${files[0]!.key}`],
      storage_options: s3.storageOptions,
    });
    expect(read.rows).toEqual(canonicalRows(batches));
  });
});

describe("writeParquetFiles: failures", () => {
  it("never overwrites: a key that exists fails with already_exists", async () => {
    const store = new LocalFileStore(join(dir, "exists"));
    await store.put("d/taken.parquet", new Uint8Array([1, 2, 3]));
    const batches = sequenceTable(0, 10).batches;
    const error = await writeParquetFiles(store, batches, {
      schema: batches[0]!.schema,
      nextKey: () => "d/taken.parquet",
    }).catch((e: unknown) => e);
    expect(isDeltaLiteError(error) && error.kind).toBe("already_exists");
    expect(await store.get("d/taken.parquet")).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("rejects a batch whose schema differs with schema_mismatch and leaves no object", async () => {
    const store = new LocalFileStore(join(dir, "mismatch"));
    const good = sequenceTable(0, 10).batches;
    const other = tableFromIPC(
      await readFile(
        await oracle
          .call("parquet_type_matrix", { out: join(dir, "m.arrow"), rows: 5, seed: 1 })
          .then(() => join(dir, "m.arrow")),
      ),
    ).batches;
    const error = await writeParquetFiles(store, [...good, ...other], {
      schema: good[0]!.schema,
      nextKey: keys("d"),
    }).catch((e: unknown) => e);
    expect(isDeltaLiteError(error) && error.kind).toBe("schema_mismatch");
    expect(await listAll(store, "")).toEqual([]);
  });

  it("stops with aborted when the signal fires mid-stream, leaving no object behind (multipart)", async () => {
    const s3 = testS3();
    const bucket = await s3.createBucket(`abort-${Date.now()}`);
    const store = await openStore(`s3://${bucket}`, { storageOptions: s3.storageOptions });
    const controller = new AbortController();
    async function* slowBatches(): AsyncGenerator<RecordBatch> {
      for (let i = 0; i < 30; i++) {
        if (i === 20) controller.abort();
        yield* sequenceTable(i * 20_000, 20_000, 40).batches;
      }
    }
    const error = await writeParquetFiles(store, slowBatches(), {
      schema: sequenceTable(0, 1, 40).schema,
      nextKey: keys("d"),
      codec: "uncompressed",
      maxRowGroupRows: 20_000,
      multipartThresholdBytes: 5 * 1024 * 1024,
      multipartPartSizeBytes: 5 * 1024 * 1024,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(isDeltaLiteError(error) && error.kind).toBe("aborted");
    // The store's conditional-put probe object (object-store s3.ts) is the only object at the root.
    expect((await listAll(store, "")).map((o) => o.key)).toEqual([".deltalite-conditional-put-probe"]);
  });

  it("rejects nulls in a column declared non-nullable (at any depth) with schema_mismatch", async () => {
    const store = new LocalFileStore(join(dir, "non-null"));
    const schema = new Schema([
      new Field("id", new Int64(), false),
      new Field("s", new Struct([new Field("a", new Int32(), false)]), true),
    ]);
    const good = batchOf(schema, { id: [1n, 2n], s: [{ a: 1 }, { a: 2 }] });
    const badTop = batchOf(schema, { id: [1n, null], s: [{ a: 1 }, null] });
    const badNested = batchOf(schema, { id: [1n, 2n], s: [{ a: 1 }, { a: null }] });
    for (const bad of [badTop, badNested]) {
      const error = await writeParquetFiles(store, [good, bad], {
        schema,
        nextKey: keys("d"),
      }).catch((e: unknown) => e);
      expect(isDeltaLiteError(error) && error.kind).toBe("schema_mismatch");
    }
    expect(await listAll(store, "")).toEqual([]);
  });

  it("accepts batches whose nullability flags differ from the schema's when they hold no nulls: every row lands", async () => {
    const store = new LocalFileStore(join(dir, "relabel"));
    const nullable = new Schema([new Field("id", new Int64(), true)]);
    const required = new Schema([new Field("id", new Int64(), false)]);
    const batches = [batchOf(required, { id: [1n, 2n] }), batchOf(nullable, { id: [3n, null] })];
    const files = await writeParquetFiles(store, batches, { schema: nullable, nextKey: keys("d") });
    expect(files.map((f) => f.numRows)).toEqual([4]);
    expect(Number(files[0]!.metadata.num_rows)).toBe(4);
  });

  it("writes no object for an input without rows", async () => {
    const store = new LocalFileStore(join(dir, "empty"));
    const files = await writeParquetFiles(store, [], {
      schema: sequenceTable(0, 1).schema,
      nextKey: keys("d"),
    });
    expect(files).toEqual([]);
    expect(await listAll(store, "")).toEqual([]);
  });
});
