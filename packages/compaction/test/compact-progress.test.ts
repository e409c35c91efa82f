/**
 * `onProgress` and the writer's memory caps: the reports of a compaction count up to exactly the bins it
 * rewrote and the stored bytes of the files it removed; a bad callback is `invalid_argument` with nothing
 * written; and every row group of the compacted files keeps within `maxRowGroupDecodedBytes` of decoded
 * bytes (by the footer's row counts and the rows' decoded size) and a fifth of it in encoded bytes, give or
 * take the one slice the encoder checks its cap after (writer-memory.ts).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { openParquetReader } from "@deltalite/parquet-stream";
import { describe, expect, it } from "vitest";
import { type CompactProgress, compact, zOrder } from "../src/index.js";
import { ENCODER_COPIES } from "../src/writer-memory.js";
import { openLocal, workspace } from "./oracle-tables.js";

const ws = workspace("compaction-progress-");

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name).slice(dir.length + 1));
  }
  return out.sort();
}

function expectCountsUp(reports: readonly CompactProgress[]): void {
  for (let i = 1; i < reports.length; i++) {
    const [a, b] = [reports[i - 1]!, reports[i]!];
    expect(b.binsDone).toBeGreaterThanOrEqual(a.binsDone);
    expect(b.bytesDone).toBeGreaterThanOrEqual(a.bytesDone);
    expect(b.binsDone).toBeLessThanOrEqual(b.bins);
    expect(b.bytesDone).toBeLessThanOrEqual(b.bytes);
  }
}

const steps = [
  { op: "append" as const, rows: 400, start: 0, parts: ["a", "b", "c"] },
  { op: "append" as const, rows: 400, start: 400, parts: ["a", "b", "c"], pad: 600 },
  { op: "append" as const, rows: 400, start: 800, parts: ["a", "b"] },
];

describe("compact: onProgress", () => {
  it("counts up to the bins rewritten and the bytes removed (compact and z-order)", async () => {
    const { ours, theirs } = await ws.build("progress", steps, true);
    const reports: CompactProgress[] = [];
    const result = await compact(await openLocal(ours), { onProgress: (p) => reports.push(p) });
    expect(result.bins).toBe(3);
    expect(reports[0]).toEqual({ bins: 3, binsDone: 0, bytes: result.filesRemoved.totalSize, bytesDone: 0 });
    expect(reports.at(-1)).toEqual({
      bins: 3,
      binsDone: 3,
      bytes: result.filesRemoved.totalSize,
      bytesDone: result.filesRemoved.totalSize,
    });
    // One report per input file read and per bin, after the plan's.
    expect(reports.length).toBe(1 + result.numFilesRemoved + result.bins);
    expectCountsUp(reports);

    const zReports: CompactProgress[] = [];
    const ordered = await zOrder(await openLocal(theirs), ["id"], { onProgress: (p) => zReports.push(p) });
    expect(zReports.at(-1)).toMatchObject({ binsDone: ordered.bins, bins: ordered.bins });
    expect(zReports.at(-1)?.bytesDone).toBe(ordered.filesRemoved.totalSize);
    expectCountsUp(zReports);
  });

  it("a callback that is not a function is invalid_argument, nothing written", async () => {
    const { ours } = await ws.build("bad-progress", steps, true);
    const before = await files(ours);
    const failure = await compact(await openLocal(ours), { onProgress: 5 as never }).catch((e: unknown) => e);
    expect((failure as { kind: string }).kind).toBe("invalid_argument");
    expect(String(failure)).toMatch(/onProgress must be a function/);
    expect(await files(ours)).toEqual(before);
  });
});

describe("compact: row groups within the writer's memory knob", () => {
  it("each row group ≤ maxRowGroupDecodedBytes decoded and ≈ a fifth of it encoded", async () => {
    const appends = [0, 1, 2, 3].map((i) => ({
      op: "append" as const,
      rows: 1500,
      start: i * 1500,
      pad: 900,
    }));
    const { ours } = await ws.build("row-groups", appends, false);
    const knob = 1024 * 1024;
    const before = await openLocal(ours);
    // The four files make one bin, written in many row groups at this knob.
    const result = await compact(before, { maxRowGroupDecodedBytes: knob, targetFileSize: 1 << 30 });
    const after = await openLocal(ours);
    const added = after.files.filter((f) => !before.files.some((b) => b.path === f.path));
    expect(added.length).toBe(result.numFilesAdded);
    let groups = 0;
    for (const file of added) {
      const reader = await openParquetReader(after.store, file.path, { size: file.size });
      try {
        for (const group of reader.metadata.row_groups) {
          groups++;
          const encoded = group.columns.reduce(
            (n, c) => n + Number(c.meta_data?.total_compressed_size ?? 0),
            0,
          );
          // parquet-rs checks its cap between slices: one slice (at most knob / 8 decoded) may pass it.
          expect(encoded).toBeLessThanOrEqual(knob / ENCODER_COPIES + knob / 8);
          expect(Number(group.total_byte_size)).toBeLessThanOrEqual(knob + knob / 8);
        }
      } finally {
        reader.close();
      }
    }
    expect(groups).toBeGreaterThan(2);
    expect(result.rowsRewritten).toBe(6000);
  });
});
