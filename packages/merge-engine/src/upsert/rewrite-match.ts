/**
 * Matching one decoded batch of a hit file's rows against a partition's source keys: which rows survive,
 * which a source row replaces (and by which source entry), which a delete row removes. Counts each source
 * entry's replaced target rows in `matches` (MERGE writes a matched source row once per target row it
 * replaces). The rewrite's JS path and its passthrough path (rewrite-passthrough.ts) both match here.
 */
import type { RecordBatch } from "apache-arrow";
import { type EncodedKeys, encodeKeys } from "../keys/encode-keys.js";
import type { KeyHasher } from "../keys/key-hasher.js";
import type { SourceKeySet } from "../keys/source-key-set.js";
import type { PartitionDeletes } from "./source-batch.js";

/** One batch's rows by fate; each array's first `kept` / `replaced` / `deleted` entries are row numbers. */
export interface BatchMatch {
  keys: EncodedKeys;
  keep: Int32Array;
  kept: number;
  drop: Int32Array;
  replaced: number;
  /** The source entry of each replaced row (parallel to `drop`). */
  entries: Int32Array;
  /** Rows a delete row removes (only with deletes). */
  gone: Int32Array | undefined;
  deleted: number;
}

export function matchBatch(
  batch: RecordBatch,
  set: SourceKeySet,
  deletes: PartitionDeletes | undefined,
  matches: Uint32Array,
  hasher: KeyHasher,
  hashWords: Uint32Array | undefined,
): BatchMatch {
  return matchKeys(encodeKeys(batch, set.columns, { hasher, hashWords }), set, deletes, matches);
}

/** `matchBatch` over rows already encoded (`keys`, encoded with the set's columns and hasher). */
export function matchKeys(
  keys: EncodedKeys,
  set: SourceKeySet,
  deletes: PartitionDeletes | undefined,
  matches: Uint32Array,
): BatchMatch {
  const rows = keys.length;
  const keep = new Int32Array(rows);
  const drop = new Int32Array(rows);
  const entries = new Int32Array(rows);
  const gone = deletes ? new Int32Array(rows) : undefined;
  let kept = 0;
  let replaced = 0;
  let deleted = 0;
  for (let i = 0; i < rows; i++) {
    const entry = set.find(keys, i);
    if (entry < 0) keep[kept++] = i;
    else if (gone && deletes?.entries[entry] === 1) gone[deleted++] = i;
    else {
      matches[entry] = (matches[entry] as number) + 1;
      entries[replaced] = entry;
      drop[replaced++] = i;
    }
  }
  return { keys, keep, kept, drop, replaced, entries, gone, deleted };
}
