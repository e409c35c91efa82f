/**
 * Bounded memory: a compaction under small budgets holds at most `maxBufferedBytes` of admitted decoded
 * bytes and `maxFetchBytes` of fetched bytes at any time (counted by the budgets' observer), runs under a
 * process-wide budget set it shares with upserts and gives every permit back, and still leaves the content
 * delta-rs reads unchanged. Files passed through to the encoder undecoded (passthrough-read.ts) count their
 * whole size against the fetch budget until the worker has decoded them.
 */
import { createProcessBudgets, limitsSnapshot } from "@deltalite/data-files";
import { describe, expect, it } from "vitest";
import { compactWithHooks } from "../src/internal.js";
import { type BuildStep, openLocal, workspace } from "./oracle-tables.js";

const ws = workspace("compaction-budgets-");

describe("compact: budgets", () => {
  it("keeps live decoded and fetched bytes within the knobs and returns every permit", async () => {
    const steps: BuildStep[] = Array.from({ length: 8 }, (_, i) => ({
      op: "append",
      rows: 600,
      start: i * 10_000,
      pad: 40,
      parts: ["a", "b"],
    }));
    const { ours, theirs } = await ws.build("budget", steps, true);
    const process = createProcessBudgets({
      DELTALITE_PROCESS_MAX_BUFFERED_BYTES: String(256 * 1024),
      DELTALITE_PROCESS_MAX_FETCH_BYTES: String(256 * 1024),
    });
    const live = { decode: 0, fetch: 0, maxDecode: 0, maxFetch: 0 };
    const maxBufferedBytes = 96 * 1024;
    const maxFetchBytes = 128 * 1024;
    const result = await compactWithHooks(
      await openLocal(ours),
      {
        maxBufferedBytes,
        maxFetchBytes,
        readBatchSize: 100,
        maxParallelBins: 2,
        processBudgets: process,
      },
      {
        budgetObserver: {
          decodeAdmitted: (b) => {
            live.decode += b;
            live.maxDecode = Math.max(live.maxDecode, live.decode);
          },
          decodeReleased: (b) => {
            live.decode -= b;
          },
          fetchAdmitted: (b) => {
            live.fetch += b;
            live.maxFetch = Math.max(live.maxFetch, live.fetch);
          },
          fetchReleased: (b) => {
            live.fetch -= b;
          },
        },
      },
    );
    expect(result.numFilesRemoved).toBe(16);
    expect(result.batchesRead).toBeGreaterThan(16);
    // Every file of a bin but its first has the table's schema: it goes to the worker undecoded.
    expect(result.filesPassedThrough).toBe(16 - result.bins);
    expect(live.maxDecode).toBeGreaterThan(0);
    expect(live.maxDecode).toBeLessThanOrEqual(maxBufferedBytes);
    expect(live.maxFetch).toBeLessThanOrEqual(maxFetchBytes);
    expect(live.decode).toBe(0);
    expect(live.fetch).toBe(0);
    for (const budget of Object.values(limitsSnapshot(process))) expect(budget.available).toBe(budget.total);
    await ws.oracle.call("optimize_compact", { uri: theirs });
    const read = async (uri: string) =>
      (await ws.oracle.call<{ rows: unknown[] }>("merge_read", { uri })).rows;
    expect(await read(ours)).toEqual(await read(theirs));
  });
});
