// Inputs recognised by shape: Tables, RecordBatches and readers made by a second apache-arrow copy (the
// lowest of the peer range, 19.0.0, and a separate install of the newest, 21.2.0, installed with npm into a
// temp folder and imported from there, so the workspace's own resolution is untouched) are adopted as ours
// without copying buffers; a table written from them reads back the same through delta-rs; a non-Arrow
// object, or an Arrow object whose type ours cannot know, is a typed invalid_argument that leaves the table
// as it was and names both apache-arrow versions.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import * as ours from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { peekBatches, writeExistingTable, writeNewTable } from "../src/index.js";
import { ARROW_PEER_RANGE, arrowVersionOf, ownArrowVersion } from "../src/write/arrow-version.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const LOWEST = "19.0.0";
const NEWEST = "21.2.0";
type Arrow = typeof ours;

let work: string;
const copies = new Map<string, Arrow>();
let oracle: Oracle;

/** Installs apache-arrow@version into its own npm project under `work` and imports it from there. */
async function installCopy(version: string): Promise<Arrow> {
  const dir = join(work, `arrow-${version}`);
  await mkdir(dir);
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "copy", private: true, type: "module" }));
  await promisify(execFile)(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", `apache-arrow@${version}`],
    { cwd: dir },
  );
  const entry = join(dir, "node_modules", "apache-arrow", "Arrow.node.mjs");
  return (await import(pathToFileURL(entry).href)) as Arrow;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "deltalite-input-shape-"));
  const [lowest, newest] = await Promise.all([installCopy(LOWEST), installCopy(NEWEST)]);
  copies.set(LOWEST, lowest);
  copies.set(NEWEST, newest);
  oracle = await connectOracle();
}, 180_000);

afterAll(async () => {
  oracle?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Prototype-chain membership in OUR copy (21.2's Symbol.hasInstance would also accept a foreign one). */
const isOurs = (value: object, cls: abstract new (...args: never[]) => unknown) =>
  Function.prototype[Symbol.hasInstance].call(cls, value);

/** A table of the foreign copy: int64 ids, nullable strings, a dictionary, a list, a struct, a zoned timestamp. */
function foreignTable(arrow: Arrow) {
  const ids = arrow.makeVector(BigInt64Array.from([1n, 2n, 3n]));
  const names = arrow.vectorFromArray(["a", null, "c"], new arrow.Utf8());
  const days = arrow.vectorFromArray(
    ["mon", "tue", "mon"],
    new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()),
  );
  const tags = arrow.vectorFromArray(
    [[1, 2], [], null],
    new arrow.List(new arrow.Field("item", new arrow.Int32(), true)),
  );
  const point = new arrow.Struct([new arrow.Field("x", new arrow.Float64(), true)]);
  const points = arrow.vectorFromArray([{ x: 1.5 }, null, { x: -2 }], point);
  const at = arrow.vectorFromArray([0, 1_000, 2_000], new arrow.TimestampMicrosecond("UTC"));
  return new arrow.Table({ id: ids, name: names, day: days, tags, point: points, at });
}

const rowsOf = (batch: { numRows: number; toArray(): unknown[] }) =>
  JSON.parse(JSON.stringify(batch.toArray(), (_k, v) => (typeof v === "bigint" ? `${v}n` : v)));

describe.each([LOWEST, NEWEST])("a Table of a second apache-arrow copy (%s)", (version) => {
  it("is adopted as our Table's batches, sharing its buffers, with every value and type kept", async () => {
    const arrow = copies.get(version) as Arrow;
    const table = foreignTable(arrow);
    expect(isOurs(table, ours.Table), "the copy is really a second one").toBe(false);
    const { schema, batches } = await peekBatches(table as never);
    expect(isOurs(schema as object, ours.Schema)).toBe(true);
    const seen: ours.RecordBatch[] = [];
    for await (const batch of batches) seen.push(batch);
    expect(seen).toHaveLength(table.batches.length);
    const [batch] = seen as [ours.RecordBatch];
    expect(isOurs(batch, ours.RecordBatch)).toBe(true);
    expect(isOurs(batch.schema.fields[2]?.type as object, ours.Dictionary)).toBe(true);
    expect(String(batch.schema)).toBe(String(table.schema));
    expect(rowsOf(batch)).toEqual(rowsOf(table.batches[0] as never));
    expect(rowsOf(batch)[1]).toEqual({ id: "2n", name: null, day: "tue", tags: [], point: null, at: 1_000 });
    const foreignIds = table.batches[0]?.data.children[0]?.values as BigInt64Array;
    expect(batch.data.children[0]?.values, "no copy of the id buffer").toBe(foreignIds);
  });

  it("is accepted as a RecordBatch, an iterable of batches and a RecordBatchReader", async () => {
    const arrow = copies.get(version) as Arrow;
    const table = foreignTable(arrow);
    const expected = rowsOf(table.batches[0] as never);
    const reader = arrow.RecordBatchReader.from(arrow.tableToIPC(table, "stream"));
    for (const source of [table.batches[0], [table.batches[0]], reader]) {
      const { schema, batches } = await peekBatches(source as never);
      const got: unknown[] = [];
      for await (const batch of batches) got.push(...rowsOf(batch));
      expect(isOurs(schema as object, ours.Schema)).toBe(true);
      expect(got).toEqual(expected);
    }
  });

  it("writes a Delta table that delta-rs reads back row for row", async () => {
    const arrow = copies.get(version) as Arrow;
    const dir = join(work, `table-${version}`);
    const store = new LocalFileStore(dir);
    const simple = new arrow.Table({
      id: arrow.makeVector(BigInt64Array.from([1n, 2n, 3n])),
      name: arrow.vectorFromArray(["a", null, "c"], new arrow.Utf8()),
    });
    const created = await writeNewTable(store, simple as never, {});
    expect(created.version).toBe(0);
    const appended = await writeExistingTable(await Snapshot.open(store), simple.slice(1) as never, {});
    expect(appended.version).toBe(1);
    const rows = await oracle.call("delta_read_rows", { uri: dir, sort_by: ["id", "name"] });
    expect(rows).toEqual([
      { id: 1, name: "a" },
      { id: 2, name: null },
      { id: 2, name: null },
      { id: 3, name: "c" },
      { id: 3, name: "c" },
    ]);
  });

  it("keeps every value and null of random int64 / string columns (property)", async () => {
    const arrow = copies.get(version) as Arrow;
    const row = fc.record({
      id: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
      s: fc.option(fc.string()),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 40 }), fc.nat(3), async (rows, offset) => {
        const table = new arrow.Table({
          id: arrow.vectorFromArray(
            rows.map((r) => r.id),
            new arrow.Int64(),
          ),
          s: arrow.vectorFromArray(
            rows.map((r) => r.s),
            new arrow.Utf8(),
          ),
        }).slice(Math.min(offset, rows.length));
        const got: unknown[] = [];
        for await (const batch of (await peekBatches(table as never)).batches) got.push(...rowsOf(batch));
        expect(got).toEqual(table.batches.flatMap((b) => rowsOf(b as never)));
      }),
      { numRuns: 50 },
    );
  });
});

