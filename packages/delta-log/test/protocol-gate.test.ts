// The read and write gates, separately: what we honour, what we refuse (naming the feature), and the
// lowest protocol a new table gets.
import { describe, expect, it } from "vitest";
import {
  checkReadSupport,
  checkWriteSupport,
  type MetadataAction,
  type ProtocolAction,
  protocolForNewTable,
  type WriteKind,
} from "../src/index.js";

function meta(
  configuration: Record<string, string> = {},
  fieldMetadata: Record<string, unknown> = {},
  type = "long",
): MetadataAction {
  return {
    id: "t",
    format: { provider: "parquet", options: {} },
    schemaString: JSON.stringify({
      type: "struct",
      fields: [{ name: "c", type, nullable: true, metadata: fieldMetadata }],
    }),
    partitionColumns: [],
    configuration,
  };
}

const p = (r: number, w: number, readerFeatures?: string[], writerFeatures?: string[]): ProtocolAction => ({
  minReaderVersion: r,
  minWriterVersion: w,
  ...(readerFeatures ? { readerFeatures } : {}),
  ...(writerFeatures ? { writerFeatures } : {}),
});

describe("read gate", () => {
  it.each([
    ["legacy (1,2)", p(1, 2), meta()],
    ["reader 2 without an active column mapping", p(2, 5), meta()],
    ["timestampNtz", p(3, 7, ["timestampNtz"], ["timestampNtz"]), meta({}, {}, "timestamp_ntz")],
    ["v2Checkpoint", p(3, 7, ["v2Checkpoint"], ["v2Checkpoint"]), meta()],
    ["vacuumProtocolCheck", p(3, 7, ["vacuumProtocolCheck"], ["vacuumProtocolCheck"]), meta()],
    ["variantType declared without a variant column", p(3, 7, ["variantType"], ["variantType"]), meta()],
  ])("reads %s", (_name, protocol, metadata) => {
    expect(() => checkReadSupport(protocol, metadata, "t")).not.toThrow();
  });

  it.each([
    ["deletion vectors", p(3, 7, ["deletionVectors"], ["deletionVectors"]), meta(), "deletionVectors"],
    [
      "column mapping (feature)",
      p(3, 7, ["columnMapping"], ["columnMapping"]),
      meta({ "delta.columnMapping.mode": "name" }),
      "columnMapping",
    ],
    [
      "column mapping (reader 2, mode id)",
      p(2, 5),
      meta({ "delta.columnMapping.mode": "id" }),
      "columnMapping",
    ],
    ["an unknown reader feature", p(3, 7, ["futureThing"], ["futureThing"]), meta(), "futureThing"],
    ["type widening", p(3, 7, ["typeWidening"], ["typeWidening"]), meta(), "typeWidening"],
    ["a variant column", p(3, 7, ["variantType"], ["variantType"]), meta({}, {}, "variant"), "variantType"],
    ["reader version 4", p(4, 7, [], []), meta(), "invalidProtocol"],
    ["reader 3 without writer 7", p(3, 6, []), meta(), "invalidProtocol"],
    ["reader 3 without a feature list", p(3, 7, undefined, []), meta(), "invalidProtocol"],
  ])("refuses %s, naming the feature", (_name, protocol, metadata, feature) => {
    expect(() => checkReadSupport(protocol, metadata, "t")).toThrow(
      expect.objectContaining({ kind: "unsupported", name: "DeltaLiteUnsupportedTableError", feature }),
    );
  });
});

