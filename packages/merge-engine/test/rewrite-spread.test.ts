/**
 * Which partitions' rewrites ask for an encoder worker of their own (rewrite.ts `spreadsOverEncoders`): only
 * a rewrite that passes files through, and only once its hit files reach SPREAD_MIN_HIT_BYTES by their Add
 * sizes; smaller rewrites share the first worker (a second one's start and cold phase cost more than it
 * saves them). The 1M benchmark shapes on either side of the bound: 3 hit files of ~2.75 MB (the recent
 * shape) share, 30 of them (the uniform shape) spread.
 */
import type { FileView } from "@deltalite/delta-log";
import { describe, expect, it } from "vitest";
import { SPREAD_MIN_HIT_BYTES, spreadsOverEncoders } from "../src/upsert/rewrite.js";

const files = (count: number, size: number): FileView[] =>
  Array.from({ length: count }, (_, i) => ({ path: `f${i}.parquet`, size }) as FileView);

describe("encoder workers for a partition's rewrite", () => {
  it("spreads only a passthrough rewrite whose hit files reach the bound", () => {
    const mb = 1024 * 1024;
    expect(spreadsOverEncoders(true, files(3, 2.75 * mb))).toBe(false);
    expect(spreadsOverEncoders(true, files(30, 2.75 * mb))).toBe(true);
    expect(spreadsOverEncoders(false, files(30, 2.75 * mb))).toBe(false);
    expect(spreadsOverEncoders(true, [])).toBe(false);
    expect(spreadsOverEncoders(true, files(2, SPREAD_MIN_HIT_BYTES / 2))).toBe(true);
    expect(spreadsOverEncoders(true, files(2, SPREAD_MIN_HIT_BYTES / 2 - 1))).toBe(false);
  });
});