describe("what cannot be read is a typed invalid_argument that leaves the table as it was", () => {
  async function tableFiles(dir: string): Promise<string[]> {
    return (await readdir(dir, { recursive: true })).sort();
  }

  it.each([
    ["a plain object", { rows: [{ id: 1 }] }, /got a plain object/],
    ["a string", "id,name\n1,a", /got a string/],
    ["null", null, /got null/],
    ["an array of row objects", [{ id: 1 }], /item 0 is a plain object/],
    ["a Schema", new ours.Schema([]), /got a Schema/],
  ])("%s", async (_name, input, message) => {
    const dir = join(work, `bad-${_name.replaceAll(" ", "-")}`);
    const store = new LocalFileStore(dir);
    await writeNewTable(store, new ours.Table({ id: ours.makeVector(BigInt64Array.from([1n])) }), {});
    const before = await tableFiles(dir);
    const error = await writeExistingTable(await Snapshot.open(store), input as never, {}).catch((e) => e);
    expect(error).toMatchObject({ kind: "invalid_argument", retryable: false });
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(
      /must be an apache-arrow (Table, RecordBatch, RecordBatchReader|RecordBatch)/,
    );
    expect(await tableFiles(dir)).toEqual(before);
    expect((await Snapshot.open(store)).version).toBe(0);
  });

  it("an Arrow type of a second copy that ours does not know names both versions", async () => {
    const arrow = copies.get(LOWEST) as Arrow;
    const table = arrow.tableFromArrays({ x: Int32Array.from([1, 2]) });
    (table.schema.fields[0]?.type as { typeId: number }).typeId = 99; // as a future release's type would be
    const error = await peekBatches(table as never).catch((e) => e);
    expect(error).toMatchObject({ kind: "invalid_argument" });
    expect(error.message).toContain(`apache-arrow ${LOWEST}`);
    expect(error.message).toContain(`(${ownArrowVersion()})`);
    expect(error.message).toContain("column x has Arrow type id 99");
  });
});

describe("the versions the messages name", () => {
  it("are read from each copy's own files", () => {
    expect(arrowVersionOf((copies.get(LOWEST) as Arrow).tableFromArrays({ x: [1] }).schema)).toBe(LOWEST);
    expect(arrowVersionOf((copies.get(NEWEST) as Arrow).tableFromArrays({ x: [1] }).schema)).toBe(NEWEST);
    const ownManifest = join(repo, "packages/data-files/node_modules/apache-arrow/package.json");
    expect(ownArrowVersion()).toBe(JSON.parse(readFileSync(ownManifest, "utf8")).version);
  });

  it("and the supported range is every publishable package's apache-arrow peer range", () => {
    for (const pkg of ["data-files", "delta-log", "deltalite", "merge-engine", "parquet-stream"]) {
      const manifest = JSON.parse(readFileSync(join(repo, "packages", pkg, "package.json"), "utf8"));
      expect(manifest.peerDependencies?.["apache-arrow"], pkg).toBe(ARROW_PEER_RANGE);
      expect(manifest.dependencies?.["apache-arrow"], pkg).toBeUndefined();
    }
  });
});
