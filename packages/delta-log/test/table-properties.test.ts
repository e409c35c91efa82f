/**
 * Table properties refused like delta-rs refuses them: each `delta.*` key is offered to delta-rs
 * (write_deltalake through the oracle) and to our createTable; both accept or both refuse (ours with
 * `invalid_argument` and a "did you mean"), names are case-sensitive, and a refused table leaves nothing
 * behind. Keys outside the `delta.` namespace are where we knowingly differ (delta-rs refuses them too).
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle, OracleError } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTable,
  KNOWN_DELTA_TABLE_PROPERTIES,
  parseSchemaString,
  validateTableProperties,
} from "../src/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-properties-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const schema = parseSchemaString(
  JSON.stringify({ type: "struct", fields: [{ name: "id", type: "long", nullable: true, metadata: {} }] }),
  "test schema",
);

let n = 0;
async function deltaRsAccepts(key: string, value: string): Promise<boolean> {
  const uri = path.join(tmp, `theirs-${n++}`);
  try {
    await oracle.call("delta_write", { uri, columns: { id: [1] }, configuration: { [key]: value } });
    return true;
  } catch (error) {
    if (!(error instanceof OracleError)) throw error;
    expect(error.message).toContain(`Error parsing property '${key}'`);
    return false;
  }
}

async function oursAccepts(key: string, value: string): Promise<{ accepted: boolean; error?: Error }> {
  const root = path.join(tmp, `ours-${n++}`);
  const outcome = await createTable(new LocalFileStore(root), {
    schema,
    configuration: { [key]: value },
  }).then(
    () => ({ accepted: true }),
    (error: Error) => ({ accepted: false, error }),
  );
  if (!outcome.accepted) {
    // Refused: nothing was written.
    await expect(fs.readdir(root).catch(() => [])).resolves.toEqual([]);
  }
  return outcome;
}

describe("delta.* keys: the same verdict as delta-rs", () => {
  it.each([
    ["delta.appendOnly", "true"],
    ["delta.logRetentionDuration", "interval 1 day"],
    ["delta.deletedFileRetentionDuration", "interval 2 days"],
    ["delta.checkpointInterval", "10"],
    ["delta.targetFileSize", "1000"],
    ["delta.randomPrefixLength", "2"],
    ["delta.autoOptimize.autoCompact", "true"],
    ["delta.dataSkippingStatsColumns", "id"],
    ["delta.foo", "1"],
    ["delta.appendonly", "true"],
    ["Delta.appendOnly", "true"],
    ["DELTA.APPENDONLY", "true"],
    ["delta.enableInCommitTimestamps", "true"],
    ["delta.checkpoint.useRunLengthEncoding", "true"],
    ["delta.universalFormat.enabledFormats", "iceberg"],
    ["delta.", "x"],
  ])("%s", async (key, value) => {
    const theirs = await deltaRsAccepts(key, value);
    const mine = await oursAccepts(key, value);
    expect(mine.accepted).toBe(theirs);
    if (!mine.accepted) {
      expect(mine.error).toMatchObject({ kind: "invalid_argument" });
      expect(mine.error?.message).toContain(`unknown table property ${JSON.stringify(key)}`);
    }
  });
});

describe("our rule", () => {
  it("names the closest known property, case-only differences included", () => {
    expect(() => validateTableProperties({ "delta.appendonly": "true" }, "t")).toThrow(
      'unknown table property "delta.appendonly" (did you mean "delta.appendOnly"?)',
    );
    expect(() => validateTableProperties({ "delta.checkpointIntervl": "5" }, "t")).toThrow(
      '(did you mean "delta.checkpointInterval"?)',
    );
  });

  it("every key delta-rs knows passes, and keys outside the delta. namespace pass (delta-rs refuses them)", async () => {
    const all = Object.fromEntries(KNOWN_DELTA_TABLE_PROPERTIES.map((k) => [k, "x"]));
    expect(() => validateTableProperties(all, "t")).not.toThrow();
    expect(await deltaRsAccepts("my.own.setting", "1")).toBe(false);
    expect((await oursAccepts("my.own.setting", "1")).accepted).toBe(true);
  });

  it("features we cannot honour stay unsupported, naming the feature", async () => {
    const mine = await oursAccepts("delta.enableDeletionVectors", "true");
    expect(mine.error).toMatchObject({ kind: "unsupported", feature: "deletionVectors" });
  });
});
