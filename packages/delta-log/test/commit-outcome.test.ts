// The commit path settles inconclusive puts instead of guessing: a reply lost after the store stored the
// commit, an `already_exists` from a store's own retry of our put, a put that times out and lands later, an
// abort after sending, a competitor that really won, and a store that never answers. After each: exactly one
// commit carries the transaction's txnId, the answer agrees with the log, and files are kept exactly when
// the outcome is unknown. Stores: the in-memory store behind FaultyStore (an answer replaced after the call
// took effect, or a put that lands after its caller gave up).
import { DeltaLiteError, hasErrorKind, isCommitOutcomeUnknown, isDeltaLiteError } from "@deltalite/errors";
import { InMemoryStore, type ObjectStore } from "@deltalite/object-store";
import { CountingStore, FaultyStore } from "@deltalite/object-store/testing";
import { describe, expect, it } from "vitest";
import {
  commitKey,
  commitTransaction,
  createTable,
  type DeltaSchema,
  discardWrittenFiles,
  listLogFiles,
  parseCommit,
  Snapshot,
  serializeCommit,
  tryCommitVersion,
} from "../src/index.js";

const schema: DeltaSchema = {
  type: "struct",
  fields: [{ name: "id", type: "long", nullable: true, metadata: {} }],
};

let tables = 0;
async function newTable(): Promise<InMemoryStore> {
  const store = new InMemoryStore(`memory://commit-outcome-${++tables}`);
  await createTable(store, { schema });
  return store;
}

function add(path: string) {
  return {
    add: { path, partitionValues: {}, size: 10, modificationTime: 1, dataChange: true, stats: null },
  };
}

const lostReply = () => new DeltaLiteError("generic", "socket hang up", { retryable: true });
const timedOut = () => new DeltaLiteError("timeout", "request deadline", { retryable: true });

/** txnId of each commit file, by version. */
async function txnIds(store: ObjectStore): Promise<Map<number, unknown>> {
  const out = new Map<number, unknown>();
  for (const file of await listLogFiles(store)) {
    if (file.kind !== "commit") continue;
    const info = parseCommit(await store.get(file.key), file.key).find((a) => "commitInfo" in a);
    out.set(file.version, info && "commitInfo" in info ? info.commitInfo.txnId : undefined);
  }
  return out;
}

const commitPut = { method: "put" as const, key: commitKey(1) };

