/**
 * `zOrder` beyond parity: bad columns and options are `invalid_argument` and leave the table exactly as it
 * was; the external sort forced by a tiny `maxSortBytes` writes the same rows in the same file order as the
 * in-memory sort (and leaves no spill behind, also when it fails); stats pruning of a point filter on each of
 * two high-cardinality columns reads ≥ 4× fewer files after a Z-order than after a plain compact to the same
 * target size; delta-rs reads every result. A property (fast-check) checks the external sort against the
 * in-memory one on random batches and budgets without any table.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scanTable } from "@deltalite/data-files";
import { isDeltaLiteError } from "@deltalite/errors";
import { type RecordBatch, Table, Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compact, type ZOrderOptions, zOrder } from "../src/index.js";
import { MERGE_FAN_IN, zOrderSorted } from "../src/z-order/external-sort.js";
import { SpillArea } from "../src/z-order/spill.js";
import { type OracleCommit, openLocal, workspace } from "./oracle-tables.js";
import { buildZOrderTable, readFilesInOrder } from "./z-order-tables.js";

const ws = workspace("compaction-zorder-behaviour-");

const rows = async (uri: string) => (await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri })).rows;

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name).slice(dir.length + 1));
  }
  return out.sort();
}

describe("zOrder: refused input", () => {
  it("bad columns and options are invalid_argument, nothing written", async () => {
    const table = await buildZOrderTable(ws, "bad", { appends: 2, rows: 50, seed: 1, partitions: 2 });
    const before = await files(table.ours);
    const cases: [unknown, ZOrderOptions, RegExp][] = [
      [["xx"], {}, /unknown Z-order column "xx" \(did you mean "x"\?\)/],
      [["part"], {}, /cannot be partition columns/],
      [[], {}, /non-empty array/],
      ["x", {}, /non-empty array/],
      [["x", "x"], {}, /named twice/],
      [["x"], { maxSortBytes: 0 }, /z-order option maxSortBytes must be an integer ≥ 1/],
      [
        ["x"],
        { maxSortBytes: 1024, maxSortByte: 1 } as never,
        /unknown z-order option "maxSortByte" \(did you mean "maxSortBytes"\?\)/,
      ],
      [["x"], { minPartitionRemovableFiles: 2 } as never, /unknown z-order option/],
      [["x"], { spillDirectory: "" }, /spillDirectory/],
      [["x"], { partitions: { prt: "p0" } }, /did you mean "part"/],
    ];
    for (const [columns, options, message] of cases) {
      const error = await zOrder(await openLocal(table.ours), columns as string[], options).catch(
        (e: unknown) => e,
      );
      expect(isDeltaLiteError(error), String(error)).toBe(true);
      expect((error as { kind: string }).kind).toBe("invalid_argument");
      expect((error as Error).message).toMatch(message);
      expect(await files(table.ours)).toEqual(before);
    }
  });
});

describe("zOrder: external sort", () => {
  it("a tiny maxSortBytes spills runs and writes the in-memory path's rows in the same order", async () => {
    const a = await buildZOrderTable(ws, "ext-a", { appends: 6, rows: 2000, seed: 7, partitions: 2 });
    const b = await buildZOrderTable(ws, "ext-b", { appends: 6, rows: 2000, seed: 7, partitions: 2 });
    const spillDirectory = await mkdtemp(join(tmpdir(), "zorder-spill-"));
    const columns = ["x", "s", "ts"];
    // Small files and batches so both paths write several files per partition.
    const common = { targetFileSize: 60_000, readBatchSize: 100 };
    const inMemory = await zOrder(await openLocal(a.ours), columns, common);
    const external = await zOrder(await openLocal(b.ours), columns, {
      ...common,
      maxSortBytes: 20_000,
      spillDirectory,
    });
    expect(inMemory.spilledRuns).toBe(0);
    expect(external.partitionsSpilled).toBe(2);
    // More runs than one merge takes: a merge pass of runs into longer runs ran too.
    expect(external.spilledRuns).toBeGreaterThan(2 * (MERGE_FAN_IN + 1));
    expect(await readdir(spillDirectory)).toEqual([]);
    const read = async (uri: string, version: number) => {
      const commit = await ws.oracle.call<OracleCommit>("optimize_commit", { uri, version });
      const byFile = await readFilesInOrder(
        await openLocal(uri),
        commit.added.map((f) => f.path),
        columns,
      );
      const byPartition: Record<string, bigint[]> = {};
      for (const f of byFile) byPartition[f.partition] = [...(byPartition[f.partition] ?? []), ...f.ids];
      return { files: byFile.length, byPartition };
    };
    const m = await read(a.ours, inMemory.version);
    const e = await read(b.ours, external.version);
    expect(m.files).toBeGreaterThan(2);
    expect(e.byPartition).toEqual(m.byPartition);
    expect(await rows(b.ours)).toEqual(await rows(a.theirs));
    await rm(spillDirectory, { recursive: true, force: true });
  });

  it("a failure mid-sort removes the spill and every file written, nothing committed", async () => {
    const table = await buildZOrderTable(ws, "ext-fail", { appends: 4, rows: 1500, seed: 8 });
    const spillDirectory = await mkdtemp(join(tmpdir(), "zorder-spill-"));
    const before = await files(table.ours);
    const controller = new AbortController();
    // Abort as soon as the first run is on disk: the sort is then mid-way.
    let sawSpill = false;
    const watch = setInterval(async () => {
      // A run's directory removed while it is listed is the clean-up at work: nothing seen this time.
      const spills = await readdir(spillDirectory, { recursive: true }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return [];
          throw error;
        },
      );
      if (spills.some((name) => String(name).endsWith(".arrows"))) {
        sawSpill = true;
        controller.abort(new Error("stopped mid-sort"));
      }
    }, 2);
    const options: ZOrderOptions = {
      maxSortBytes: 5_000,
      spillDirectory,
      signal: controller.signal,
      readBatchSize: 20,
    };
    const error = await zOrder(await openLocal(table.ours), ["x", "y"], options).catch((e: unknown) => e);
    clearInterval(watch);
    expect(sawSpill).toBe(true);
    expect(String(error)).toMatch(/stopped mid-sort|abort/i);
    expect(await readdir(spillDirectory)).toEqual([]);
    expect(await files(table.ours)).toEqual(before);
    await rm(spillDirectory, { recursive: true, force: true });
  });

  it("property: the external sort yields the in-memory order for any budget", async () => {
    const spillDirectory = await mkdtemp(join(tmpdir(), "zorder-prop-"));
    const row = fc.record({
      a: fc.integer({ min: -50, max: 50 }),
      s: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(row, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 4000 }),
        async (chunks, budget) => {
          const batches = chunks.map((c, i) => {
            const t = new Table({
              a: vectorFromArray(Int32Array.from(c.map((r) => r.a))),
              s: vectorFromArray(
                c.map((r) => r.s),
                new Utf8(),
              ),
              n: vectorFromArray(Int32Array.from(c.map((_, j) => i * 1000 + j))),
            });
            return t.batches[0] as RecordBatch;
          });
          const schema = batches[0]!.schema;
          const sorted = async (maxSortBytes: number) => {
            const spill = new SpillArea(spillDirectory);
            const out: number[] = [];
            try {
              const options = { schema, columnIndices: [0, 1], maxSortBytes, outputBatchRows: 7, spill };
              for await (const b of zOrderSorted(batches, options)) {
                for (let r = 0; r < b.numRows; r++) out.push(b.getChildAt(2)!.get(r) as number);
              }
            } finally {
              await spill.close();
            }
            return out;
          };
          expect(await sorted(budget)).toEqual(await sorted(Number.MAX_SAFE_INTEGER));
        },
      ),
      { numRuns: 60 },
    );
    expect(await readdir(spillDirectory)).toEqual([]);
    await rm(spillDirectory, { recursive: true, force: true });
  });
});

describe("zOrder: stats pruning", () => {
  it("a point filter on each of two high-cardinality columns reads ≥ 4× fewer files than after compact", async () => {
    // 128 small files of random rows; compact and Z-order both to the same target (about two of them).
    const table = await buildZOrderTable(ws, "prune", {
      appends: 128,
      rows: 500,
      seed: 9,
      domain: 1_000_000,
    });
    const snapshot = await openLocal(table.ours);
    const target = 2 * Math.max(...snapshot.files.map((f) => f.size));
    const compacted = await compact(await openLocal(table.ours), { targetFileSize: target });
    const afterCompact = await openLocal(table.ours);
    const zOrdered = await zOrder(await openLocal(table.theirs), ["x", "y"], { targetFileSize: target });
    const afterZOrder = await openLocal(table.theirs);
    expect(compacted.numFilesAdded).toBeGreaterThanOrEqual(32);
    // Z-ordered files compress a little better: no more files than the plain compact wrote.
    expect(zOrdered.numFilesAdded).toBeLessThanOrEqual(compacted.numFilesAdded);
    // Each probe value is one a row holds (a point lookup that finds something).
    const probeRows = (await rows(table.ours)) as Record<string, unknown>[];
    const filesRead = async (snap: typeof afterCompact, column: string, value: unknown) =>
      (await scanTable(snap, { filter: [{ column, op: "eq", value: BigInt(value as number) }] }).plan()).files
        .length;
    const ratios: Record<string, number> = {};
    for (const column of ["x", "y"]) {
      let plain = 0;
      let ordered = 0;
      for (let i = 0; i < 20; i++) {
        const value = probeRows[(i * 7919) % probeRows.length]![column];
        plain += await filesRead(afterCompact, column, value);
        ordered += await filesRead(afterZOrder, column, value);
      }
      ratios[column] = plain / ordered;
      console.log(
        `point filter on ${column}: ${plain / 20} of ${afterCompact.files.length} files read after compact, ${ordered / 20} of ${afterZOrder.files.length} after Z-order (${ratios[column]!.toFixed(1)}×)`,
      );
    }
    expect(ratios.x).toBeGreaterThanOrEqual(4);
    expect(ratios.y).toBeGreaterThanOrEqual(4);
    expect(await rows(table.theirs)).toEqual(probeRows);
  });
});
