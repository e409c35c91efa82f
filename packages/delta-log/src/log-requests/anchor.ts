/**
 * The probe anchor: the newest commit file a snapshot load read, as the listing described it (key, etag,
 * last-modified). A HEAD of it answering the same etag and last-modified proves the table at the root is the
 * one the snapshot was read from; a 404 or another etag means it was replaced (or its log cleaned past it).
 */
import type { ObjectMeta } from "@deltalite/object-store";

export interface CommitAnchor {
  version: number;
  key: string;
  /** Undefined when the store gives no ETags (then the probe is not trusted). */
  etag: string | undefined;
  lastModified: number;
}

/** The anchor for a listed commit file. */
export function anchorOf(file: { version: number; meta: ObjectMeta }): CommitAnchor {
  return {
    version: file.version,
    key: file.meta.key,
    etag: file.meta.etag,
    lastModified: file.meta.lastModified,
  };
}

/**
 * Whether `meta` (a HEAD answer) describes the anchor's object: equal etags (quotes and a weak `W/` marker
 * ignored) and equal last-modified to the second (an HTTP date has no milliseconds, a listing may).
 */
export function isSameObject(anchor: CommitAnchor, meta: ObjectMeta): boolean {
  if (anchor.etag === undefined || meta.etag === undefined) return false;
  if (normalizeEtag(anchor.etag) !== normalizeEtag(meta.etag)) return false;
  return Math.floor(anchor.lastModified / 1000) === Math.floor(meta.lastModified / 1000);
}

function normalizeEtag(etag: string): string {
  return etag.replace(/^W\//, "").replace(/^"|"$/g, "");
}

/**
 * A log file of a snapshot's own version as the snapshot knows it: its commit file as listed or as this
 * process put it (last-modified unknown), or the checkpoint it was read from. A LIST from that version that
 * shows the file as another object, or not at all, proves the table at the root was replaced by one of the
 * same length, which no anchor may be there to catch. A listed `ObjectMeta` and a `CommitAnchor` are one.
 */
export interface OwnLogFile {
  key: string;
  etag: string | undefined;
  lastModified: number | undefined;
}

/** Whether `listed` is `known`'s object; true when either side has no etag (nothing to compare). */
export function isKnownFile(known: OwnLogFile, listed: ObjectMeta): boolean {
  if (known.etag === undefined || listed.etag === undefined) return true;
  if (normalizeEtag(known.etag) !== normalizeEtag(listed.etag)) return false;
  return (
    known.lastModified === undefined ||
    Math.floor(known.lastModified / 1000) === Math.floor(listed.lastModified / 1000)
  );
}
