import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore, type ObjectStore, openStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import type { RecordBatch } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openParquetReader } from "../src/index.js";
import { type CanonicalTable, canonBatches } from "./read-canonical.js";

interface ChunkInfo {
  path: string;
  start: number;
  end: number;
}
interface ChunkLayout {
  rowGroups: { numRows: number; chunks: ChunkInfo[] }[];
  footerBytes: number;
}

let oracle: Oracle;
let dir: string;
let file: string;
let size: number;
let layout: ChunkLayout;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "read-requests-"));
  file = "matrix.parquet";
  // 4,000 rows in 8 row groups: the file is well over the 64 KiB hint, its footer is several KiB.
  await oracle.call("parquet_write_type_matrix", {
    path: path.join(dir, file),
    rows: 4000,
    row_group_size: 500,
  });
  size = (await fs.stat(path.join(dir, file))).size;
  layout = await oracle.call<ChunkLayout>("parquet_column_chunks", { path: path.join(dir, file) });
});
afterAll(async () => {
  oracle.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const gets = (store: CountingStore) => store.log.filter((r) => r.method === "get").map((r) => r.range!);

describe("footer reads", () => {
  it("a footer under the 64 KiB hint costs exactly one ranged GET of the file's tail, and no HEAD", async () => {
    expect(size).toBeGreaterThan(65536);
    expect(layout.footerBytes + 8).toBeLessThan(65536);
    const store = new CountingStore(new LocalFileStore(dir));
    const reader = await openParquetReader(store, file, { size });
    expect(store.counts.head.calls).toBe(0);
    expect(gets(store)).toEqual([{ start: size - 65536, end: size }]);
    expect(reader.numRowGroups).toBe(layout.rowGroups.length);
  });

  it("a file smaller than the hint is read by one GET of the whole object", async () => {
    const small = "small.parquet";
    await oracle.call("parquet_write_type_matrix", { path: path.join(dir, small), rows: 20 });
    const smallSize = (await fs.stat(path.join(dir, small))).size;
    expect(smallSize).toBeLessThan(65536);
    const store = new CountingStore(new LocalFileStore(dir));
    const reader = await openParquetReader(store, small, { size: smallSize });
    expect(gets(store)).toEqual([{ start: 0, end: smallSize }]);
    // The data comes from those same bytes: reading every row group costs no further request.
    let rows = 0;
    for await (const batch of reader.readRowGroups()) rows += batch.numRows;
    expect(rows).toBe(20);
    expect(store.totalCalls).toBe(1);
  });

  it("a hint smaller than the footer costs a second GET of exactly the missing bytes", async () => {
    const hint = 1024;
    expect(layout.footerBytes + 8).toBeGreaterThan(hint);
    const store = new CountingStore(new LocalFileStore(dir));
    await openParquetReader(store, file, { size, footerHintBytes: hint });
    expect(gets(store)).toEqual([
      { start: size - hint, end: size },
      { start: size - (layout.footerBytes + 8), end: size - hint },
    ]);
  });

  it("a second reader given the first reader's metadata makes no footer GET", async () => {
    const store = new CountingStore(new LocalFileStore(dir));
    const first = await openParquetReader(store, file, { size });
    store.reset();
    const second = await openParquetReader(store, file, { size, metadata: first.metadata });
    expect(store.totalCalls).toBe(0);
    const batch = await second.readRowGroup(2, { columns: ["id"] });
    expect(batch.numRows).toBe(layout.rowGroups[2]!.numRows);
    const idChunk = layout.rowGroups[2]!.chunks.find((c) => c.path === "id")!;
    expect(gets(store)).toEqual([{ start: idChunk.start, end: idChunk.end }]);
  });
});

describe("projected reads fetch only the column chunks they need", () => {
  it.each([
    { columns: ["i64"], leaves: ["i64"] },
    { columns: ["s"], leaves: ["s"] },
    { columns: ["lst"], leaves: ["lst.list.element.x", "lst.list.element.y"] },
    { columns: ["m"], leaves: ["m.key_value.key", "m.key_value.value"] },
  ])(
    "$columns of one row group: GETs cover exactly the chunks of $leaves (per pyarrow's footer)",
    async ({ columns, leaves }) => {
      const store = new CountingStore(new LocalFileStore(dir));
      const reader = await openParquetReader(store, file, { size });
      store.reset();
      const group = 3;
      const batch = await reader.readRowGroup(group, { columns });
      expect(batch.numRows).toBe(layout.rowGroups[group]!.numRows);
      const chunks = layout.rowGroups[group]!.chunks.filter((c) => leaves.includes(c.path));
      expect(chunks.map((c) => c.path)).toEqual(leaves);
      // Adjacent chunks of one nested column are coalesced into one GET spanning exactly them.
      const expected = [{ start: chunks[0]!.start, end: chunks[chunks.length - 1]!.end }];
      for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBe(chunks[i - 1]!.end);
      expect(gets(store)).toEqual(expected);
      expect(reader.columnChunkRanges(group, columns)).toEqual(
        chunks.map((c) => ({ column: c.path, start: c.start, end: c.end })),
      );
    },
  );

  it("distant chunks are separate GETs when the gap exceeds the coalescing distance, one GET when it does not", async () => {
    const group = 1;
    const chunks = layout.rowGroups[group]!.chunks;
    const first = chunks.find((c) => c.path === "id")!;
    const last = chunks.find((c) => c.path === "i64_req")!;
    const gap = last.start - first.end;
    expect(gap).toBeGreaterThan(0);
    for (const [coalesce, expected] of [
      [gap - 1, [first, last].map(({ start, end }) => ({ start, end }))],
      [gap, [{ start: first.start, end: last.end }]],
    ] as const) {
      const store = new CountingStore(new LocalFileStore(dir));
      const reader = await openParquetReader(store, file, { size, rangeCoalesceGapBytes: coalesce });
      store.reset();
      await reader.readRowGroup(group, { columns: ["id", "i64_req"] });
      expect(gets(store).sort((a, b) => a.start - b.start)).toEqual(expected);
    }
  });

  it("a chunk larger than rangeGetPartSizeBytes is split into parts, at most rangeGetConcurrency in flight", async () => {
    const group = 0;
    const chunk = layout.rowGroups[group]!.chunks.find((c) => c.path === "i64_req")!;
    const partSize = Math.ceil((chunk.end - chunk.start) / 8);
    const parts = Math.ceil((chunk.end - chunk.start) / partSize);
    expect(parts).toBe(8);
    const inner = new InFlightStore(new LocalFileStore(dir));
    const store = new CountingStore(inner);
    const reader = await openParquetReader(store, file, {
      size,
      rangeGetPartSizeBytes: partSize,
      rangeGetConcurrency: 3,
    });
    store.reset();
    inner.maxInFlight = 0;
    const split = await reader.readRowGroup(group, { columns: ["i64_req"] });
    const ranges = gets(store).sort((a, b) => a.start - b.start);
    expect(ranges).toHaveLength(parts);
    expect(ranges[0]!.start).toBe(chunk.start);
    expect(ranges[ranges.length - 1]!.end).toBe(chunk.end);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
    expect(inner.maxInFlight).toBe(3);
    const whole = await (await openParquetReader(new LocalFileStore(dir), file, { size })).readRowGroup(
      group,
      {
        columns: ["i64_req"],
      },
    );
    expect(canonBatches(split.schema, [split])).toEqual(canonBatches(whole.schema, [whole]));
  });
});

describe("row-group-at-a-time reads", () => {
  it.each([0, 1])(
    "readAhead %i: one batch per row group, fetched no further ahead than readAhead",
    async (readAhead) => {
      const store = new CountingStore(new LocalFileStore(dir));
      const reader = await openParquetReader(store, file, { size });
      store.reset();
      const groupOf = (start: number) =>
        layout.rowGroups.findIndex((g) => g.chunks.some((c) => c.start <= start && start < c.end));
      let index = 0;
      for await (const batch of reader.readRowGroups({ readAhead })) {
        expect(batch.numRows).toBe(layout.rowGroups[index]!.numRows);
        // (GETs are logged when they complete, so a read-ahead GET may still be in flight here.)
        const furthest = Math.max(...gets(store).map((r) => groupOf(r.start)));
        expect(furthest).toBeGreaterThanOrEqual(index);
        expect(furthest).toBeLessThanOrEqual(index + readAhead);
        index++;
      }
      expect(index).toBe(layout.rowGroups.length);
      // Every GET lies inside one row group's column chunks: the file is never fetched whole.
      for (const range of gets(store)) {
        const g = groupOf(range.start);
        const chunks = layout.rowGroups[g]!.chunks;
        expect(range.end).toBeLessThanOrEqual(Math.max(...chunks.map((c) => c.end)));
      }
      expect(Math.max(...gets(store).map((r) => r.end - r.start))).toBeLessThan(size / 4);
    },
  );

  it("read-ahead shares the reader's rangeGetConcurrency: never more GETs in flight than it allows", async () => {
    const inner = new InFlightStore(new LocalFileStore(dir));
    const reader = await openParquetReader(inner, file, {
      size,
      rangeGetConcurrency: 2,
      rangeGetPartSizeBytes: 2048,
      rangeCoalesceGapBytes: 0,
    });
    inner.maxInFlight = 0;
    let groups = 0;
    for await (const _ of reader.readRowGroups({ readAhead: 2, columns: ["s", "i64_req", "lst"] })) groups++;
    expect(groups).toBe(layout.rowGroups.length);
    expect(inner.maxInFlight).toBe(2);
  });

  it("batchRows cuts row groups into slices; rowGroups picks and orders groups; values match pyarrow's", async () => {
    const reader = await openParquetReader(new LocalFileStore(dir), file, { size });
    const batches: RecordBatch[] = [];
    for await (const b of reader.readRowGroups({
      rowGroups: [5, 2],
      batchRows: 200,
      columns: ["id", "st", "f64"],
    })) {
      batches.push(b);
    }
    expect(batches.map((b) => b.numRows)).toEqual([200, 200, 100, 200, 200, 100]);
    const expected = await oracle.call<CanonicalTable>("parquet_read_canonical", {
      path: path.join(dir, file),
      row_groups: [5, 2],
      columns: ["id", "st", "f64"],
    });
    const actual = canonBatches(reader.schemaFor(["id", "st", "f64"]), batches);
    expect(actual.columns).toEqual(expected.columns);
  });
});

describe("reading from the real S3 server", () => {
  it("reads the matrix from moto over ranged GETs with the same values as pyarrow", async () => {
    const s3 = testS3();
    const bucket = `read-${Math.random().toString(16).slice(2, 10)}`;
    await s3.createBucket(bucket);
    const s3store = openStore(`s3://${bucket}/data`, { storageOptions: s3.storageOptions });
    await s3store.put(file, new Uint8Array(await fs.readFile(path.join(dir, file))));
    const store = new CountingStore(s3store);
    const reader = await openParquetReader(store, file, { size });
    expect(store.counts.get.calls).toBe(1);
    const batches: RecordBatch[] = [];
    for await (const b of reader.readRowGroups()) batches.push(b);
    const expected = await oracle.call<CanonicalTable>("parquet_read_canonical", {
      path: path.join(dir, file),
    });
    expect(canonBatches(reader.arrowSchema, batches).columns).toEqual(expected.columns);
    expect(store.counts.head.calls).toBe(0);
  });
});

describe("errors", () => {
  it("an aborted signal stops row-group iteration with kind aborted", async () => {
    const store = new CountingStore(new LocalFileStore(dir));
    const reader = await openParquetReader(store, file, { size });
    const controller = new AbortController();
    const seen: number[] = [];
    const run = (async () => {
      for await (const batch of reader.readRowGroups({ signal: controller.signal, readAhead: 0 })) {
        seen.push(batch.numRows);
        controller.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ kind: "aborted" });
    expect(seen).toHaveLength(1);
  });

  it("names the file and uses the closed kinds", async () => {
    const store = new LocalFileStore(dir);
    const reader = await openParquetReader(store, file, { size });
    await expect(reader.readRowGroup(0, { columns: ["nope"] })).rejects.toMatchObject({
      kind: "schema_mismatch",
    });
    await expect(reader.readRowGroup(99)).rejects.toMatchObject({ kind: "generic" });
    await expect(openParquetReader(store, file, { size: size - 1 })).rejects.toMatchObject({
      kind: "generic",
      message: expect.stringContaining(file),
    });
    await expect(openParquetReader(store, "missing.parquet", { size: 100 })).rejects.toMatchObject({
      kind: "not_found",
    });
  });
});

/** Delegates to a store and records the most GETs ever in flight at once. */
class InFlightStore implements ObjectStore {
  maxInFlight = 0;
  #inFlight = 0;
  constructor(readonly inner: ObjectStore) {}
  get root() {
    return this.inner.root;
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  async get(key: string, options?: Parameters<ObjectStore["get"]>[1]) {
    this.#inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.#inFlight);
    try {
      await new Promise((r) => setTimeout(r, 5));
      return await this.inner.get(key, options);
    } finally {
      this.#inFlight--;
    }
  }
  head: ObjectStore["head"] = (...a) => this.inner.head(...a);
  put: ObjectStore["put"] = (...a) => this.inner.put(...a);
  putMultipart: ObjectStore["putMultipart"] = (...a) => this.inner.putMultipart(...a);
  list: ObjectStore["list"] = (...a) => this.inner.list(...a);
  delete: ObjectStore["delete"] = (...a) => this.inner.delete(...a);
}
