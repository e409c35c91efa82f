/**
 * Owns the value hashes of one byte-array column of a LOCAL Parquet file, by the native engine from the file's
 * path: its footer and chunks are read and decoded off the JavaScript thread, so this thread neither reads the
 * file nor parses its footer (an upsert's probe of a file without a hit). The row groups' hashes are the ones
 * ParquetReader.valueHashes gives for the same file, under the same admission: each chunk's compressed bytes
 * as fetched bytes, and its decode, while the call runs. A small file whose first row group's hashes are
 * asked for ahead (`first`) gets them in the layout's own call: one task on the pool and one footer parse
 * instead of two, its whole size admitted as the chunk's fetch (the chunk's own size is in the footer).
 */
import { type FileColumnLayout, type FileValueHasher, nativeFileValueHasher } from "../engine.js";
import type { ReadAdmission, Release } from "./admission.js";
import {
  admittedValueHashes,
  type ColumnValueHashes,
  checkedValueHashes,
  heldBytes,
  seedWords,
} from "./value-hashes.js";

/** One column of a local file, hashed a row group at a time. */
export interface LocalColumnHashes {
  readonly numRowGroups: number;
  /**
   * Row group `rowGroup`'s hashes (with `withValues` its values too), as ParquetReader.valueHashes gives them;
   * undefined when the native engine cannot give them (read the column with a ParquetReader instead).
   */
  valueHashes(rowGroup: number, seed: bigint, withValues?: boolean): Promise<ColumnValueHashes | undefined>;
}

export interface LocalColumnOptions {
  /** Asked before a chunk is read and while it is decoded (the budgets' reader hook). */
  admission?: ReadAdmission | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The seed the first row group's hashes will be asked under, and the file's rows as its Delta Add says
   * (the decode's admission): a file of at most FIRST_WITH_LAYOUT_MAX_BYTES then has them hashed in the
   * layout's call (module comment).
   */
  first?: { seed: bigint; rows: number } | undefined;
  /**
   * A source's key hashes (8 little-endian bytes each): every row group's hashes then come with `mayHit`,
   * whether a non-NULL row's hash is one of them (ColumnValueHashes.mayHit).
   */
  probe?: Uint8Array | undefined;
}

/**
 * The largest file whose first row group is hashed in the layout's call. Its fetch is admitted as the whole
 * file, so the bound keeps that over-admission small against the fetch budget (128 MiB by default).
 */
export const FIRST_WITH_LAYOUT_MAX_BYTES = 8 * 1024 * 1024;

const admitted: Release = () => undefined;

/** The budgets' hooks, or ones that admit at once. */
function admitters(options: LocalColumnOptions) {
  const { admission, signal } = options;
  return {
    admitFetch: (bytes: number) => admission?.admitFetch(bytes, signal) ?? Promise.resolve(admitted),
    admitDecode: (bytes: number) => admission?.admitDecode(bytes, signal) ?? Promise.resolve(admitted),
  };
}

/** A file's layout, and its first row group's hashes when they came with it. */
interface LayoutAnswer {
  layout: FileColumnLayout;
  first: ColumnValueHashes | undefined;
}

/**
 * The layout of the column; with `options.first` (for a small enough file), its first row group's hashes in
 * the same call, admitted as that row group's hashing is (the whole file as its fetch). Undefined when the
 * engine cannot read the file as given.
 */
async function layoutOf(
  hasher: FileValueHasher,
  path: string,
  size: number,
  column: string,
  options: LocalColumnOptions,
): Promise<LayoutAnswer | undefined> {
  const ahead = options.first;
  if (ahead === undefined || size > FIRST_WITH_LAYOUT_MAX_BYTES) {
    const layout = await hasher.layout(path, size, column).catch(() => undefined);
    return layout && { layout, first: undefined };
  }
  const { admitFetch, admitDecode } = admitters(options);
  const [seedLo, seedHi] = seedWords(ahead.seed);
  const estimate = 9 * ahead.rows;
  const fetched = await admitFetch(size);
  let decoded: Release = admitted;
  try {
    decoded = await admitDecode(estimate);
    const layout = await hasher
      .layout(path, size, column, seedLo, seedHi, options.probe)
      .catch(() => undefined);
    if (layout === undefined) return undefined;
    const rows = layout.rows[0];
    const call = { rows: rows ?? 0, uncompressedBytes: 0, withValues: false, binary: layout.binary };
    const first = layout.first && rows !== undefined ? checkedValueHashes(layout.first, call) : undefined;
    if (first && heldBytes(first) > estimate) {
      // As admittedValueHashes: never wait while holding; wait for what the call really holds.
      decoded();
      decoded = await admitDecode(heldBytes(first));
    }
    return { layout, first };
  } finally {
    decoded();
    fetched();
  }
}

/**
 * Column `column` of the local file at `path`, which its Delta Add says is `size` bytes long: null when the
 * file has no top-level column of that name (every key there is NULL); undefined when this process runs
 * parquet-wasm, the column is not a top-level byte-array leaf, the call was aborted, or the file cannot be
 * read as given (missing, another length, not Parquet): open it with a ParquetReader, which says why.
 */
export async function openLocalColumnHashes(
  path: string,
  size: number,
  column: string,
  options: LocalColumnOptions = {},
): Promise<LocalColumnHashes | null | undefined> {
  const hasher = nativeFileValueHasher();
  if (hasher === undefined || options.signal?.aborted) return undefined;
  const answer = await layoutOf(hasher, path, size, column, options);
  if (answer === undefined) return undefined;
  const { layout } = answer;
  if (!layout.present) return null;
  const { signal } = options;
  const { admitFetch, admitDecode } = admitters(options);
  // Handed out once, to the call it was hashed for.
  let first = answer.first;
  return {
    numRowGroups: layout.rows.length,
    async valueHashes(rowGroup, seed, withValues = false) {
      const rows = layout.rows[rowGroup];
      if (rows === undefined || signal?.aborted) return undefined;
      if (first !== undefined && rowGroup === 0 && !withValues && seed === options.first?.seed) {
        const given = first;
        first = undefined;
        return given;
      }
      const [seedLo, seedHi] = seedWords(seed);
      const call = {
        rows,
        uncompressedBytes: withValues ? (layout.uncompressedBytes[rowGroup] ?? 0) : 0,
        withValues,
        binary: layout.binary,
      };
      const fetched = await admitFetch(layout.chunkBytes[rowGroup] ?? 0);
      try {
        return await admittedValueHashes(admitDecode, call, () =>
          hasher.hash(path, size, rowGroup, layout.leaf, seedLo, seedHi, withValues, options.probe),
        );
      } finally {
        fetched();
      }
    },
  };
}
