// setTableProperties against delta-rs's alter.set_table_properties: twin tables (ours and delta-rs's, the same
// protocol) given the same properties end with the same configuration and protocol, and our commit has
// delta-rs's shape (SET TBLPROPERTIES, operationParameters.properties as JSON text, metaData then protocol).
// Bad input is a typed error that leaves the log byte for byte as it was; a concurrent metadata change is a
// non-retryable conflict, a concurrent append is rebased past; checkpoints follow the interval we set.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Action,
  commitTransaction,
  createTable,
  type DeltaSchema,
  defaultMaintenanceHooks,
  type ProtocolAction,
  parseSchemaString,
  Snapshot,
  setTableProperties,
} from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-set-properties-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const schemaOf = (type: string): DeltaSchema =>
  parseSchemaString(
    JSON.stringify({ type: "struct", fields: [{ name: "id", type, nullable: true, metadata: {} }] }),
    "test schema",
  );

interface DeltaRsView {
  version: number;
  configuration: Record<string, string>;
  protocol: {
    minReaderVersion: number;
    minWriterVersion: number;
    readerFeatures: string[] | null;
    writerFeatures: string[] | null;
  };
  operation: string;
  operationParameters: Record<string, string>;
}
const deltaRsView = (uri: string) => oracle.call<DeltaRsView>("props_read", { uri });

let n = 0;
/** Our table and delta-rs's twin, both created by delta-rs with the same data and configuration. */
async function twins(configuration: Record<string, string> = {}, timestampNtz = false) {
  const [ours, theirs] = [path.join(tmp, `ours-${n}`), path.join(tmp, `theirs-${n++}`)];
  const columns = timestampNtz ? { id: ["2026-01-01T00:00:00"] } : { id: [1] };
  const types = timestampNtz ? { id: "timestamp[us]" } : {};
  for (const uri of [ours, theirs]) {
    await oracle.call("delta_write", { uri, columns, types, configuration });
  }
  return { ours, theirs };
}

const open = (uri: string) => Snapshot.open(new LocalFileStore(uri));

/** Every log file's name and bytes (the log as it is). */
async function logBytes(uri: string): Promise<Record<string, string>> {
  const dir = path.join(uri, "_delta_log");
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(dir)).sort()) {
    out[name] = (await fs.readFile(path.join(dir, name))).toString("base64");
  }
  return out;
}

/**
 * delta-rs 1.6.6 adds `variantType` (reader and writer), `invariants` and `appendOnly` to a table-features
 * protocol on every SET TBLPROPERTIES, variant column or not (its protocol conversion at writer 7); we do not
 * copy that (a spurious `variantType` reader feature locks out readers without variant support). Compared
 * without those three, except `appendOnly` where the table enables it or enabled it at an earlier step (a
 * declared feature stays declared when its property is later set to false, in both writers).
 */
function withoutDeltaRsExtras(
  view: DeltaRsView["protocol"],
  configuration: Record<string, string>,
  appendOnlyEverEnabled = false,
) {
  const appendOnly = appendOnlyEverEnabled || configuration["delta.appendOnly"]?.toLowerCase() === "true";
  const extras = ["variantType", "invariants", ...(appendOnly ? [] : ["appendOnly"])];
  const keep = (list: string[] | null) => (list === null ? null : list.filter((f) => !extras.includes(f)));
  return { ...view, readerFeatures: keep(view.readerFeatures), writerFeatures: keep(view.writerFeatures) };
}

function normalised(protocol: ProtocolAction) {
  return {
    minReaderVersion: protocol.minReaderVersion,
    minWriterVersion: protocol.minWriterVersion,
    readerFeatures: protocol.readerFeatures ? [...protocol.readerFeatures].sort() : null,
    writerFeatures: protocol.writerFeatures ? [...protocol.writerFeatures].sort() : null,
  };
}

