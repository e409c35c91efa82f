/**
 * The live files in the order delta-rs's snapshot yields them (`file_views`: newest commit first, a commit's
 * adds in the commit's order, then the checkpoint's rows), which is the order delta-rs packs bins in. The
 * snapshot keeps files in replay order (oldest first) but not the version that added each one, so this reads
 * the commit files of the snapshot's log segment once (one LIST + one GET per commit after the newest
 * checkpoint) to learn it. Files the commits do not add came from the checkpoint and go last, in replay order.
 *
 * Interim: once delta-log's FileView carries the version of its add (`version`), this becomes a pure sort
 * with no reads (see `orderByVersion`).
 */
import { type FileView, findSegment, readCommits, type Snapshot } from "@deltalite/delta-log";

/** Files sorted by the version of their add, newest first; equal versions keep replay order (a stable sort). */
export function orderByVersion(
  files: readonly FileView[],
  versionOf: (file: FileView) => number,
): FileView[] {
  return files
    .map((file, at) => ({ file, at, version: versionOf(file) }))
    .sort((a, b) => b.version - a.version || a.at - b.at)
    .map((entry) => entry.file);
}

/** The snapshot's live files in delta-rs's `file_views` order. */
export async function filesInDeltaRsOrder(snapshot: Snapshot, signal?: AbortSignal): Promise<FileView[]> {
  const files = snapshot.files;
  const carried = files[0] as (FileView & { version?: unknown }) | undefined;
  if (carried === undefined) return [];
  if (typeof carried.version === "number") {
    return orderByVersion(files, (f) => (f as FileView & { version: number }).version);
  }
  const { segment } = await findSegment(snapshot.store, snapshot.version, snapshot.table, signal);
  const commits = segment.commits.filter((c) => c.version <= snapshot.version);
  const actions = await readCommits(snapshot.store, commits, snapshot.table, signal);
  const addedAt = new Map<string, number>();
  for (const [i, commit] of commits.entries()) {
    for (const action of actions[i]!) if ("add" in action) addedAt.set(action.add.path, commit.version);
  }
  return orderByVersion(files, (f) => addedAt.get(f.add.path) ?? -1);
}
