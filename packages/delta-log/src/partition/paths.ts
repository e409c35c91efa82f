/**
 * Data-file paths as delta-rs lays them out: Hive partition directories whose values are percent-encoded
 * with the RFC 3986 unreserved set (`A-Za-z0-9-._~` kept, everything else `%XX` of its UTF-8 bytes), the
 * null directory `__HIVE_DEFAULT_PARTITION__`, file names `part-00000-<uuid>-c000.<codec>.parquet`, and
 * the second, smaller encoding applied when a path is written into `add.path`.
 */
import { randomUUID } from "node:crypto";

/** Directory value of a null partition value. */
export const NULL_PARTITION_DIRECTORY = "__HIVE_DEFAULT_PARTITION__";

const HEX = "0123456789ABCDEF";

function percentEncode(text: string, keep: (byte: number) => boolean): string {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    if (byte < 0x80 && keep(byte)) out += String.fromCharCode(byte);
    else out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

const isUnreserved = (b: number) =>
  (b >= 0x30 && b <= 0x39) ||
  (b >= 0x41 && b <= 0x5a) ||
  (b >= 0x61 && b <= 0x7a) ||
  b === 0x2d ||
  b === 0x2e ||
  b === 0x5f ||
  b === 0x7e;

/** Encodes one partition value (already serialised) for its directory name, as delta-rs ≥ 1.1.4 does. */
export function encodePartitionDirectoryValue(value: string | null): string {
  return value === null ? NULL_PARTITION_DIRECTORY : percentEncode(value, isUnreserved);
}

/**
 * The Hive directory of a partition, `col=value/...` in partition-column order (column names are not
 * encoded). Empty for an unpartitioned table.
 */
export function hivePartitionPath(
  partitionColumns: readonly string[],
  serializedValues: Readonly<Record<string, string | null>>,
): string {
  return partitionColumns
    .map((column) => `${column}=${encodePartitionDirectoryValue(serializedValues[column] ?? null)}`)
    .join("/");
}

const ADD_PATH_ENCODED = new Set([...' \\{^}%`]">[<#|*?'].map((c) => c.charCodeAt(0)));

/** Encodes a store key for `add.path` / `remove.path` (delta-rs `serde_path`): `%` → `%25`, etc. */
export function encodeActionPath(key: string): string {
  return percentEncode(key, (b) => b >= 0x20 && b !== 0x7f && !ADD_PATH_ENCODED.has(b));
}

/** Hadoop codec suffixes delta-rs puts into file names. */
const CODEC_SUFFIX: Record<string, string> = {
  uncompressed: "",
  snappy: ".snappy",
  gzip: ".gz",
  lzo: ".lzo",
  brotli: ".br",
  lz4: ".lz4",
  zstd: ".zstd",
  lz4_raw: ".lz4raw",
};

/** `part-00000-<uuid>-c000.<codec>.parquet`; one `writerId` per partition writer, `part` counts rollovers. */
export function dataFileName(part: number, codec: string, writerId: string = randomUUID()): string {
  const suffix = CODEC_SUFFIX[codec.toLowerCase()] ?? "";
  return `part-${String(part).padStart(5, "0")}-${writerId}-c000${suffix}.parquet`;
}
