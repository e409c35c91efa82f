/**
 * The live files in the order delta-rs's snapshot yields them (`file_views`: newest commit first, a commit's
 * adds in the commit's order, then the checkpoint's rows), which is the order delta-rs packs bins in. Each
 * FileView carries the version that added it (the checkpoint's version for the files a checkpoint lists),
 * so this is a stable sort of the loaded snapshot: no storage reads.
 */
import type { FileView, Snapshot } from "@deltalite/delta-log";

/** Files sorted by the version of their add, newest first; equal versions keep replay order (a stable sort). */
export function orderByVersion(files: readonly FileView[]): FileView[] {
  return files
    .map((file, at) => ({ file, at }))
    .sort((a, b) => b.file.version - a.file.version || a.at - b.at)
    .map((entry) => entry.file);
}

/** The snapshot's live files in delta-rs's `file_views` order. */
export function filesInDeltaRsOrder(snapshot: Snapshot): FileView[] {
  return orderByVersion(snapshot.files);
}
