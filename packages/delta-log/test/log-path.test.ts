// The one log-path classifier: every kind of `_delta_log` file name, and names that must stay `unknown`.
import { describe, expect, it } from "vitest";
import { checkpointKey, commitKey, parseLogPath } from "../src/index.js";

describe("parseLogPath", () => {
  it.each([
    ["_delta_log/00000000000000000007.json", { kind: "commit", version: 7 }],
    ["00000000000000000010.checkpoint.parquet", { kind: "checkpoint", version: 10 }],
    [
      "_delta_log/00000000000000000001.checkpoint.0000000002.0000000003.parquet",
      { kind: "multipartCheckpoint", version: 1, part: 2, numParts: 3 },
    ],
    [
      "_delta_log/00000000000000000002.checkpoint.6374b053-df23-479b-b2cf-c9c550132b49.json",
      { kind: "uuidCheckpoint", version: 2, uuid: "6374b053-df23-479b-b2cf-c9c550132b49", format: "json" },
    ],
    [
      "_delta_log/00000000000000000002.checkpoint.e8fa2696-9728-4e9c-b285-634743fdd4fb.parquet",
      { kind: "uuidCheckpoint", version: 2, format: "parquet" },
    ],
    ["_delta_log/00000000000000000003.crc", { kind: "crc", version: 3 }],
    [
      "_delta_log/00000000000000000004.00000000000000000009.compacted.json",
      { kind: "compacted", version: 4, endVersion: 9 },
    ],
  ])("%s is classified", (key, expected) => {
    expect(parseLogPath(key)).toMatchObject({ ...expected, key });
  });

  it.each([
    "_delta_log/_last_checkpoint",
    "_delta_log/_sidecars/00000000000000000002.checkpoint.0000000001.0000000002.bd1885fd.parquet",
    "_delta_log/.00000000000000000000.json.crc",
    "_delta_log/0000000000000000007.json",
    "_delta_log/00000000000000000007.json.tmp",
    "_delta_log/00000000000000000001.checkpoint.0000000004.0000000003.parquet",
    "_delta_log/00000000000000000009.00000000000000000004.compacted.json",
    "part-00000.parquet",
    "other/00000000000000000007.json",
    "_delta_log/99999999999999999999.json",
  ])("%s is unknown", (key) => {
    expect(parseLogPath(key).kind).toBe("unknown");
  });

  it("formats 20-digit keys that classify back to their version", () => {
    expect(commitKey(42)).toBe("_delta_log/00000000000000000042.json");
    expect(parseLogPath(checkpointKey(99))).toMatchObject({ kind: "checkpoint", version: 99 });
    expect(() => commitKey(-1)).toThrow();
    expect(() => commitKey(1.5)).toThrow();
  });
});
