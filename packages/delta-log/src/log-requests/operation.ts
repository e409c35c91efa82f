/**
 * The log operation scope: what one table operation of a handle (an upsert, a write, a compaction, …) shares
 * across the layers it runs through, without threading it through every engine — the commit-JSON cache, the
 * snapshots of the commits it landed (for snapshot adoption) and the versions at which it lost a commit race
 * (for the probe's distrust). Found by the store the operation's table lives in (object identity): a handle
 * runs its operations one at a time on its own store, so the one operation running on that store is the
 * handle's. While none, or more than one (several handles given one store object, run at once), runs on a
 * store, every hook is a no-op and the log behaves as without the economy (never wrong, only more requests).
 * It was carried by `AsyncLocalStorage` before: on Node 20 that runs promise hooks for every promise of
 * the process once a scope has opened, and the upsert creates tens of thousands (`pnpm bench upsert` 1M
 * tables, 4 and 3 interleaved pairs: the call's CPU 1,090–1,160 → 910–1,090 ms on the recent shape, 2,770–
 * 2,860 → 2,600–2,770 ms on the uniform one; merge-engine BENCHMARKS.md, session 16).
 */
import type { ObjectStore } from "@deltalite/object-store";
import type { Snapshot } from "../snapshot.js";
import type { CommitJsonCache } from "./commit-cache.js";

/** A commit this operation landed: the snapshot derived from it, and whether it was on a checkpoint boundary. */
export interface OwnCommit {
  snapshot: Snapshot;
  checkpointDue: boolean;
}

/** One operation's shared state (see the module comment); made by `TableLog.operate`. */
export class LogOperation {
  /** The store (object identity) the operation's table lives in; hooks for another store do nothing. */
  readonly store: ObjectStore;
  readonly cache: CommitJsonCache | undefined;
  readonly ownCommits: OwnCommit[] = [];
  /** Versions whose create-only put found a commit already there (the race was lost). */
  readonly lostRaces: number[] = [];

  constructor(store: ObjectStore, cache: CommitJsonCache | undefined) {
    this.store = store;
    this.cache = cache;
  }

  /** A commit the operation landed: kept for adoption; its bytes seed the cache (never read back). */
  landed(commit: OwnCommit, key: string, bytes: Uint8Array, etag: string | undefined): void {
    this.ownCommits.push(commit);
    this.cache?.put(key, bytes, etag);
  }

  /** The newest commit the operation landed, if any. */
  newestOwnCommit(): OwnCommit | undefined {
    let newest: OwnCommit | undefined;
    for (const c of this.ownCommits) if (!newest || c.snapshot.version >= newest.snapshot.version) newest = c;
    return newest;
  }
}

/** The operations running now, by the store their table lives in. */
const running = new WeakMap<ObjectStore, LogOperation[]>();

/** Runs `body` as `operation` (see the module comment); the commit-JSON cache is cleared when it settles. */
export async function runLogOperation<T>(operation: LogOperation, body: () => Promise<T>): Promise<T> {
  const store = operation.store;
  const list = running.get(store) ?? [];
  list.push(operation);
  running.set(store, list);
  try {
    return await body();
  } finally {
    list.splice(list.indexOf(operation), 1);
    if (list.length === 0) running.delete(store);
    operation.cache?.clear();
  }
}

/** The one operation running on `store`, or undefined (none, or more than one at once). */
export function logOperationFor(store: ObjectStore): LogOperation | undefined {
  const list = running.get(store);
  return list?.length === 1 ? list[0] : undefined;
}
