// Log-segment invariants on synthetic listings: newest complete checkpoint at or below the version, a
// multi-part checkpoint counts only when complete, commit gaps are corrupt_log, versions outside the log are
// not_found, an empty log is "table not found", and a very long log is handled without argument spreading.
import { describe, expect, it } from "vitest";
import { buildSegment, type LogFile, parseLogPath } from "../src/index.js";

function listing(names: string[]): LogFile[] {
  return names.map((name) => {
    const key = `_delta_log/${name}`;
    return { ...parseLogPath(key), meta: { key, size: 10, etag: undefined, lastModified: 0 } } as LogFile;
  });
}
const v = (n: number) => String(n).padStart(20, "0");
const commits = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${v(from + i)}.json`);

describe("buildSegment", () => {
  it("uses the newest complete checkpoint and the commits after it", () => {
    const segment = buildSegment(
      listing([...commits(0, 12), `${v(5)}.checkpoint.parquet`, `${v(10)}.checkpoint.parquet`]),
      undefined,
      "t",
    );
    expect(segment.version).toBe(12);
    expect(segment.checkpoint?.version).toBe(10);
    expect(segment.commits.map((c) => c.version)).toEqual([11, 12]);
  });

  it("time travel below the newest checkpoint walks back to an older one", () => {
    const segment = buildSegment(
      listing([...commits(0, 12), `${v(5)}.checkpoint.parquet`, `${v(10)}.checkpoint.parquet`]),
      7,
      "t",
    );
    expect(segment.checkpoint?.version).toBe(5);
    expect(segment.commits.map((c) => c.version)).toEqual([6, 7]);
  });

  it("ignores an incomplete multi-part checkpoint and orders a complete one's parts", () => {
    const names = [
      ...commits(0, 6),
      `${v(3)}.checkpoint.0000000002.0000000002.parquet`,
      `${v(3)}.checkpoint.0000000001.0000000002.parquet`,
      `${v(5)}.checkpoint.0000000001.0000000003.parquet`,
      `${v(5)}.checkpoint.0000000003.0000000003.parquet`,
    ];
    const segment = buildSegment(listing(names), undefined, "t");
    expect(segment.checkpoint?.version).toBe(3);
    expect(segment.checkpoint?.files.map((f) => f.key)).toEqual([
      `_delta_log/${v(3)}.checkpoint.0000000001.0000000002.parquet`,
      `_delta_log/${v(3)}.checkpoint.0000000002.0000000002.parquet`,
    ]);
    expect(segment.commits.map((c) => c.version)).toEqual([4, 5, 6]);
  });

  it("reads a table whose commits before the checkpoint were cleaned up", () => {
    const segment = buildSegment(
      listing([`${v(10)}.checkpoint.parquet`, ...commits(10, 11)]),
      undefined,
      "t",
    );
    expect(segment.checkpoint?.version).toBe(10);
    expect(segment.commits.map((c) => c.version)).toEqual([11]);
  });

  it.each([
    ["a gap in the commits", [...commits(0, 2), ...commits(4, 5)], undefined, "corrupt_log"],
    ["a version after the latest", commits(0, 3), 9, "not_found"],
    ["a version before the oldest kept commit with no checkpoint", commits(3, 5), 4, "not_found"],
    ["an empty log", [], undefined, "not_found"],
  ] as const)("%s is refused with %s", (_name, names, version, kind) => {
    expect(() => buildSegment(listing([...names]), version, "t")).toThrow(expect.objectContaining({ kind }));
  });

  it("an empty log is DeltaLiteTableNotFoundError", () => {
    expect(() => buildSegment([], undefined, "t")).toThrow(
      expect.objectContaining({ name: "DeltaLiteTableNotFoundError" }),
    );
  });

  it("handles a log of 300,000 commits", () => {
    const names = [...commits(0, 299_999), `${v(299_900)}.checkpoint.parquet`];
    const segment = buildSegment(listing(names), undefined, "t");
    expect(segment.version).toBe(299_999);
    expect(segment.commits).toHaveLength(99);
  });
});
