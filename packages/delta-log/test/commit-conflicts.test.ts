// Conflicting concurrent writers: two transactions read the same snapshot and race for the next version on
// a real store (the local file system's atomic create). The loser either rebases (its commit lands at the
// next version, the winner's changes kept) or fails with the typed DeltaLiteCommitConflictError naming the
// winning version, with `retryable` false for protocol/metadata/txn changes — following delta-rs's checker.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { hasErrorKind, isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore, type ObjectStore } from "@deltalite/object-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Action,
  type AddAction,
  commitTransaction,
  createTable,
  type ReadSet,
  type RemoveAction,
  Snapshot,
} from "../src/index.js";

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-conflicts-"));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const schema = {
  type: "struct" as const,
  fields: [
    { name: "id", type: "long", nullable: true, metadata: {} },
    { name: "day", type: "string", nullable: true, metadata: {} },
  ],
};

function add(name: string, day: string): Action {
  const a: AddAction = {
    path: `day=${day}/${name}.parquet`,
    partitionValues: { day },
    size: 100,
    modificationTime: 1,
    dataChange: true,
  };
  return { add: a };
}

function remove(name: string, day: string, dataChange = true): Action {
  const r: RemoveAction = {
    path: `day=${day}/${name}.parquet`,
    partitionValues: { day },
    size: 100,
    deletionTimestamp: 2,
    dataChange,
    extendedFileMetadata: true,
  };
  return { remove: r };
}

let n = 0;
/** A table at version 1 with files a (day 1) and b (day 2); returns two snapshots of it. */
async function twoWriters(): Promise<{ store: ObjectStore; a: Snapshot; b: Snapshot }> {
  const store = new LocalFileStore(path.join(tmp, `t${n++}`));
  const created = await createTable(store, { schema, partitionColumns: ["day"] });
  await commitTransaction(created.snapshot, [add("a", "1"), add("b", "2")], { operation: "WRITE" });
  return { store, a: await Snapshot.open(store), b: await Snapshot.open(store) };
}

const changedMetadata = (snapshot: Snapshot): Action => ({
  metaData: {
    ...snapshot.metadata,
    configuration: { ...snapshot.metadata.configuration, "delta.appendOnly": "false" },
  },
});

interface Scenario {
  name: string;
  winner: (s: Snapshot) => Action[];
  loser: (s: Snapshot) => Action[];
  loserRead?: ReadSet;
  /** undefined: the loser rebases; else the conflict it must report. */
  conflict?: { type: string; retryable: boolean };
}

const scenarios: Scenario[] = [
  { name: "blind appends rebase", winner: () => [add("w", "1")], loser: () => [add("l", "1")] },
  {
    name: "an append in a partition the loser did not read rebases",
    winner: () => [add("w", "2")],
    loser: () => [remove("a", "1"), add("a2", "1")],
    loserRead: { kind: "partitions", partitions: [{ day: "1" }] },
  },
  {
    name: "an append in a partition the loser read conflicts (ConcurrentAppend)",
    winner: () => [add("w", "1")],
    loser: () => [remove("a", "1"), add("a2", "1")],
    loserRead: { kind: "partitions", partitions: [{ day: "1" }] },
    conflict: { type: "ConcurrentAppend", retryable: true },
  },
  {
    name: "both removing the same file conflicts (ConcurrentDeleteDelete)",
    winner: () => [remove("a", "1", false), add("compacted", "1")],
    loser: () => [remove("a", "1"), add("a2", "1")],
    loserRead: { kind: "files", paths: ["day=1/a.parquet"] },
    conflict: { type: "ConcurrentDeleteDelete", retryable: true },
  },
  {
    name: "removing a file the loser read conflicts (ConcurrentDeleteRead)",
    winner: () => [remove("a", "1")],
    loser: () => [add("derived", "2")],
    loserRead: { kind: "partitions", partitions: [{ day: "1" }] },
    conflict: { type: "ConcurrentDeleteRead", retryable: true },
  },
  {
    name: "a metadata change by the winner always conflicts, not retryable",
    winner: (s) => [changedMetadata(s)],
    loser: () => [add("l", "1")],
    conflict: { type: "MetadataChanged", retryable: false },
  },
  {
    name: "a protocol change by the winner always conflicts, not retryable",
    winner: () => [{ protocol: { minReaderVersion: 1, minWriterVersion: 3 } }],
    loser: () => [add("l", "1")],
    conflict: { type: "ProtocolChanged", retryable: false },
  },
  {
    name: "the same txn appId conflicts, not retryable",
    winner: () => [add("w", "1"), { txn: { appId: "sync-job", version: 7 } }],
    loser: () => [add("l", "1"), { txn: { appId: "sync-job", version: 7 } }],
    conflict: { type: "ConcurrentTransaction", retryable: false },
  },
  {
    name: "the same txn appId wins over a data conflict: not retryable (a re-plan would apply the batch twice)",
    winner: () => [add("w", "1"), { txn: { appId: "sync-job", version: 7 } }],
    loser: () => [add("l", "1"), { txn: { appId: "sync-job", version: 8 } }],
    loserRead: { kind: "table" },
    conflict: { type: "ConcurrentTransaction", retryable: false },
  },
  {
    name: "different txn appIds rebase",
    winner: () => [add("w", "1"), { txn: { appId: "job-a", version: 1 } }],
    loser: () => [add("l", "1"), { txn: { appId: "job-b", version: 1 } }],
  },
];

