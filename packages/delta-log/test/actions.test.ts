// Commit JSON codec: one action per line, no trailing newline, unknown fields and actions preserved,
// malformed lines refused as corrupt_log; the file-identity key includes the deletion vector.
import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };
import {
  ACTION_KEYS,
  actionKey,
  buildCommitInfo,
  CLIENT_VERSION,
  DELTA_LOG_VERSION,
  deletionVectorId,
  ENGINE_INFO,
  type ParsedAction,
  parseCommit,
  serializeCommit,
} from "../src/index.js";

const actions: ParsedAction[] = [
  { commitInfo: { timestamp: 1, operation: "WRITE", operationParameters: { mode: "Append" } } },
  {
    protocol: {
      minReaderVersion: 3,
      minWriterVersion: 7,
      readerFeatures: ["timestampNtz"],
      writerFeatures: ["timestampNtz"],
    },
  },
  {
    metaData: {
      id: "id-1",
      format: { provider: "parquet", options: {} },
      schemaString: '{"type":"struct","fields":[]}',
      partitionColumns: [],
      configuration: {},
      createdTime: 5,
    },
  },
  {
    add: {
      path: "a%20b.parquet",
      partitionValues: {},
      size: 3,
      modificationTime: 4,
      dataChange: true,
      stats: "{}",
      futureField: 1,
    } as never,
  },
  { remove: { path: "c.parquet", deletionTimestamp: 9, dataChange: false } },
  { txn: { appId: "app", version: 3 } },
  { domainMetadata: { domain: "d", configuration: "{}", removed: false } },
  { unknown: { someFutureAction: { x: 1 } } },
];

describe("commit codec", () => {
  it("serialises one action per line with no trailing newline and parses back to the same actions", () => {
    const bytes = serializeCommit(actions);
    const text = new TextDecoder().decode(bytes);
    expect(text.split("\n")).toHaveLength(actions.length);
    expect(text.endsWith("\n")).toBe(false);
    expect(parseCommit(bytes, "test")).toEqual(actions);
    expect(actions.map(actionKey)).toEqual([
      "commitInfo",
      "protocol",
      "metaData",
      "add",
      "remove",
      "txn",
      "domainMetadata",
      "unknown",
    ]);
  });

  it("fills protocol defaults that older writers omit (add.dataChange, metaData.configuration)", () => {
    const [add, meta] = parseCommit(
      '{"add":{"path":"x","size":1,"partitionValues":{},"modificationTime":0}}\n{"metaData":{"id":"i","schemaString":"{}","partitionColumns":[]}}\n',
      "t",
    );
    expect(add).toMatchObject({ add: { dataChange: true } });
    expect(meta).toMatchObject({ metaData: { configuration: {}, format: { provider: "parquet" } } });
  });

  it.each([
    ["not JSON", "{oops"],
    ["two actions on one line", '{"add":{"path":"x","size":1},"remove":{"path":"y"}}'],
    ["a wrongly typed field", '{"add":{"path":3,"size":1}}'],
    ["a non-object action", '{"protocol":5}'],
  ])("refuses %s with corrupt_log", (_name, line) => {
    expect(() => parseCommit(line, "t")).toThrow(expect.objectContaining({ kind: "corrupt_log" }));
  });

  it("has a key constant for every PROTOCOL.md action", () => {
    expect([...ACTION_KEYS].sort()).toEqual(
      [
        "add",
        "cdc",
        "checkpointMetadata",
        "commitInfo",
        "domainMetadata",
        "metaData",
        "protocol",
        "remove",
        "sidecar",
        "txn",
      ].sort(),
    );
  });

  it("identifies deletion vectors by storage type, path or inline data, and offset", () => {
    expect(deletionVectorId(undefined)).toBeUndefined();
    expect(
      deletionVectorId({
        storageType: "u",
        pathOrInlineDv: "ab^",
        offset: 4,
        sizeInBytes: 1,
        cardinality: 1,
      }),
    ).toBe("uab^@4");
    expect(deletionVectorId({ storageType: "i", pathOrInlineDv: "zz", sizeInBytes: 1, cardinality: 1 })).toBe(
      "izz",
    );
  });
});

describe("commitInfo", () => {
  it("names this library and version, stringifies operationParameters and keeps custom metadata flat", () => {
    expect(DELTA_LOG_VERSION).toBe(pkg.version);
    const info = buildCommitInfo({
      operation: "MERGE",
      operationParameters: { predicate: "id = 1", partitionBy: ["day"], skipped: null },
      operationMetrics: { numTargetRowsInserted: 3 },
      commitMetadata: { source: "sync" },
      readVersion: 4,
      isBlindAppend: false,
      timestamp: 10,
    });
    expect(info).toEqual({
      timestamp: 10,
      operation: "MERGE",
      operationParameters: { predicate: "id = 1", partitionBy: '["day"]' },
      readVersion: 4,
      isBlindAppend: false,
      engineInfo: ENGINE_INFO,
      operationMetrics: { numTargetRowsInserted: 3 },
      clientVersion: CLIENT_VERSION,
      source: "sync",
    });
    expect(ENGINE_INFO).toBe(`deltalite-ts/${pkg.version}`);
    expect(() => buildCommitInfo({ operation: "WRITE", commitMetadata: { operation: "x" } })).toThrow(
      expect.objectContaining({ kind: "invalid_argument" }),
    );
  });
});
