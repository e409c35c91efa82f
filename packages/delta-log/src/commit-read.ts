/**
 * The one read of a commit file: `readCommit` GETs `_delta_log/<20 digits>.json` and parses its actions.
 * Every commit read of this package goes through it — snapshot load and reload, the history reader, a losing
 * transaction's reads of the winners, the commit writer's read-back of an inconclusive put — so a cache of
 * commit JSON has one place to go: inside a handle's operation with `DELTALITE_COMMIT_JSON_CACHE` on, a read
 * that names the listed object (`meta`) is served from the operation's cache when it holds that object, and
 * what is fetched is kept (log-requests/commit-cache.ts). A missing commit is the store's `not_found`,
 * propagated unchanged; a malformed one is `corrupt_log`. `readCommits` reads several with bounded parallelism.
 */
import type { ObjectMeta, ObjectStore } from "@deltalite/object-store";
import { type ParsedAction, parseCommit } from "./actions.js";
import { commitKey } from "./log-path.js";
import { logOperationFor } from "./log-requests/operation.js";

export interface ReadCommitOptions {
  signal?: AbortSignal | undefined;
  /** The table's display name in error messages (default: the store's root). */
  table?: string | undefined;
  /** The commit file as a listing described it: lets the operation's commit-JSON cache answer. */
  meta?: ObjectMeta | undefined;
}

/**
 * The actions of commit `version`, in file order: one GET. Throws the store's error (`not_found` when the
 * commit does not exist) and `corrupt_log` when a line is not a valid action.
 */
export async function readCommit(
  store: ObjectStore,
  version: number,
  options: ReadCommitOptions = {},
): Promise<ParsedAction[]> {
  const key = commitKey(version);
  const cache = logOperationFor(store)?.cache;
  let bytes = cache?.get(key, options.meta);
  if (!bytes) {
    bytes = await store.get(key, { signal: options.signal });
    cache?.put(key, bytes, options.meta?.etag);
  }
  return parseCommit(bytes, `${options.table ?? store.root}/${key}`);
}

/** Reads commits (one GET each, at most `concurrency` at a time), returning their actions in the given order. */
export async function readCommits(
  store: ObjectStore,
  commits: readonly { version: number; meta?: ObjectMeta | undefined }[],
  table: string,
  signal?: AbortSignal,
  concurrency = 8,
): Promise<ParsedAction[][]> {
  const out: ParsedAction[][] = new Array(commits.length);
  let next = 0;
  const worker = async () => {
    while (next < commits.length) {
      const i = next++;
      const commit = commits[i]!;
      out[i] = await readCommit(store, commit.version, { signal, table, meta: commit.meta });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, commits.length) }, worker));
  return out;
}