describe("conflict checks when two writers race for the same version", () => {
  it.each(scenarios)("$name", async ({ winner, loser, loserRead, conflict }) => {
    const { store, a, b } = await twoWriters();
    const won = await commitTransaction(a, winner(a), { operation: "WINNER" });
    expect(won.version).toBe(2);
    const attempt = commitTransaction(b, loser(b), { operation: "LOSER", read: loserRead, baseBackoffMs: 1 });
    if (!conflict) {
      const result = await attempt;
      expect(result.version).toBe(3);
      expect(result.attempts).toBe(2);
      expect(result.rebasedPast).toEqual([2]);
      // The rebased commit kept the winner's changes: a fresh snapshot equals the in-memory one.
      const fresh = await Snapshot.open(store);
      expect(fresh.version).toBe(3);
      expect(fresh.files.map((f) => f.path).sort()).toEqual(result.snapshot.files.map((f) => f.path).sort());
      expect([...fresh.appTransactions]).toEqual([...result.snapshot.appTransactions]);
      return;
    }
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDeltaLiteError(error)).toBe(true);
    expect(hasErrorKind(error, "conflict")).toBe(true);
    expect(error).toMatchObject({
      name: "DeltaLiteCommitConflictError",
      winningVersion: 2,
      retryable: conflict.retryable,
    });
    expect((error as Error).message).toContain(conflict.type);
    // Nothing was written for the loser.
    expect((await Snapshot.open(store)).version).toBe(2);
  });

  it("two writers removing the same file at the same instant: exactly one commits, the other gets the typed conflict", async () => {
    const { store, a, b } = await twoWriters();
    const outcomes = await Promise.allSettled([
      commitTransaction(a, [remove("b", "2"), add("b1", "2")], {
        operation: "DELETE",
        read: { kind: "table" },
      }),
      commitTransaction(b, [remove("b", "2"), add("b2", "2")], {
        operation: "DELETE",
        read: { kind: "table" },
      }),
    ]);
    const ok = outcomes.filter((o) => o.status === "fulfilled");
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.reason).toMatchObject({ kind: "conflict", winningVersion: 2 });
    const final = await Snapshot.open(store);
    expect(final.version).toBe(2);
    expect(final.files.map((f) => f.path).sort()).toHaveLength(2);
  });

  it("refuses data-changing removes on an append-only table before writing anything", async () => {
    const store = new LocalFileStore(path.join(tmp, `append-only-${n++}`));
    const created = await createTable(store, {
      schema,
      partitionColumns: ["day"],
      configuration: { "delta.appendOnly": "true" },
    });
    const v1 = await commitTransaction(created.snapshot, [add("a", "1")], { operation: "WRITE" });
    const error = await commitTransaction(v1.snapshot, [remove("a", "1")], { operation: "DELETE" }).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ kind: "unsupported" });
    expect((await Snapshot.open(store)).version).toBe(1);
  });

  it.each([
    [false, "accepted: a dataChange=false rewrite (compaction) is not a data rewrite", 2],
    [true, "refused: change data files would be needed", 1],
  ])(
    "the write gate of a change-data-feed table: remove + add with dataChange=%s is %s",
    async (dataChange, _outcome, version) => {
      const store = new LocalFileStore(path.join(tmp, `cdf-${n++}`));
      const created = await createTable(store, {
        schema,
        partitionColumns: ["day"],
        configuration: { "delta.enableChangeDataFeed": "true" },
      });
      const v1 = await commitTransaction(created.snapshot, [add("a", "1")], { operation: "WRITE" });
      const rewritten = add("a2", "1") as { add: AddAction };
      const actions = [remove("a", "1", dataChange), { add: { ...rewritten.add, dataChange } }];
      const result = await commitTransaction(v1.snapshot, actions, { operation: "OPTIMIZE" }).catch((e) => e);
      if (dataChange) expect(result).toMatchObject({ kind: "unsupported", feature: "changeDataFeed" });
      else expect(result).toMatchObject({ version: 2 });
      expect((await Snapshot.open(store)).version).toBe(version);
    },
  );

  it("create refuses an existing table with already_exists", async () => {
    const store = new LocalFileStore(path.join(tmp, `exists-${n++}`));
    await createTable(store, { schema });
    const error = await createTable(store, { schema }).catch((e) => e);
    expect(error).toMatchObject({ kind: "already_exists" });
  });

  it("commits are created, never overwritten: a stale writer with retries disabled gets the typed error", async () => {
    const { a, b } = await twoWriters();
    await commitTransaction(a, [add("w", "1")], { operation: "WRITE" });
    const error = await commitTransaction(b, [add("l", "1")], { operation: "WRITE", maxRetries: 0 }).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ kind: "conflict", retryable: true, winningVersion: 2 });
  });
});

describe("commit validation (nothing is written when it fails)", () => {
  it.each([
    [
      "an add without the partition column",
      () => ({
        add: { path: "x.parquet", partitionValues: {}, size: 1, modificationTime: 1, dataChange: true },
      }),
      "schema_mismatch",
    ],
    [
      "an add with an extra partition column",
      () => ({
        add: {
          path: "x.parquet",
          partitionValues: { day: "1", other: "2" },
          size: 1,
          modificationTime: 1,
          dataChange: true,
        },
      }),
      "schema_mismatch",
    ],
    ["an add outside the table", () => add("../escape", "1"), "invalid_path"],
    [
      "an add inside _delta_log",
      () => ({
        add: {
          path: "_delta_log/x.parquet",
          partitionValues: { day: "1" },
          size: 1,
          modificationTime: 1,
          dataChange: true,
        },
      }),
      "invalid_path",
    ],
    ["a caller-made commitInfo", () => ({ commitInfo: { operation: "WRITE" } }), "invalid_argument"],
  ] as const)("refuses %s", async (_name, action, kind) => {
    const { store, a } = await twoWriters();
    const error = await commitTransaction(a, [action() as Action], { operation: "WRITE" }).catch((e) => e);
    expect(error).toMatchObject({ kind });
    expect((await Snapshot.open(store)).version).toBe(1);
  });
});