describe("commit outcome resolution", () => {
  it("a reply lost after the store stored the commit is the commit: one version, reported once", async () => {
    const inner = await newTable();
    const store = new FaultyStore(inner, [
      { ...commitPut, times: 1, fault: { type: "errorAfter", error: lostReply } },
    ]);
    const snapshot = await Snapshot.open(store);
    const result = await commitTransaction(snapshot, [add("a.parquet")], { operation: "WRITE" });
    expect(store.fired).toBe(1);
    expect(result.version).toBe(1);
    expect(result.attempts).toBe(1);
    const ids = await txnIds(inner);
    expect([...ids.keys()]).toEqual([0, 1]);
    expect(ids.get(1)).toBe(result.txnId);
    expect((await Snapshot.open(inner)).files.map((f) => f.path)).toEqual(["a.parquet"]);
  });

  it("already_exists from a retry of our own landed put is ours, not a competitor's", async () => {
    const inner = await newTable();
    const retried = () => new DeltaLiteError("already_exists", "object already exists (retried attempt)");
    const store = new FaultyStore(inner, [
      { ...commitPut, times: 1, fault: { type: "errorAfter", error: retried } },
    ]);
    const snapshot = await Snapshot.open(store);
    // Taking our own commit for a competitor's would rebase this blind append and commit it again at version 2.
    const base = await commitTransaction(snapshot, [add("a.parquet")], { operation: "WRITE" }).catch(
      (e) => e,
    );
    expect(isDeltaLiteError(base)).toBe(false);
    expect((await txnIds(inner)).size).toBe(2);
    expect(store.fired).toBe(1);
  });

  it("a blind append whose reply was lost is not committed a second time at the next version", async () => {
    const inner = await newTable();
    const store = new FaultyStore(inner, [
      { method: "put", key: commitKey(1), times: 1, fault: { type: "errorAfter", error: lostReply } },
    ]);
    const result = await commitTransaction(await Snapshot.open(store), [add("b.parquet")], {
      operation: "WRITE",
    });
    expect(result.version).toBe(1);
    const versions = [...(await txnIds(inner)).keys()];
    expect(versions).toEqual([0, 1]);
  });

  it("a put that timed out and lands later: the re-put settles it, exactly one commit holds our txnId", async () => {
    const inner = await newTable();
    // The first commit put is "sent": the caller gets a timeout at once, the store applies it 80 ms later.
    const store = new FaultyStore(inner, [
      { ...commitPut, times: 1, fault: { type: "landsLate", ms: 80, error: timedOut } },
    ]);
    const result = await commitTransaction(await Snapshot.open(store), [add("c.parquet")], {
      operation: "WRITE",
    });
    const [lateOutcome] = await Promise.all(store.late);
    expect(result.version).toBe(1);
    // The re-put landed first, so the late put was refused by the create-only put.
    expect(hasErrorKind(lateOutcome, "already_exists")).toBe(true);
    const ids = await txnIds(inner);
    expect([...ids.keys()]).toEqual([0, 1]);
    expect(ids.get(1)).toBe(result.txnId);
  });

  it("a put that lands late while the re-puts fail: settled by reading our commit back", async () => {
    const inner = await newTable();
    const store = new FaultyStore(inner, [
      { ...commitPut, call: 1, fault: { type: "landsLate", ms: 30, error: timedOut } },
      // The re-puts reach the store only after the late one landed, and their answers are lost too.
      { ...commitPut, times: 2, fault: { type: "delay", ms: 60 } },
    ]);
    const result = await commitTransaction(await Snapshot.open(store), [add("c2.parquet")], {
      operation: "WRITE",
    });
    await Promise.all(store.late);
    expect(result.version).toBe(1);
    expect((await txnIds(inner)).get(1)).toBe(result.txnId);
  });

  it("an abort after the put was sent still reports the landed commit", async () => {
    const inner = await newTable();
    const controller = new AbortController();
    const store = new FaultyStore(inner, [
      {
        ...commitPut,
        times: 1,
        fault: {
          type: "errorAfter",
          error: () => {
            controller.abort();
            return new DeltaLiteError("aborted", "aborted while waiting for the reply");
          },
        },
      },
    ]);
    const result = await commitTransaction(await Snapshot.open(store), [add("d.parquet")], {
      operation: "WRITE",
      signal: controller.signal,
    });
    expect(result.version).toBe(1);
    expect((await txnIds(inner)).get(1)).toBe(result.txnId);
  });

  it("a competitor that really won is a conflict: rebased past, our commit lands once at the next version", async () => {
    const inner = await newTable();
    const competitor = serializeCommit([
      { commitInfo: { operation: "WRITE", txnId: "someone-else" } },
      add("x.parquet"),
    ]);
    // Our put fails inconclusively *after* the competitor took version 1.
    const store = new FaultyStore(inner, [
      {
        ...commitPut,
        times: 1,
        fault: {
          type: "error",
          error: () => {
            void inner.put(commitKey(1), competitor, { mode: "create" });
            return lostReply();
          },
        },
      },
    ]);
    const result = await commitTransaction(await Snapshot.open(store), [add("e.parquet")], {
      operation: "WRITE",
    });
    expect(result.version).toBe(2);
    expect(result.rebasedPast).toEqual([1]);
    const ids = await txnIds(inner);
    expect(ids.get(1)).toBe("someone-else");
    expect(ids.get(2)).toBe(result.txnId);
  });

  it("a lost race reads the winning commit once (the read that settles the outcome is the conflict check's)", async () => {
    const inner = await newTable();
    const store = new CountingStore(inner);
    const snapshot = await Snapshot.open(store);
    const competitor = serializeCommit([
      { commitInfo: { operation: "WRITE", txnId: "other" } },
      add("w.parquet"),
    ]);
    await inner.put(commitKey(1), competitor, { mode: "create" });
    store.reset();
    const result = await commitTransaction(snapshot, [add("mine.parquet")], { operation: "WRITE" });
    expect(result.version).toBe(2);
    expect(result.rebasedPast).toEqual([1]);
    expect(store.log.filter((r) => r.method === "get" && r.key === commitKey(1))).toHaveLength(1);
  });

  it("a store that never answers gives a typed unknown-outcome error, bounded, naming version and txnId", async () => {
    const inner = await newTable();
    const store = new FaultyStore(inner, [
      { method: "put", key: commitKey(1), fault: { type: "error", error: lostReply } },
      { method: "get", key: commitKey(1), fault: { type: "error", error: lostReply } },
    ]);
    const started = Date.now();
    const error = await commitTransaction(await Snapshot.open(store), [add("f.parquet")], {
      operation: "WRITE",
      outcomeResolution: { rounds: 4, baseBackoffMs: 5 },
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(isCommitOutcomeUnknown(error)).toBe(true);
    const unknown = error as DeltaLiteError & { version: number; txnId: string };
    expect(unknown.kind).toBe("generic");
    expect(unknown.retryable).toBe(false);
    expect(unknown.version).toBe(1);
    expect(unknown.message).toContain(unknown.txnId);
    expect(unknown.toJSON()).toMatchObject({ commitOutcome: "unknown", version: 1, retryable: false });
    expect(store.fired).toBe(5); // the first put, then 4 re-puts
    expect([...(await txnIds(inner)).keys()]).toEqual([0]);
  });

  it("refusals that cannot have stored anything are thrown as they are", async () => {
    const inner = await newTable();
    const denied = () => new DeltaLiteError("permission_denied", "access denied");
    const store = new FaultyStore(inner, [{ ...commitPut, fault: { type: "error", error: denied } }]);
    const error = await commitTransaction(await Snapshot.open(store), [add("g.parquet")], {
      operation: "WRITE",
    }).catch((e: unknown) => e);
    expect(hasErrorKind(error, "permission_denied")).toBe(true);
    expect(store.fired).toBe(1);
  });

  it("createTable whose reply was lost has created the table (not already_exists)", async () => {
    const inner = new InMemoryStore("memory://commit-outcome-create");
    const store = new FaultyStore(inner, [
      { method: "put", key: commitKey(0), times: 1, fault: { type: "errorAfter", error: lostReply } },
    ]);
    const result = await createTable(store, { schema });
    expect(result.version).toBe(0);
    expect((await txnIds(inner)).get(0)).toBe(result.txnId);
  });

  it("tryCommitVersion on an aborted signal sends nothing", async () => {
    const store = await newTable();
    const controller = new AbortController();
    controller.abort();
    const error = await tryCommitVersion(store, 1, new Uint8Array([1]), "t", {
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(hasErrorKind(error, "aborted")).toBe(true);
    expect([...(await txnIds(store)).keys()]).toEqual([0]);
  });

  it("every commit carries a fresh txnId that commit metadata cannot override", async () => {
    const store = await newTable();
    const one = await commitTransaction(await Snapshot.open(store), [add("h.parquet")], {
      operation: "WRITE",
    });
    const two = await commitTransaction(one.snapshot, [add("i.parquet")], { operation: "WRITE" });
    expect(one.txnId).not.toBe(two.txnId);
    await expect(
      commitTransaction(two.snapshot, [add("j.parquet")], {
        operation: "WRITE",
        commitMetadata: { txnId: "mine" },
      }),
    ).rejects.toThrow(/reserved/);
  });

  it("discardWrittenFiles keeps the files of an unknown outcome and deletes the others", async () => {
    const store = new InMemoryStore("memory://commit-outcome-discard");
    await store.put("p.parquet", new Uint8Array([1]));
    const unknown = await commitTransaction(
      await Snapshot.open(
        new FaultyStore(await newTable(), [
          { method: "put", key: commitKey(1), fault: { type: "error", error: lostReply } },
          { method: "get", key: commitKey(1), fault: { type: "error", error: lostReply } },
        ]),
      ),
      [],
      { operation: "WRITE", outcomeResolution: { rounds: 1, baseBackoffMs: 1 } },
    ).catch((e: unknown) => e);
    expect(await discardWrittenFiles(store, ["p.parquet"], unknown)).toBe(false);
    expect((await store.head("p.parquet")).size).toBe(1);
    expect(await discardWrittenFiles(store, ["p.parquet"], lostReply())).toBe(true);
    await expect(store.head("p.parquet")).rejects.toThrow(/not found/);
  });
});
