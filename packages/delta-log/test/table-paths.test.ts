// add.path → store key: decoded exactly once; anything that could leave the table root is invalid_path.
import { describe, expect, it } from "vitest";
import { decodeLogPath } from "../src/index.js";

describe("decodeLogPath", () => {
  it.each([
    ["part-0.parquet", "part-0.parquet"],
    ["day=2026-01-01/part-0.parquet", "day=2026-01-01/part-0.parquet"],
    ["x=A%252FA/f.parquet", "x=A%2FA/f.parquet"],
    ["special%20p@%23h", "special p@#h"],
    ["bar%2Dbar.snappy.parquet", "bar-bar.snappy.parquet"],
    ["data=😈/f.parquet", "data=😈/f.parquet"],
  ])("%s decodes to the key %s", (path, key) => {
    expect(decodeLogPath(path)).toBe(key);
  });

  it.each([
    "/abs/file.parquet",
    "file:/some/path/f.parquet",
    "s3://bucket/table/f.parquet",
    "../outside.parquet",
    "a/../../b.parquet",
    "..//Users/x/f.parquet",
    "%2E%2E/f.parquet",
    "%2Fabs.parquet",
    "a//b.parquet",
    "bad%zz.parquet",
    "",
  ])("%s is refused with invalid_path", (path) => {
    expect(() => decodeLogPath(path)).toThrow(expect.objectContaining({ kind: "invalid_path" }));
  });
});
