/**
 * The log operation scope: what one table operation of a handle (an upsert, a write, a compaction, …) shares
 * across the layers it runs through, without threading it through every engine — the commit-JSON cache, the
 * snapshots of the commits it landed (for snapshot adoption) and the versions at which it lost a commit race
 * (for the probe's distrust). Carried by `AsyncLocalStorage`, so it follows the operation's promises and
 * nothing else; outside a scope every hook is a no-op and the log behaves as without the economy.
 */
import { AsyncLocalStorage } from "node:async_hooks";
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

const scope = new AsyncLocalStorage<LogOperation>();

/** Runs `body` inside `operation`'s scope; the commit-JSON cache is cleared when it settles. */
export async function runLogOperation<T>(operation: LogOperation, body: () => Promise<T>): Promise<T> {
  try {
    return await scope.run(operation, body);
  } finally {
    operation.cache?.clear();
  }
}

/** The operation in scope for `store`, or undefined (no scope, or a scope of another store). */
export function logOperationFor(store: ObjectStore): LogOperation | undefined {
  const operation = scope.getStore();
  return operation && operation.store === store ? operation : undefined;
}
