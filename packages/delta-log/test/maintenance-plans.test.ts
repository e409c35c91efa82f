import type { ObjectMeta } from "@deltalite/object-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseIntervalMs } from "../src/maintenance/interval.js";
import { planLogCleanup } from "../src/maintenance/log-cleanup.js";
import { isHiddenPath, planVacuum, vacuumRetentionMs } from "../src/maintenance/vacuum-plan.js";

const v20 = (v: number) => String(v).padStart(20, "0");
const meta = (key: string, lastModified: number, size = 1): ObjectMeta => ({
  key,
  size,
  etag: undefined,
  lastModified,
});

describe("parseIntervalMs", () => {
  it.each([
    ["interval 30 days", 30 * 86_400_000],
    ["interval 1 week", 604_800_000],
    ["168 hours", 604_800_000],
    ["interval 2 minutes", 120_000],
    ["INTERVAL 5 SECONDS", 5000],
  ])("%s", (text, ms) => expect(parseIntervalMs(text)).toBe(ms));
  it("rejects nonsense", () => expect(() => parseIntervalMs("soon")).toThrow(/cannot parse/));
});

describe("planLogCleanup", () => {
  it("deletes expired commits and checkpoints only below the newest checkpoint the retained versions need", () => {
    const old = 1000;
    const fresh = 10_000;
    const listing = [
      ...Array.from({ length: 25 }, (_, v) => meta(`_delta_log/${v20(v)}.json`, v < 22 ? old : fresh)),
      meta(`_delta_log/${v20(10)}.checkpoint.parquet`, old),
      meta(`_delta_log/${v20(20)}.checkpoint.parquet`, old),
      meta("_delta_log/_last_checkpoint", old),
      meta(`_delta_log/${v20(3)}.crc`, old),
    ];
    const plan = planLogCleanup(listing, 24, 5000);
    expect(plan.safeCheckpointVersion).toBe(20);
    expect(plan.keys).toEqual(
      [
        ...Array.from({ length: 20 }, (_, v) => `_delta_log/${v20(v)}.json`).slice(0, 10),
        `_delta_log/${v20(10)}.checkpoint.parquet`,
        ...Array.from({ length: 10 }, (_, i) => `_delta_log/${v20(10 + i)}.json`),
      ].sort(),
    );
  });

  it("deletes nothing without a checkpoint, and ignores incomplete multi-part checkpoints", () => {
    const listing = [
      ...Array.from({ length: 5 }, (_, v) => meta(`_delta_log/${v20(v)}.json`, 0)),
      meta(`_delta_log/${v20(3)}.checkpoint.0000000001.0000000002.parquet`, 0),
    ];
    expect(planLogCleanup(listing, 4, 1).keys).toEqual([]);
  });

  it("classifies with the log-path classifier: a complete multi-part checkpoint is safe, unknown names stay", () => {
    const part = (v: number, p: number, n: number) =>
      `_delta_log/${v20(v)}.checkpoint.${String(p).padStart(10, "0")}.${String(n).padStart(10, "0")}.parquet`;
    const listing = [
      ...Array.from({ length: 10 }, (_, v) => meta(`_delta_log/${v20(v)}.json`, 0)),
      meta(part(3, 1, 2), 0),
      meta(part(3, 2, 2), 0),
      meta(part(7, 2, 2), 0), // part 1 of 2 missing: not a checkpoint
      meta(`_delta_log/${v20(2)}.checkpoint.1.1.parquet`, 0), // not a Delta file name
      meta(`_delta_log/${v20(1)}.checkpoint.${"ab".repeat(4)}-0000-0000-0000-000000000000.json`, 0), // v2
      meta(`_delta_log/_sidecars/${v20(1)}.json`, 0),
    ];
    const plan = planLogCleanup(listing, 9, 1);
    expect(plan.safeCheckpointVersion).toBe(3);
    expect(plan.keys).toEqual([0, 1, 2].map((v) => `_delta_log/${v20(v)}.json`));
  });

  it("never deletes what the oldest retained version needs (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.integer({ min: 0, max: 59 }), { maxLength: 6 }),
        fc.integer({ min: 0, max: 60 }),
        (n, checkpoints, cutoffVersion) => {
          // Version v was written at time v; everything at or before `cutoffVersion` is expired.
          const listing = [
            ...Array.from({ length: n }, (_, v) => meta(`_delta_log/${v20(v)}.json`, v)),
            ...checkpoints
              .filter((c) => c < n)
              .map((c) => meta(`_delta_log/${v20(c)}.checkpoint.parquet`, c)),
          ];
          const plan = planLogCleanup(listing, n - 1, cutoffVersion);
          const deleted = new Set(plan.keys);
          const kept = listing.filter((m) => !deleted.has(m.key));
          // Every version that is not expired, and the latest, can still be rebuilt: a kept checkpoint at or
          // below it plus all kept commits after that checkpoint, or all commits from 0.
          for (let target = 0; target < n; target++) {
            if (target <= cutoffVersion && target !== n - 1) continue;
            const keptKeys = new Set(kept.map((m) => m.key));
            const cps = kept
              .filter((m) => m.key.endsWith(".checkpoint.parquet"))
              .map((m) => Number(m.key.slice(11, 31)))
              .filter((c) => c <= target);
            const start = cps.length ? Math.max(...cps) + 1 : 0;
            for (let v = start; v <= target; v++) {
              if (!keptKeys.has(`_delta_log/${v20(v)}.json`)) return false;
            }
          }
          return plan.keys.every((k) => !k.endsWith("_last_checkpoint"));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("planVacuum", () => {
  const day = 86_400_000;
  const now = 100 * day;
  const base = {
    livePaths: new Set(["a=1/live.parquet"]),
    tombstones: [
      { path: "a=1/old.parquet", deletionTimestamp: now - 10 * day },
      { path: "a=1/recent.parquet", deletionTimestamp: now - day },
      { path: "a=1/live.parquet", deletionTimestamp: now - 30 * day },
      { path: "no-timestamp.parquet", deletionTimestamp: undefined },
    ],
    retentionMs: 7 * day,
    nowMs: now,
  };
  const listing = [
    meta("a=1/live.parquet", 0, 10),
    meta("a=1/old.parquet", 0, 20),
    meta("a=1/recent.parquet", 0, 30),
    meta("no-timestamp.parquet", 0, 40),
    meta("stray-old.parquet", 0, 50),
    meta("stray-new.parquet", now - day, 60),
    meta("_delta_log/00000000000000000000.json", 0, 70),
    meta(".hidden/x.parquet", 0, 80),
    meta("_change_data/cdc-1.parquet", 0, 90),
  ];

  it("lite mode deletes only expired tombstones that are not live again", () => {
    expect(planVacuum({ ...base, listing, full: false })).toEqual({
      keys: ["a=1/old.parquet", "no-timestamp.parquet"],
      bytes: 60,
      unsized: [],
    });
  });

  it("full mode also deletes old untracked files, never the log, hidden paths or recent files", () => {
    expect(planVacuum({ ...base, listing, full: true }).keys).toEqual([
      "_change_data/cdc-1.parquet",
      "a=1/old.parquet",
      "no-timestamp.parquet",
      "stray-old.parquet",
    ]);
  });

  it("hidden paths follow delta-rs", () => {
    expect(isHiddenPath("_tmp/x")).toBe(true);
    expect(isHiddenPath("a=1/.x.crc")).toBe(true);
    expect(isHiddenPath("_change_data/x")).toBe(false);
    expect(isHiddenPath("a=_1/x")).toBe(false);
  });

  it("refuses a retention below the table's unless the check is off", () => {
    expect(() => vacuumRetentionMs(7 * day, 1, true)).toThrow(/shorter than the table/);
    expect(vacuumRetentionMs(7 * day, 1, false)).toBe(3_600_000);
    expect(vacuumRetentionMs(7 * day, undefined, true)).toBe(7 * day);
  });
});