/** Sets `properties` on both twins; returns what delta-rs reads back from each. */
async function setOnBoth(pair: { ours: string; theirs: string }, properties: Record<string, string>) {
  const result = await setTableProperties(await open(pair.ours), properties);
  await oracle.call("props_set", { uri: pair.theirs, properties });
  const [ours, theirs] = await Promise.all([deltaRsView(pair.ours), deltaRsView(pair.theirs)]);
  return { result, ours, theirs };
}

describe("setTableProperties: as delta-rs's set_table_properties", () => {
  it("one SET TBLPROPERTIES commit in delta-rs's shape; delta-rs reads the configuration back", async () => {
    const pair = await twins();
    const properties = { "delta.checkpointInterval": "10", "delta.logRetentionDuration": "interval 2 days" };
    const { result, ours, theirs } = await setOnBoth(pair, properties);
    expect(result.version).toBe(1);
    expect(result.protocolUpgraded).toBe(false);
    expect(ours.configuration).toEqual(theirs.configuration);
    expect(ours.configuration).toEqual(properties);
    expect(ours.operation).toBe("SET TBLPROPERTIES");
    expect(ours.operation).toBe(theirs.operation);
    expect(JSON.parse(ours.operationParameters.properties!)).toEqual(
      JSON.parse(theirs.operationParameters.properties!),
    );
    const lines = (
      await fs.readFile(path.join(pair.ours, "_delta_log", `${"1".padStart(20, "0")}.json`), "utf8")
    )
      .trim()
      .split("\n")
      .map((l) => Object.keys(JSON.parse(l))[0]);
    expect(lines).toEqual(["commitInfo", "metaData"]);
  });

  it.each([
    ["legacy (1,2)", {}, false],
    ["CDF already on (1,4)", { "delta.enableChangeDataFeed": "true" }, false],
    ["table features (3,7, timestampNtz)", {}, true],
    ["append-only table features", { "delta.appendOnly": "true" }, true],
  ] as const)(
    "enabling the change data feed upgrades the protocol as delta-rs does: %s",
    async (_, config, ntz) => {
      const pair = await twins({ ...config }, ntz);
      const before = (await open(pair.ours)).protocol;
      const { result, ours, theirs } = await setOnBoth(pair, { "delta.enableChangeDataFeed": "true" });
      expect(ours.protocol).toEqual(withoutDeltaRsExtras(theirs.protocol, theirs.configuration));
      if (ntz) expect(ours.protocol.writerFeatures).toContain("changeDataFeed");
      expect(ours.configuration).toEqual(theirs.configuration);
      expect(normalised(result.protocol)).toEqual(ours.protocol);
      expect(result.protocolUpgraded).toBe(
        JSON.stringify(normalised(before)) !== JSON.stringify(ours.protocol),
      );
      if (result.protocolUpgraded) {
        const log = await fs.readFile(
          path.join(pair.ours, "_delta_log", `${String(result.version).padStart(20, "0")}.json`),
          "utf8",
        );
        expect(
          log
            .trim()
            .split("\n")
            .map((l) => Object.keys(JSON.parse(l))[0]),
        ).toEqual(["commitInfo", "metaData", "protocol"]);
      }
    },
  );

  it("random sequences of property changes: configuration and protocol equal delta-rs's at every step", async () => {
    const change = fc.dictionary(
      fc.constantFrom(
        "delta.checkpointInterval",
        "delta.enableChangeDataFeed",
        "delta.appendOnly",
        "delta.logRetentionDuration",
        "delta.targetFileSize",
        "my.own.setting",
      ),
      fc.constantFrom("true", "false", "3", "17", "interval 3 days"),
      { minKeys: 1, maxKeys: 3 },
    );
    // Only valid values: each key gets a value of its kind.
    const valid = (key: string, value: string) =>
      key.startsWith("my.") ||
      ({
        "delta.checkpointInterval": /^\d+$/,
        "delta.targetFileSize": /^\d+$/,
        "delta.enableChangeDataFeed": /^(true|false)$/,
        "delta.appendOnly": /^(true|false)$/,
        "delta.logRetentionDuration": /^interval/,
      }[key]?.test(value) ??
        false);
    await fc.assert(
      fc.asyncProperty(
        fc.array(change, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (changes, ntz) => {
          const pair = await twins({}, ntz);
          let appendOnlyEverEnabled = false;
          for (const raw of changes) {
            const properties = Object.fromEntries(Object.entries(raw).filter(([k, v]) => valid(k, v)));
            if (Object.keys(properties).length === 0) continue;
            // delta-rs refuses keys outside the delta. namespace; ours keeps them (a known difference).
            const theirs = Object.fromEntries(
              Object.entries(properties).filter(([k]) => k.startsWith("delta.")),
            );
            appendOnlyEverEnabled ||= properties["delta.appendOnly"] === "true";
            await setTableProperties(await open(pair.ours), properties);
            if (Object.keys(theirs).length > 0)
              await oracle.call("props_set", { uri: pair.theirs, properties: theirs });
            const [o, t] = await Promise.all([deltaRsView(pair.ours), deltaRsView(pair.theirs)]);
            expect(o.protocol).toEqual(
              withoutDeltaRsExtras(t.protocol, t.configuration, appendOnlyEverEnabled),
            );
            const delta = (c: Record<string, string>) =>
              Object.fromEntries(Object.entries(c).filter(([k]) => k.startsWith("delta.")));
            expect(delta(o.configuration)).toEqual(delta(t.configuration));
          }
        },
      ),
      {
        numRuns: 40,
        // CI seed 926421992: appendOnly enabled, then disabled, on a table-features table (the feature stays).
        examples: [[[{ "delta.appendOnly": "true" }, { "delta.appendOnly": "false" }], true]],
      },
    );
  });
});

describe("bad input: a typed error and the table exactly as it was", () => {
  it.each([
    [{ "delta.checkpointIntervl": "5" }, "invalid_argument", 'did you mean "delta.checkpointInterval"'],
    [{ "delta.appendonly": "true" }, "invalid_argument", 'did you mean "delta.appendOnly"'],
    [{ "delta.checkpointInterval": "0" }, "invalid_argument", "positive integer"],
    [{ "delta.checkpointInterval": "abc" }, "invalid_argument", "positive integer"],
    [{ "delta.enableChangeDataFeed": "yes" }, "invalid_argument", "true or false"],
    [{ "delta.logRetentionDuration": "soon" }, "invalid_argument", "interval"],
    [{}, "invalid_argument", "no table properties"],
    [{ "delta.checkpointInterval": 3 }, "invalid_argument", "string value"],
    [{ "delta.columnMapping.mode": "name" }, "unsupported", "columnMapping"],
    [{ "delta.enableDeletionVectors": "true" }, "unsupported", "deletionVectors"],
    [{ "delta.checkpointPolicy": "v2" }, "unsupported", "v2Checkpoint"],
    [{ "delta.minWriterVersion": "7" }, "unsupported", "directly"],
  ])("%j → %s", async (properties, kind, text) => {
    const { ours } = await twins();
    const before = await logBytes(ours);
    const attempt = setTableProperties(await open(ours), properties as Record<string, string>);
    await expect(attempt).rejects.toMatchObject({ kind });
    await expect(attempt).rejects.toThrow(text);
    expect(await logBytes(ours)).toEqual(before);
  });

  it("delta-rs refuses what we refuse as invalid where it checks: unknown delta.* keys and CDF values", async () => {
    const { theirs } = await twins();
    for (const properties of [{ "delta.checkpointIntervl": "5" }, { "delta.enableChangeDataFeed": "yes" }]) {
      await expect(oracle.call("props_set", { uri: theirs, properties })).rejects.toThrow();
    }
  });
});

describe("concurrency: the commit layer's checker", () => {
  it("a concurrent property change is a non-retryable conflict, and nothing of the loser is written", async () => {
    const { ours } = await twins();
    const [a, b] = await Promise.all([open(ours), open(ours)]);
    await setTableProperties(a, { "delta.checkpointInterval": "5" });
    const before = await logBytes(ours);
    const lost = setTableProperties(b, { "delta.checkpointInterval": "7" });
    await expect(lost).rejects.toMatchObject({ kind: "conflict", retryable: false });
    await expect(lost).rejects.toThrow("MetadataChanged");
    expect(await logBytes(ours)).toEqual(before);
    expect((await open(ours)).configuration).toEqual({ "delta.checkpointInterval": "5" });
  });

  it("a concurrent append is rebased past (a property change reads no data)", async () => {
    const { ours } = await twins();
    const stale = await open(ours);
    const appended = await commitTransaction(await open(ours), [addAction("extra")], { operation: "WRITE" });
    expect(appended.version).toBe(1);
    const rebased = await setTableProperties(stale, { "delta.appendOnly": "false" });
    expect(rebased.version).toBe(2);
    expect(rebased.commit.rebasedPast).toEqual([1]);
    expect((await open(ours)).numFiles).toBe(2);
  });

  it("a write that read the table before a property change conflicts (not retryable)", async () => {
    const { ours } = await twins();
    const stale = await open(ours);
    await setTableProperties(await open(ours), { "delta.enableChangeDataFeed": "true" });
    const write = commitTransaction(stale, [addAction("late")], { operation: "WRITE" });
    await expect(write).rejects.toMatchObject({ kind: "conflict", retryable: false });
  });
});

function addAction(name: string): Action {
  return {
    add: { path: `${name}.parquet`, partitionValues: {}, size: 10, modificationTime: 1, dataChange: true },
  };
}

describe("checkpoints follow the interval we set", () => {
  it("after delta.checkpointInterval=3 our commits checkpoint when (version + 1) % 3 == 0", async () => {
    const { ours } = await twins();
    await setTableProperties(await open(ours), { "delta.checkpointInterval": "3" });
    for (let i = 0; i < 7; i++) {
      await commitTransaction(await open(ours), [addAction(`f${i}`)], {
        operation: "WRITE",
        hooks: defaultMaintenanceHooks(),
      });
    }
    const names = await fs.readdir(path.join(ours, "_delta_log"));
    const versions = names
      .filter((f) => f.endsWith(".checkpoint.parquet"))
      .map((f) => Number(f.slice(0, 20)));
    expect(versions.sort((x, y) => x - y)).toEqual([2, 5, 8]);
  });

  it("a legacy protocol read back from a checkpoint (null feature lists) is changed like any other", async () => {
    // Found by the property test (seed 352944816): the checkpoint's protocol row has null feature lists.
    const { ours } = await twins();
    await setTableProperties(await open(ours), { "delta.checkpointInterval": "1" });
    const names = await fs.readdir(path.join(ours, "_delta_log"));
    expect(names.some((f) => f.endsWith(".checkpoint.parquet"))).toBe(true);
    const snapshot = await open(ours);
    expect(snapshot.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
    const changed = await setTableProperties(snapshot, { "delta.checkpointInterval": "17" });
    expect(changed).toMatchObject({ protocolUpgraded: false });
    const cdf = await setTableProperties(await open(ours), { "delta.enableChangeDataFeed": "true" });
    expect(cdf.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 4 });
    expect((await deltaRsView(ours)).protocol).toMatchObject({ minReaderVersion: 1, minWriterVersion: 4 });
  });

  it("a table created with the interval checkpoints on it from the start", async () => {
    const uri = path.join(tmp, `created-${n++}`);
    await createTable(new LocalFileStore(uri), {
      schema: schemaOf("long"),
      configuration: { "delta.checkpointInterval": "2", "delta.enableChangeDataFeed": "true" },
    });
    expect((await open(uri)).protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 4 });
    const view = await deltaRsView(uri);
    expect(view.configuration).toEqual({
      "delta.checkpointInterval": "2",
      "delta.enableChangeDataFeed": "true",
    });
  });
});
