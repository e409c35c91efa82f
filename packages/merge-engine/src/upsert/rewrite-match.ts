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

/**
 * `matchBatch` over rows already encoded (`keys`, encoded with the set's columns and hasher). Given
 * `candidates` (ascending rows that include every row whose key may be in the set: the native engine's hit
 * rows), only those are looked up and every other row is kept.
 */
export function matchKeys(
  keys: EncodedKeys,
  set: SourceKeySet,
  deletes: PartitionDeletes | undefined,
  matches: Uint32Array,
  candidates?: Uint32Array,
): BatchMatch {
  if (candidates !== undefined) return matchCandidates(keys, set, deletes, matches, candidates);
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

/**
 * `matchKeys` of the `candidates` rows alone: the rows kept are every other row and the candidates that match
 * nothing, listed only when `keep` is first read (a passed-through file needs only the rows left out). In a
 * cold recent 4M upsert the lookup of every row of the 24 hit files was ~35–65 ms of the main thread, most of
 * it before V8 had compiled the loop (merge-engine BENCHMARKS.md, session 34).
 */
function matchCandidates(
  keys: EncodedKeys,
  set: SourceKeySet,
  deletes: PartitionDeletes | undefined,
  matches: Uint32Array,
  candidates: Uint32Array,
): BatchMatch {
  const drop = new Int32Array(candidates.length);
  const entries = new Int32Array(candidates.length);
  const gone = deletes ? new Int32Array(candidates.length) : undefined;
  let replaced = 0;
  let deleted = 0;
  for (let k = 0; k < candidates.length; k++) {
    const i = candidates[k] as number;
    const entry = set.find(keys, i);
    if (entry < 0) continue;
    if (gone && deletes?.entries[entry] === 1) gone[deleted++] = i;
    else {
      matches[entry] = (matches[entry] as number) + 1;
      entries[replaced] = entry;
      drop[replaced++] = i;
    }
  }
  const kept = keys.length - replaced - deleted;
  let keep: Int32Array | undefined;
  return {
    keys,
    get keep() {
      keep ??= rowsBesides(keys.length, drop.subarray(0, replaced), gone?.subarray(0, deleted));
      return keep;
    },
    kept,
    drop,
    replaced,
    entries,
    gone,
    deleted,
  };
}

/** Rows 0..rows-1 less those of `a` and `b` (each ascending). */
function rowsBesides(rows: number, a: Int32Array, b: Int32Array | undefined): Int32Array {
  const out = new Int32Array(rows - a.length - (b?.length ?? 0));
  let x = 0;
  let y = 0;
  let at = 0;
  for (let i = 0; i < rows; i++) {
    if (x < a.length && a[x] === i) x++;
    else if (b !== undefined && y < b.length && b[y] === i) y++;
    else out[at++] = i;
  }
  return out;
}
