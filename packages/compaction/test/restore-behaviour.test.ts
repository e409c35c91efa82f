/**
 * `restore` beyond parity: bad arguments are `invalid_argument` and leave the table exactly as it was; an
 * instant after the newest commit is refused, one before the first resolves to version 0 (as delta-rs); a
 * file vacuumed away (on the moto S3 server, by delta-rs's vacuum) is `not_found` with nothing committed,
 * where delta-rs refuses too; on S3 a restore is read back by delta-rs as the restored version; a commit by
 * another writer after the table was loaded makes the restore a conflict, and nothing of ours lands.
 */

import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { isDeltaLiteError } from "@deltalite/errors";
import { openStore } from "@deltalite/object-store";
import { testS3 } from "@deltalite/tools/s3-server";
import { describe, expect, it } from "vitest";
import { type RestoreOptions, type RestoreTarget, restore } from "../src/index.js";
import { type BuildStep, openLocal, workspace } from "./oracle-tables.js";

const ws = workspace("compaction-restore-behaviour-");
const s3 = testS3();

const history: BuildStep[] = [
  { op: "append", rows: 30, start: 0, pad: 5, parts: ["a", "b"] },
  { op: "append", rows: 20, start: 10_000, pad: 5, parts: ["a"] },
  { op: "delete", predicate: "id < 5" },
  { op: "append", rows: 10, start: 20_000, pad: 5, parts: ["c"], mode: "overwrite" },
];

async function listing(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name).slice(dir.length + 1));
  }
  return out.sort();
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("restore: arguments", () => {
  it("refuses bad arguments with invalid_argument and leaves the table as it was", async () => {
    const { ours } = await ws.build("bad", history, true);
    const before = await listing(ours);
    const cases: [RestoreTarget, RestoreOptions, RegExp][] = [
      [-1, {}, /integer ≥ 0 \(got -1\)/],
      [1.5, {}, /integer ≥ 0 \(got 1.5\)/],
      [Number.NaN, {}, /integer ≥ 0/],
      [3, {}, /version to restore \(3\) must be older than the current version 3/],
      [7, {}, /\(7\) must be older than the current version 3/],
      ["yesterday", {}, /a timestamp \(a Date or ISO 8601 text\); got "yesterday"/],
      [new Date(Number.NaN), {}, /a timestamp/],
      [{} as never, {}, /restore to a version/],
      [
        1,
        { ignoreMissingFile: true } as never,
        /unknown restore option "ignoreMissingFile" \(did you mean "ignoreMissingFiles"\?\)/,
      ],
      [1, { headConcurrency: 0 }, /headConcurrency must be an integer ≥ 1 \(got 0\)/],
      [1, { ignoreMissingFiles: "yes" as never }, /ignoreMissingFiles must be a boolean/],
      [1, { commitMetadata: { operation: "x" } }, /reserved/],
      [1, { commitMetadata: [] as never }, /commitMetadata must be an object/],
      [new Date(Date.now() + 3_600_000), {}, /must be older than the current version 3/],
    ];
    for (const [target, options, message] of cases) {
      const error = await failure(restore(await openLocal(ours), target, options));
      expect(isDeltaLiteError(error), `${String(target)}: ${String(error)}`).toBe(true);
      expect((error as { kind: string }).kind).toBe("invalid_argument");
      expect((error as Error).message).toMatch(message);
      expect(await listing(ours)).toEqual(before);
    }
  });

  it("an instant before the first commit restores version 0, as delta-rs", async () => {
    const { ours, theirs } = await ws.build("early", history, true);
    const early = new Date("2000-01-01T00:00:00Z");
    const result = await restore(await openLocal(ours), early.toISOString());
    const their = await ws.oracle.call<{ metrics: Record<string, number> }>("optimize_restore", {
      uri: theirs,
      datetime_ms: early.getTime(),
    });
    expect(result.restoredVersion).toBe(0);
    expect({ numRemovedFile: result.numRemovedFile, numRestoredFile: result.numRestoredFile }).toEqual(
      their.metrics,
    );
    const rows = async (uri: string, version?: number) =>
      (await ws.oracle.call<{ rows: unknown[] }>("optimize_read", { uri, version })).rows;
    expect(await rows(ours)).toEqual(await rows(theirs, 0));
  });
});

