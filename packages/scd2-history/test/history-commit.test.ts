/**
 * The history upsert's commit: one commit per call (a MERGE with the history predicate and the caller's
 * commit metadata), never rebased — a call planned on a stale version re-plans against the newer one and
 * ends as the reference model says for the two batches in commit order (delta-rs reads it), a re-run that
 * another writer already applied ends with `committed: false`; a store where every commit loses gives
 * `DeltaLiteCommitConflictError` after six plans with the table and its files as they were; a concurrent
 * schema change is a non-retryable conflict.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { commitTransaction, Snapshot, schemaToJson } from "@deltalite/delta-log";
import { LocalFileStore, type PutOptions, type PutResult } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyUpsert } from "../src/index.js";
import {
  applyModel,
  canonicalFromModel,
  checkInvariants,
  createHistoryTable,
  historyOptions,
  latest,
  type ModelRow,
  microsOf,
  modelBatch,
  readWithDeltaRs,
  type SourceRow,
  sortRows,
  sourceTable,
  type TableLayout,
} from "./history-fixtures.js";

const layout: TableLayout = { keyColumns: ["k1", "k2"], tieBreak: "none" };
const at = (iso: string) => microsOf(iso);
const row = (k1: number | null, ord: number, vf: string, pay = "p"): SourceRow => ({
  k1,
  k2: k1 === null ? null : "k",
  ord,
  vf: at(vf),
  pay,
});

const FIRST = [row(1, 1, "2024-01-10T00:00:00Z"), row(null, 1, "2024-01-10T00:00:00Z")];
const WINNER = [row(1, 2, "2024-02-01T00:00:00Z"), row(null, 2, "2024-02-29T23:00:00-05:00")];
const LATE = [row(1, 3, "2024-03-15T00:00:00Z"), row(2, 1, "2024-03-15T00:00:00Z")];

async function filesOnDisk(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

/** A local store where another writer takes every commit version just before this one tries it. */
class AlwaysLosingStore extends LocalFileStore {
  stolen = 0;
  override async put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    if (/_delta_log\/\d{20}\.json$/.test(key) && options?.mode === "create") {
      this.stolen++;
      const foreign = JSON.stringify({
        commitInfo: { timestamp: Date.now(), operation: "WRITE", operationParameters: { mode: "Append" } },
      });
      await super.put(key, new TextEncoder().encode(`${foreign}\n`), { mode: "create" });
    }
    return super.put(key, data, options);
  }
}

