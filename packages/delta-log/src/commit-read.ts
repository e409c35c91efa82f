/**
 * The one read of a commit file: `readCommit` GETs `_delta_log/<20 digits>.json` and parses its actions.
 * Every commit read of this package goes through it — snapshot load and reload, the history reader, a losing
 * transaction's reads of the winners, the commit writer's read-back of an inconclusive put — so a cache of
 * commit JSON has one place to go. A missing commit is the store's `not_found`, propagated unchanged; a
 * malformed one is `corrupt_log`. `readCommits` reads several with bounded parallelism.
 */
import type { ObjectStore } from "@deltalite/object-store";
import { type ParsedAction, parseCommit } from "./actions.js";
import { commitKey } from "./log-path.js";

export interface ReadCommitOptions {
  signal?: AbortSignal | undefined;
  /** The table's display name in error messages (default: the store's root). */
  table?: string | undefined;
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
  const bytes = await store.get(key, { signal: options.signal });
  return parseCommit(bytes, `${options.table ?? store.root}/${key}`);
}

/** Reads commits (one GET each, at most `concurrency` at a time), returning their actions in the given order. */
export async function readCommits(
  store: ObjectStore,
  commits: readonly { version: number }[],
  table: string,
  signal?: AbortSignal,
  concurrency = 8,
): Promise<ParsedAction[][]> {
  const out: ParsedAction[][] = new Array(commits.length);
  let next = 0;
  const worker = async () => {
    while (next < commits.length) {
      const i = next++;
      out[i] = await readCommit(store, commits[i]!.version, { signal, table });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, commits.length) }, worker));
  return out;
}