describe("write gate", () => {
  it.each([
    ["legacy (1,2)", p(1, 2), meta(), "rewrite"],
    ["writer 4 without CDF enabled", p(1, 4), meta(), "rewrite"],
    ["CDF enabled, append only", p(1, 4), meta({ "delta.enableChangeDataFeed": "true" }), "append"],
    [
      "appendOnly feature",
      p(1, 7, undefined, ["appendOnly"]),
      meta({ "delta.appendOnly": "true" }),
      "append",
    ],
    [
      "variantType declared without a variant column (as delta-rs 1.6.6 declares it)",
      p(3, 7, ["timestampNtz", "variantType"], ["timestampNtz", "variantType", "invariants", "appendOnly"]),
      meta({}, {}, "timestamp_ntz"),
      "rewrite",
    ],
  ] as const)("writes %s", (_name, protocol, metadata, kind) => {
    expect(() => checkWriteSupport(protocol, metadata, "t", kind as WriteKind)).not.toThrow();
  });

  it.each([
    ["CHECK constraints", p(1, 3), meta({ "delta.constraints.positive": "c > 0" }), "checkConstraints"],
    [
      "invariants in use",
      p(1, 2),
      meta({}, { "delta.invariants": '{"expression":{"expression":"c > 3"}}' }),
      "invariants",
    ],
    [
      "generated columns in use",
      p(1, 4),
      meta({}, { "delta.generationExpression": "c + 1" }),
      "generatedColumns",
    ],
    ["CDF enabled for a rewrite", p(1, 4), meta({ "delta.enableChangeDataFeed": "true" }), "changeDataFeed"],
    ["identity columns (writer 6)", p(1, 6), meta({}, { "delta.identity.start": 1 }), "identityColumns"],
    ["domainMetadata", p(1, 7, undefined, ["domainMetadata"]), meta(), "domainMetadata"],
    ["rowTracking", p(1, 7, undefined, ["rowTracking"]), meta(), "rowTracking"],
    [
      "v2Checkpoint (we write classic checkpoints)",
      p(3, 7, ["v2Checkpoint"], ["v2Checkpoint"]),
      meta(),
      "v2Checkpoint",
    ],
    ["an unknown writer feature", p(1, 7, undefined, ["futureWriterThing"]), meta(), "futureWriterThing"],
    ["writer version 8", p(1, 8), meta(), "invalidProtocol"],
  ])("refuses %s, naming the feature", (_name, protocol, metadata, feature) => {
    expect(() => checkWriteSupport(protocol, metadata, "t", "rewrite")).toThrow(
      expect.objectContaining({ kind: "unsupported", feature }),
    );
  });
});

describe("write kinds that remove files", () => {
  const dv = p(3, 7, ["deletionVectors"], ["deletionVectors"]);
  const cdf = meta({ "delta.enableChangeDataFeed": "true" });
  it("a rearrangement (dataChange: false removes) writes no change data, so CDF does not refuse it", () => {
    expect(() => checkWriteSupport(p(1, 4), cdf, "t", "rearrange")).not.toThrow();
  });
  it("a rewrite of a CDF table needs the writer to say how it keeps the feed (written or derived)", () => {
    expect(() => checkWriteSupport(p(1, 4), cdf, "t", "rewrite")).toThrow(
      expect.objectContaining({ kind: "unsupported", feature: "changeDataFeed" }),
    );
    expect(() => checkWriteSupport(p(1, 4), cdf, "t", "rewrite", "written")).not.toThrow();
    expect(() => checkWriteSupport(p(1, 4), cdf, "t", "rewrite", "derived")).not.toThrow();
  });
  it("a rearrangement of a deletion-vector table is refused (the removed files' vectors would be lost)", () => {
    expect(() => checkWriteSupport(dv, meta(), "t", "rearrange")).toThrow(
      expect.objectContaining({ kind: "unsupported", feature: "deletionVectors" }),
    );
  });
});

describe("protocol for a new table", () => {
  const schema = (type: string) => ({
    type: "struct" as const,
    fields: [{ name: "c", type, nullable: true, metadata: {} }],
  });
  it("is (1,2) by default, (3,7)+timestampNtz for a timestamp_ntz column, writer 4 with change data feed", () => {
    expect(protocolForNewTable(schema("long"), {}, "t")).toEqual({
      minReaderVersion: 1,
      minWriterVersion: 2,
    });
    expect(protocolForNewTable(schema("timestamp_ntz"), {}, "t")).toEqual({
      minReaderVersion: 3,
      minWriterVersion: 7,
      readerFeatures: ["timestampNtz"],
      writerFeatures: ["timestampNtz"],
    });
    expect(protocolForNewTable(schema("long"), { "delta.enableChangeDataFeed": "true" }, "t")).toEqual({
      minReaderVersion: 1,
      minWriterVersion: 4,
    });
  });

  it.each([
    [{ "delta.enableDeletionVectors": "true" }, "deletionVectors"],
    [{ "delta.columnMapping.mode": "name" }, "columnMapping"],
    [{ "delta.constraints.x": "c > 0" }, "checkConstraints"],
  ])("refuses configuration %j it cannot honour", (configuration, feature) => {
    expect(() => protocolForNewTable(schema("long"), configuration, "t")).toThrow(
      expect.objectContaining({ feature }),
    );
  });
});