describe("historyUpsert commits", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-scd2-commit-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function modelOf(batches: SourceRow[][]): Promise<ModelRow[]> {
    let rows: ModelRow[] = [];
    for (const batch of batches) {
      const result = await applyModel(oracle, layout, rows, modelBatch(batch, layout, "UTC"));
      if (result.rows === undefined) throw new Error(result.error.message);
      rows = result.rows;
    }
    return rows;
  }

  async function seeded(): Promise<{ uri: string; snapshot: Snapshot }> {
    const { uri, snapshot } = await createHistoryTable(dir, layout);
    await historyUpsert(snapshot, sourceTable(FIRST, layout, "UTC"), historyOptions(layout));
    return { uri, snapshot: await latest(uri) };
  }

  it("records one MERGE with the history predicate and the commit metadata", async () => {
    const { uri, snapshot } = await seeded();
    const stats = await historyUpsert(snapshot, sourceTable(WINNER, layout, "UTC"), {
      ...historyOptions(layout),
      commitMetadata: { source: "my-sync" },
    });
    expect(stats).toMatchObject({ committed: true, version: snapshot.version + 1, planAttempts: 1 });
    const [entry] = await (await latest(uri)).history(1);
    expect(entry?.operation).toBe("MERGE");
    expect(entry?.commitInfo).toMatchObject({
      source: "my-sync",
      operationParameters: {
        predicate: "t.`part` = 'current' AND t.`k1` <=> s.`k1` AND t.`k2` <=> s.`k2` AND t.`vt` IS NULL",
      },
      operationMetrics: { numSourceRows: 2, numTargetRowsUpdated: 2, numTargetRowsInserted: 2 },
    });
  });

  it("a call planned on a stale version re-plans and ends as the model does for both batches in order", async () => {
    const { uri, snapshot: stale } = await seeded();
    await historyUpsert(await latest(uri), sourceTable(WINNER, layout, "UTC"), historyOptions(layout));
    const stats = await historyUpsert(stale, sourceTable(LATE, layout, "UTC"), historyOptions(layout));
    expect(stats).toMatchObject({ committed: true, planAttempts: 2, versionsClosed: 1, versionsOpened: 2 });
    expect(stats.version).toBe(stale.version + 2);
    const ours = await readWithDeltaRs(oracle, uri);
    const expected = await modelOf([FIRST, WINNER, LATE]);
    expect(sortRows(ours)).toEqual(sortRows(expected.map((r) => canonicalFromModel(r, layout))));
    checkInvariants(ours, layout, true);
  });

  it("a re-run that another writer already applied re-plans to committed: false", async () => {
    const { uri, snapshot: stale } = await seeded();
    await historyUpsert(await latest(uri), sourceTable(WINNER, layout, "UTC"), historyOptions(layout));
    const version = (await latest(uri)).version;
    const stats = await historyUpsert(stale, sourceTable(WINNER, layout, "UTC"), historyOptions(layout));
    expect(stats).toMatchObject({ committed: false, planAttempts: 2, version, rowsReread: 2, filesAdded: 0 });
    expect((await latest(uri)).version).toBe(version);
  });

  it("loses every race: conflict after six plans, nothing committed, no files left behind", async () => {
    const { uri } = await seeded();
    const store = new AlwaysLosingStore(uri);
    const before = await latest(uri);
    const disk = await filesOnDisk(uri);
    const error = await historyUpsert(
      await Snapshot.open(store),
      sourceTable(LATE, layout, "UTC"),
      historyOptions(layout),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: "conflict", retryable: true, name: "DeltaLiteCommitConflictError" });
    expect(store.stolen).toBe(6);
    const after = await latest(uri);
    expect(after.version).toBe(before.version + 6);
    expect(after.files.map((f) => f.path).sort()).toEqual(before.files.map((f) => f.path).sort());
    const logOnly = (await filesOnDisk(uri)).filter((f) => !disk.includes(f));
    expect(logOnly.every((f) => f.startsWith("_delta_log/"))).toBe(true);
  });

  it("relaxes a non-nullable column in its one commit, and only when it writes rows", async () => {
    const { uri, snapshot } = await createHistoryTable(dir, layout);
    const strict = {
      ...snapshot.deltaSchema,
      fields: snapshot.deltaSchema.fields.map((f) => (f.name === "pay" ? { ...f, nullable: false } : f)),
    };
    await commitTransaction(
      snapshot,
      [{ metaData: { ...snapshot.metadata, schemaString: schemaToJson(strict) } }],
      {
        operation: "CHANGE COLUMN",
      },
    );
    await historyUpsert(await latest(uri), sourceTable(FIRST, layout, "UTC"), historyOptions(layout));
    const nullPay = WINNER.map((r) => ({ ...r, pay: null as never }));
    // A re-read of the seed with NULL payloads keeps nothing: no commit, the column stays NOT NULL.
    const reread = FIRST.map((r) => ({ ...r, pay: null as never }));
    const idle = await historyUpsert(
      await latest(uri),
      sourceTable(reread, layout, "UTC"),
      historyOptions(layout),
    );
    expect(idle).toMatchObject({ committed: false, columnsRelaxed: 0 });
    const nullable = async () =>
      (await latest(uri)).deltaSchema.fields.find((f) => f.name === "pay")?.nullable;
    expect(await nullable()).toBe(false);
    const before = (await latest(uri)).version;
    const stats = await historyUpsert(
      await latest(uri),
      sourceTable(nullPay, layout, "UTC"),
      historyOptions(layout),
    );
    expect(stats).toMatchObject({ committed: true, columnsRelaxed: 1, version: before + 1 });
    expect(await nullable()).toBe(true);
    const ours = await readWithDeltaRs(oracle, uri);
    expect(ours.filter((r) => r.vt === null).map((r) => r.pay)).toEqual([null, null]);
    checkInvariants(ours, layout, true);
  });

  it("a concurrent schema change is a conflict that is not re-planned", async () => {
    const { uri, snapshot: stale } = await seeded();
    const current = await latest(uri);
    const schema = {
      ...current.deltaSchema,
      fields: [
        ...current.deltaSchema.fields,
        { name: "extra", type: "string", nullable: true, metadata: {} },
      ],
    };
    await commitTransaction(
      current,
      [{ metaData: { ...current.metadata, schemaString: schemaToJson(schema) } }],
      {
        operation: "ADD COLUMNS",
      },
    );
    const version = (await latest(uri)).version;
    const error = await historyUpsert(stale, sourceTable(LATE, layout, "UTC"), historyOptions(layout)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: "conflict", retryable: false });
    expect((await latest(uri)).version).toBe(version);
  });
});
