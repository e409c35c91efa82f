import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { LocalFileStore, normalizeStorageOptions, openStore, parseLocation, S3Store } from "../src/index.js";

const kind = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return (error as { kind: string }).kind;
  }
  return "no error";
};

describe("parseLocation", () => {
  it.each([
    ["relative/table", { scheme: "file", path: path.resolve("relative/table") }],
    ["/abs/table", { scheme: "file", path: "/abs/table" }],
    ["file:///abs/t%20x", { scheme: "file", path: "/abs/t x" }],
    ["memory://mem", { scheme: "memory", name: "mem", prefix: "" }],
    ["memory://mem/a/b/", { scheme: "memory", name: "mem", prefix: "a/b" }],
    ["s3://bucket", { scheme: "s3", bucket: "bucket", prefix: "" }],
    [
      "s3://my.bucket-1/warehouse/events/",
      { scheme: "s3", bucket: "my.bucket-1", prefix: "warehouse/events" },
    ],
    ["S3://bucket/x", { scheme: "s3", bucket: "bucket", prefix: "x" }],
  ])("parses %s", (uri, expected) => {
    expect(parseLocation(uri)).toEqual(expected);
  });

  it.each([
    ["", "invalid_path"],
    ["s3://bucket/../other", "invalid_path"],
    ["s3://bucket/a//b", "invalid_path"],
    ["s3://Bad_Bucket/x", "invalid_path"],
    ["s3://key:secret@bucket/x", "invalid_path"],
    ["gs://bucket/x", "unsupported"],
  ])("rejects %j with %s", (uri, expected) => {
    expect(kind(() => parseLocation(uri))).toBe(expected);
  });

  it("never echoes user info that may be a credential", () => {
    try {
      parseLocation("s3://AKIAEXAMPLE:supersecret@bucket/x");
    } catch (error) {
      expect((error as Error).message).not.toContain("supersecret");
    }
  });
});

describe("storage options", () => {
  it("accepts canonical names and delta-rs aliases in any case", () => {
    expect(
      normalizeStorageOptions({
        aws_region: "eu-west-1",
        AWS_ENDPOINT: "http://x",
        Aws_Allow_Http: "true",
        token: "t",
      }),
    ).toEqual({
      AWS_REGION: "eu-west-1",
      AWS_ENDPOINT_URL: "http://x",
      AWS_ALLOW_HTTP: "true",
      AWS_SESSION_TOKEN: "t",
    });
  });

  it("rejects unknown keys, naming the key and not the value", () => {
    try {
      normalizeStorageOptions({ AWS_SECRET_ACESS_KEY: "hunter2" });
      expect.unreachable();
    } catch (error) {
      expect((error as { kind: string }).kind).toBe("invalid_argument");
      expect((error as Error).message).toContain("AWS_SECRET_ACESS_KEY");
      expect((error as Error).message).toContain('(did you mean "AWS_SECRET_ACCESS_KEY"?)');
      expect((error as Error).message).not.toContain("hunter2");
    }
  });

  it("requires AWS_ALLOW_HTTP for an http:// endpoint, and key id and secret together", () => {
    expect(
      kind(() =>
        openStore("s3://bucket", { storageOptions: { AWS_ENDPOINT_URL: "http://127.0.0.1:1" }, env: {} }),
      ),
    ).toBe("invalid_argument");
    expect(
      kind(() => openStore("s3://bucket", { storageOptions: { AWS_ACCESS_KEY_ID: "a" }, env: {} })),
    ).toBe("invalid_argument");
    expect(
      kind(() => openStore("s3://bucket", { storageOptions: { AWS_ALLOW_HTTP: "maybe" }, env: {} })),
    ).toBe("invalid_argument");
  });

  it("opens the store for each scheme; explicit options win over the environment", () => {
    expect(openStore("/tmp/x")).toBeInstanceOf(LocalFileStore);
    const s3 = openStore("s3://bucket/p", {
      storageOptions: { AWS_REGION: "eu-central-1" },
      env: { AWS_REGION: "us-west-2", AWS_ENDPOINT_URL: "https://s3.example" },
    });
    expect(s3).toBeInstanceOf(S3Store);
    expect(s3.root).toBe("s3://bucket/p");
  });
});
