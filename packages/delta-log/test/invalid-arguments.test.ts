/**
 * Bad caller input to delta-log is `invalid_argument` (corrupt data keeps its own kinds): snapshot
 * versions and timestamps, vacuum retention, reserved commit metadata keys, commitInfo passed as an action,
 * and a partition column the schema lacks ("did you mean"). Each refusal writes nothing.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildCommitInfo,
  commitKey,
  commitTransaction,
  createTable,
  parseSchemaString,
  Snapshot,
  vacuum,
} from "../src/index.js";

let tmp: string;
let root: string;
let store: LocalFileStore;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-invalid-args-"));
  root = path.join(tmp, "t");
  store = new LocalFileStore(root);
  await createTable(store, { schema, partitionColumns: ["event_day"] });
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const schema = parseSchemaString(
  JSON.stringify({
    type: "struct",
    fields: [
      { name: "id", type: "long", nullable: true, metadata: {} },
      { name: "event_day", type: "string", nullable: true, metadata: {} },
    ],
  }),
  "test schema",
);

const invalid = (words: string) =>
  expect.objectContaining({ kind: "invalid_argument", message: expect.stringContaining(words) });

async function logFiles(): Promise<string[]> {
  return (await fs.readdir(path.join(root, "_delta_log"))).sort();
}

describe("snapshot options", () => {
  it.each([
    [{ version: -1 }, "invalid table version -1"],
    [{ version: 1.5 }, "invalid table version 1.5"],
    [{ timestamp: "not a time" }, "invalid timestamp not a time"],
    [{ version: 0, timestamp: Date.now() }, "at a version or at a timestamp, not both"],
  ])("%j", async (options, words) => {
    await expect(Snapshot.open(store, options)).rejects.toThrow(invalid(words));
  });

  it("a version that is not there yet stays not_found (a fact, not a bad argument)", async () => {
    await expect(Snapshot.open(store, { version: 5 })).rejects.toMatchObject({ kind: "not_found" });
  });

  it("log keys of a bad version are refused the same way", () => {
    expect(() => commitKey(-2)).toThrow(invalid("invalid table version -2"));
  });
});

describe("vacuum options", () => {
  it.each([
    [{ retentionHours: -1 }, "retentionHours must be a non-negative number (got -1)"],
    [{ retentionHours: Number.NaN }, "(got NaN)"],
    [{ retentionHours: 1 }, "pass enforceRetentionDuration: false"],
  ])("%j is refused before anything is deleted or committed", async (options, words) => {
    const before = await logFiles();
    await expect(vacuum(await Snapshot.open(store), options)).rejects.toThrow(invalid(words));
    expect(await logFiles()).toEqual(before);
  });
});

describe("commit options", () => {
  it("a reserved commit metadata key names the reserved keys", () => {
    expect(() => buildCommitInfo({ operation: "WRITE", commitMetadata: { readVersion: 3 } })).toThrow(
      invalid('commit metadata key "readVersion" is reserved for commitInfo (reserved: timestamp'),
    );
  });

  it("commitInfo given as an action is refused and nothing is committed", async () => {
    const before = await logFiles();
    const snapshot = await Snapshot.open(store);
    await expect(
      commitTransaction(snapshot, [{ commitInfo: { operation: "X" } } as never], { operation: "WRITE" }),
    ).rejects.toThrow(invalid("pass commitInfo fields as commit options"));
    expect(await logFiles()).toEqual(before);
  });

  it("a partition column the schema lacks names the closest column, and writes nothing", async () => {
    const root = path.join(tmp, "typo");
    await expect(
      createTable(new LocalFileStore(root), { schema, partitionColumns: ["event_dya"] }),
    ).rejects.toThrow(
      invalid('partition column "event_dya" is not in the schema (did you mean "event_day"?)'),
    );
    await expect(fs.readdir(root).catch(() => [])).resolves.toEqual([]);
  });
});
