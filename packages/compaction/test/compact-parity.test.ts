/**
 * Parity with delta-rs 1.6.6 `optimize.compact` on 50 random tables (fast-check, fixed seed): each table's
 * history is written by delta-rs (appends of mixed sizes into one to three partitions or none, deletes that
 * rewrite files, an occasional overwrite, appends that add a column in merge mode, so files of one table
 * differ in their columns), copied byte for byte, and compacted by delta-rs on one copy and by
 * `compact` on the other with the same target (the sum of the k smallest file sizes, so several files fit a bin and, for small k, larger files are above it) and
 * sometimes a partition filter. delta-rs does not expose its plan, so the plan is compared through what
 * the commits did: the same files removed per partition, the same bins (which inputs went into which
 * output, recovered from the rows' unique ids), the same metrics (the added sizes differ: other
 * encoder), the same operationParameters, and delta-rs reads the same rows from both tables. No decoded-size
 * cap splits a bin here (the tables are small), so the added file counts match too.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CompactOptions, compact } from "../src/index.js";
import {
  addColumnStep,
  type BuildStep,
  type OracleCommit,
  openLocal,
  removedByPartition,
  workspace,
} from "./oracle-tables.js";

const ws = workspace("compaction-parity-");

interface Case {
  partitioned: boolean;
  steps: BuildStep[];
  targetPick: number;
  filter: "none" | "one" | "two";
}

const PARTS = ["a", "b", "c"];

const caseArb: fc.Arbitrary<Case> = fc.record({
  partitioned: fc.boolean(),
  steps: fc
    .array(
      fc.oneof(
        // An append that adds a column (delta-rs merge mode); every later append writes in merge mode.
        { weight: 1, arbitrary: fc.record({ addColumn: fc.integer({ min: 1, max: 120 }) }) },
        {
          weight: 6,
          arbitrary: fc.record({
            rows: fc.integer({ min: 1, max: 200 }),
            pad: fc.integer({ min: 0, max: 300 }),
            parts: fc.subarray(PARTS, { minLength: 1 }),
            overwrite: fc.constant(false),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            rows: fc.integer({ min: 1, max: 100 }),
            pad: fc.integer({ min: 0, max: 50 }),
            parts: fc.subarray(PARTS, { minLength: 1 }),
            overwrite: fc.constant(true),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            deleteFrom: fc.integer({ min: 0, max: 9 }),
            width: fc.integer({ min: 1, max: 120 }),
          }),
        },
      ),
      { minLength: 6, maxLength: 24 },
    )
    .map((raw) => {
      let columns = 0; // extra columns the table has so far
      return raw.map((s, i): BuildStep => {
        if ("addColumn" in s) return addColumnStep(i, s.addColumn, ++columns, PARTS);
        if ("deleteFrom" in s) {
          const from = s.deleteFrom * 10_000;
          return { op: "delete", predicate: `id >= ${from} AND id < ${from + s.width}` };
        }
        return {
          op: "append",
          rows: s.rows,
          start: i * 10_000,
          pad: s.pad,
          parts: s.parts,
          mode: s.overwrite && i > 0 ? "overwrite" : "append",
          ...(columns > 0 ? { merge: true } : {}),
        };
      });
    })
    .filter((steps) => steps[0]!.op === "append" && (steps[0] as { mode?: string }).mode !== "overwrite"),
  targetPick: fc.double({ min: 0, max: 1, noNaN: true }),
  filter: fc.constantFrom("none", "one", "two"),
});

interface TheirRun {
  version: number;
  metrics: Record<string, unknown>;
  commit: OracleCommit | null;
}

const parse = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);

describe("compact: parity with delta-rs optimize.compact", () => {
  it("removes the same files per partition with the same metrics on 50 random tables", {
    timeout: 600_000,
  }, async () => {
    let n = 0;
    let compacted = 0;
    let withSkips = 0;
    let multiBin = 0;
    let evolved = 0; // compacted tables whose files differ in their columns
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { ours, theirs } = await ws.build(`t${n++}`, c.steps, c.partitioned);
        const before = await openLocal(ours);
        const sizes = before.files.map((f) => f.size).sort((a, b) => a - b);
        // The sum of the k smallest sizes: bins of several files fit, and (for small k) larger files do not.
        const k = Math.min(sizes.length, 2 + Math.floor(c.targetPick * Math.min(5, sizes.length)));
        const target = sizes.slice(0, k).reduce((a, b) => a + b, 0) + 1;
        const present = [...new Set(before.files.map((f) => f.partitionValues.part ?? ""))].sort();
        const filterValues =
          !c.partitioned || c.filter === "none" ? [] : present.slice(0, c.filter === "one" ? 1 : 2);
        const options: CompactOptions = { targetFileSize: target };
        if (filterValues.length > 0)
          options.partitions = { part: filterValues.length === 1 ? filterValues[0]! : filterValues };
        const filters =
          filterValues.length === 0
            ? undefined
            : filterValues.length === 1
              ? [["part", "=", filterValues[0]]]
              : [["part", "in", filterValues]];

        const their = await ws.oracle.call<TheirRun>("optimize_compact", {
          uri: theirs,
          target_size: target,
          filters,
        });
        const result = await compact(before, options);
        const committed = result.version !== before.version;
        expect(committed).toBe(their.commit !== null);
        for (const key of [
          "numFilesAdded",
          "numFilesRemoved",
          "partitionsOptimized",
          "numBatches",
          "totalConsideredFiles",
          "totalFilesSkipped",
          "maxBinSpanFiles",
          "plannerStrategy",
          "preservedStableOrder",
          "preserveInsertionOrder",
        ] as const) {
          expect(result[key], key).toEqual(their.metrics[key]);
        }
        expect(result.filesRemoved).toEqual(parse(their.metrics.filesRemoved));
        if (!committed || their.commit === null) return;
        compacted++;
        if (result.totalFilesSkipped > 0) withSkips++;
        if (result.numFilesAdded > 1) multiBin++;
        if (c.steps.some((step) => step.op === "append" && (step.extra ?? 0) > 0)) evolved++;
        const mine = await ws.oracle.call<OracleCommit>("optimize_commit", {
          uri: ours,
          version: result.version,
        });
        expect(removedByPartition(mine.removed)).toEqual(removedByPartition(their.commit.removed));
        // The bins themselves (which inputs went into which output), recovered from the files' ids.
        const myBins = await ws.oracle.call("optimize_bins", { uri: ours, version: result.version });
        expect(myBins).toEqual(
          await ws.oracle.call("optimize_bins", { uri: theirs, version: their.version }),
        );
        expect(mine.removed.every((r) => r.dataChange === false)).toBe(true);
        expect(mine.added.every((a) => a.dataChange === false && a.path.endsWith(".zstd.parquet"))).toBe(
          true,
        );
        expect(mine.commitInfo.operationParameters).toEqual(their.commit.commitInfo.operationParameters);
        const metrics = mine.commitInfo.operationMetrics!;
        expect(Object.keys(metrics)).toEqual(Object.keys(their.commit.commitInfo.operationMetrics!));
        expect(parse(metrics.filesRemoved)).toEqual(
          parse(their.commit.commitInfo.operationMetrics!.filesRemoved),
        );
        // Content unchanged, as delta-rs reads it.
        const a = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: ours });
        const b = await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
        expect(a.rows).toEqual(b.rows);
      }),
      { seed: 20260512, numRuns: 50, endOnFailure: true },
    );
    // The random tables must exercise the interesting cases, not only no-ops.
    expect(compacted).toBeGreaterThanOrEqual(12);
    expect(multiBin).toBeGreaterThanOrEqual(3);
    expect(withSkips).toBeGreaterThanOrEqual(3);
    expect(evolved).toBeGreaterThanOrEqual(3);
    expect(n).toBe(50);
    console.log(
      `parity: ${n} tables, ${compacted} compacted, ${multiBin} with several bins, ${withSkips} with skipped files, ${evolved} with added columns`,
    );
  });
});
