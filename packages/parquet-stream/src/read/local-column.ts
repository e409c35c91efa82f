/**
 * Owns the value hashes of one byte-array column of a LOCAL Parquet file, by the native engine from the file's
 * path: its footer and chunks are read and decoded off the JavaScript thread, so this thread neither reads the
 * file nor parses its footer (an upsert's probe of a file without a hit). The row groups' hashes are the ones
 * ParquetReader.valueHashes gives for the same file, under the same admission: each chunk's compressed bytes
 * as fetched bytes, and its decode, while the call runs.
 */
import { nativeFileValueHasher } from "../engine.js";
import type { ReadAdmission, Release } from "./admission.js";
import { admittedValueHashes, type ColumnValueHashes, seedWords } from "./value-hashes.js";

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
}

const admitted: Release = () => undefined;

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
  const layout = await hasher.layout(path, size, column).catch(() => undefined);
  if (layout === undefined) return undefined;
  if (!layout.present) return null;
  const { admission, signal } = options;
  const admitFetch = (bytes: number) => admission?.admitFetch(bytes, signal) ?? Promise.resolve(admitted);
  const admitDecode = (bytes: number) => admission?.admitDecode(bytes, signal) ?? Promise.resolve(admitted);
  return {
    numRowGroups: layout.rows.length,
    async valueHashes(rowGroup, seed, withValues = false) {
      const rows = layout.rows[rowGroup];
      if (rows === undefined || signal?.aborted) return undefined;
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
          hasher.hash(path, size, rowGroup, layout.leaf, seedLo, seedHi, withValues),
        );
      } finally {
        fetched();
      }
    },
  };
}
