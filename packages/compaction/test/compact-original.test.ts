/**
 * The original deltalite's `compact` (PyPI deltalite 0.1.15, run in its own venv by original_compact.py)
 * plans the same bins as ours on 24 random tables (fast-check, fixed seed): each table is written by delta-rs
 * (appends of mixed sizes into one to three partitions or none, deletes that rewrite files, an occasional
 * overwrite), copied byte for byte, and compacted by the original on one copy and by `compact` on the other
 * with the same target, partition selection and `minPartitionRemovableFiles`. Compared: the removed files
 * per partition, the bins (which inputs went into which output, from the rows' ids) and every count both
 * report but the added files (the original also closes an output file at the target's stored size, so it
 * may write several files for one bin: its files must then each fall inside one of our bins). Skipped, saying so, only where no CPython ≥ 3.12 exists (the original is a cp312-abi3 wheel) or
 * its venv cannot be built.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CompactOptions, compact } from "../src/index.js";
import {
  type BuildStep,
  type OracleCommit,
  openLocal,
  removedByPartition,
  workspace,
} from "./oracle-tables.js";

const ws = workspace("compaction-original-");
const here = fileURLToPath(new URL(".", import.meta.url));
const originalDir = join(here, "../../../tools/bench/original");
const NO_PYTHON = 3;

/** The venv's python, or why the original cannot run here. */
function prepareOriginal(): { python: string } | { skip: string } {
  const python = join(originalDir, ".venv/bin/python");
  const build = spawnSync("bash", [join(originalDir, "ensure-venv.sh")], { encoding: "utf8" });
  if (build.status === 0) return { python };
  if (build.status === NO_PYTHON) {
    return {
      skip: `no CPython >= 3.12 on this machine: the original deltalite 0.1.15 (cp312-abi3) cannot run (${build.stderr.trim()})`,
    };
  }
  if (!existsSync(python)) {
    return {
      skip: `the original deltalite's venv could not be built (ensure-venv.sh exit ${build.status}): ${build.stderr.trim().split("\n").at(-1)}`,
    };
  }
  throw new Error(`ensure-venv.sh failed (exit ${build.status}) although a venv exists: ${build.stderr}`);
}