describe("restore: on S3", () => {
  async function s3Table(steps: number): Promise<{ uri: string; storage_options: Record<string, string> }> {
    const bucket = await s3.createBucket(`restore-${randomBytes(4).toString("hex")}`);
    const at = { uri: `s3://${bucket}/t`, storage_options: s3.storageOptions };
    const rows = (from: number, part: string) => ({
      id: [from, from + 1, from + 2],
      part: [part, part, part],
    });
    await ws.oracle.call("delta_write", { ...at, columns: rows(0, "a"), partition_by: ["part"] });
    for (let i = 1; i < steps; i++) {
      await ws.oracle.call("delta_write", {
        ...at,
        columns: rows(i * 10, i % 2 ? "b" : "a"),
        mode: i === 2 ? "overwrite" : "append",
      });
    }
    return at;
  }
  const open = (uri: string) => Snapshot.open(openStore(uri, { storageOptions: s3.storageOptions }));

  it("restores a version that delta-rs then reads back", async () => {
    const at = await s3Table(4);
    const result = await restore(await open(at.uri), 1);
    expect(result.filesChecked).toBe(result.numRestoredFile);
    expect(result.numRestoredFile).toBe(2);
    const read = (version?: number) =>
      ws.oracle.call<{ rows: unknown[]; files: string[] }>("optimize_read", { ...at, version });
    const [now, then] = [await read(), await read(1)];
    expect(now.rows).toEqual(then.rows);
    expect(now.files).toEqual(then.files);
  });

  it("a file vacuumed away is not_found, nothing is committed; delta-rs refuses too", async () => {
    const at = await s3Table(4);
    // The overwrite at version 2 removed version 0-1's files; a vacuum with no retention deletes them.
    const vacuumed = await ws.oracle.call<{ deleted: string[] }>("delta_vacuum", {
      ...at,
      retention_hours: 0,
    });
    expect(vacuumed.deleted.length).toBeGreaterThan(0);
    const snapshot = await open(at.uri);
    const error = await failure(restore(snapshot, 1));
    expect(error).toMatchObject({ kind: "not_found" });
    expect((error as Error).message).toMatch(
      /cannot restore version 1: \d+ of its \d+ data files to re-add are gone/,
    );
    expect((error as Error).message).toContain(vacuumed.deleted[0]!.split("/").pop()!);
    expect((await snapshot.reload()).version).toBe(snapshot.version);
    const theirs = await failure(ws.oracle.call("optimize_restore", { ...at, version: 1 }));
    expect(String(theirs)).toMatch(/missing file/i);
    // delta-rs's ignore_missing_files: committed anyway, pointing at what is left.
    const forced = await restore(snapshot, 1, { ignoreMissingFiles: true });
    expect(forced.filesChecked).toBe(0);
    expect(forced.version).toBe(snapshot.version + 1);
  });
});

describe("restore: concurrent writers", () => {
  it("a commit after the table was loaded makes the restore a conflict; nothing of ours lands", async () => {
    const { ours } = await ws.build("race", history, true);
    const stale = await openLocal(ours);
    await ws.oracle.call("optimize_build", {
      uris: [ours],
      partitioned: true,
      steps: [{ op: "append", rows: 3, start: 90_000, parts: ["a"] }],
    });
    const before = await listing(ours);
    const error = await failure(restore(stale, 1));
    expect(error).toMatchObject({ kind: "conflict" });
    expect(await listing(ours)).toEqual(before);
    // Restored again on the new version, it succeeds.
    const result = await restore(await openLocal(ours), 1);
    expect(result.readVersion).toBe(stale.version + 1);
  });
});