function runOriginal(
  python: string,
  table: string,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("DELTALITE_")),
  );
  const run = spawnSync(python, [join(here, "original_compact.py"), table, JSON.stringify(options)], {
    encoding: "utf8",
    env,
  });
  if (run.status !== 0) throw new Error(`original compact failed (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

interface Case {
  partitioned: boolean;
  steps: BuildStep[];
  smallest: number;
  filter: "none" | "one" | "two";
  minRemovable: number;
}

const PARTS = ["a", "b", "c"];

const caseArb: fc.Arbitrary<Case> = fc.record({
  partitioned: fc.boolean(),
  steps: fc
    .array(
      fc.oneof(
        {
          weight: 6,
          arbitrary: fc.record({
            rows: fc.integer({ min: 1, max: 200 }),
            pad: fc.integer({ min: 0, max: 300 }),
            parts: fc.subarray(PARTS, { minLength: 1 }),
            overwrite: fc.integer({ min: 0, max: 15 }).map((n) => n === 0),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            deleteFrom: fc.integer({ min: 0, max: 15 }),
            width: fc.integer({ min: 1, max: 120 }),
          }),
        },
      ),
      { minLength: 10, maxLength: 24 },
    )
    .map((raw) =>
      raw.map((s, i): BuildStep => {
        if ("deleteFrom" in s) {
          const from = s.deleteFrom * 10_000;
          return { op: "delete", predicate: `id >= ${from} AND id < ${from + s.width}` };
        }
        const mode = s.overwrite && i > 0 ? "overwrite" : "append";
        return { op: "append", rows: s.rows, start: i * 10_000, pad: s.pad, parts: s.parts, mode };
      }),
    )
    .filter((steps) => steps[0]!.op === "append" && (steps[0] as { mode?: string }).mode !== "overwrite"),
  smallest: fc.integer({ min: 2, max: 24 }),
  filter: fc.constantFrom("none", "one", "two"),
  minRemovable: fc.constantFrom(1, 1, 2, 3, 4, 6),
});

// Not compared: numFilesAdded / bytes_added. The original also closes an output file at the target's stored
// size, so with these small targets it writes several files for one bin where delta-rs and we write one.
const COUNTS: [ours: keyof Awaited<ReturnType<typeof compact>>, theirs: string][] = [
  ["numFilesRemoved", "numFilesRemoved"],
  ["partitionsOptimized", "partitionsOptimized"],
  ["numBatches", "numBatches"],
  ["totalConsideredFiles", "totalConsideredFiles"],
  ["totalFilesSkipped", "totalFilesSkipped"],
  ["filesConsidered", "files_considered"],
  ["partitionsCompacted", "partitions_compacted"],
  ["bins", "bins"],
  ["bytesRemoved", "bytes_removed"],
  ["largestBinFiles", "largest_bin_files"],
  ["commits", "commits"],
];

describe("compact: the original deltalite plans the same bins", () => {
  it("removes the same files per partition, with the same counts, on 24 random tables", {
    timeout: 900_000,
  }, async (ctx) => {
    const original = prepareOriginal();
    if ("skip" in original) {
      ctx.skip(original.skip);
      return;
    }
    let n = 0;
    const seen = { compacted: 0, multiBin: 0, held: 0, filtered: 0 };
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { ours, theirs } = await ws.build(`o${n++}`, c.steps, c.partitioned);
        const before = await openLocal(ours);
        const sizes = before.files.map((f) => f.size).sort((a, b) => a - b);
        // The sum of the k smallest sizes, k from 2 to every file: from tight bins to whole partitions in one.
        const k = Math.min(sizes.length, c.smallest);
        const target = sizes.slice(0, k).reduce((a, b) => a + b, 0) + 1;
        const present = [...new Set(before.files.map((f) => f.partitionValues.part ?? ""))].sort();
        const values =
          !c.partitioned || c.filter === "none" ? [] : present.slice(0, c.filter === "one" ? 1 : 2);
        const options: CompactOptions = {
          targetFileSize: target,
          minPartitionRemovableFiles: c.minRemovable,
        };
        const theirOptions: Record<string, unknown> = {
          target_file_size: target,
          min_partition_removable_files: c.minRemovable,
        };
        if (values.length > 0) {
          options.partitions = { part: values };
          theirOptions.partitions = values;
        }
        const their = runOriginal(original.python, theirs, theirOptions);
        const mine = await compact(before, options);
        for (const [ourKey, theirKey] of COUNTS) expect(mine[ourKey], ourKey).toEqual(their[theirKey]);
        const committed = mine.version !== before.version;
        expect(their.version !== before.version).toBe(committed);
        if (values.length > 0) seen.filtered++;
        if (c.minRemovable > 1 && mine.totalFilesSkipped > 0) seen.held++;
        if (!committed) return;
        seen.compacted++;
        if (mine.bins > 1) seen.multiBin++;
        const commitOf = (uri: string, version: unknown) =>
          ws.oracle.call<OracleCommit>("optimize_commit", { uri, version });
        const [a, b] = [await commitOf(ours, mine.version), await commitOf(theirs, their.version)];
        expect(removedByPartition(a.removed)).toEqual(removedByPartition(b.removed));
        // The bins: each of the original's output files holds rows of exactly one of our bins (its files split
        // a bin, never join two), and both planned the same number of bins over the same removed files.
        const bins = (uri: string, version: unknown) =>
          ws.oracle.call<string[][]>("optimize_bins", { uri, version });
        const myBins = await bins(ours, mine.version);
        expect(myBins.length).toBe(mine.bins);
        for (const group of await bins(theirs, their.version)) {
          expect(
            myBins.some((bin) => group.every((path) => bin.includes(path))),
            group.join(),
          ).toBe(true);
        }
        expect(their.numFilesAdded as number).toBeGreaterThanOrEqual(mine.bins);
      }),
      { seed: 20260613, numRuns: 24, endOnFailure: true },
    );
    console.log(`original: ${n} tables`, seen);
    expect(n).toBe(24);
    expect(seen.compacted).toBeGreaterThanOrEqual(8);
    expect(seen.held).toBeGreaterThanOrEqual(3);
    expect(seen.multiBin).toBeGreaterThanOrEqual(2);
  });
});
