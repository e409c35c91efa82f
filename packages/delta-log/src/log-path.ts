/**
 * The one classifier of `_delta_log` file names (commit, classic / multi-part / UUID checkpoint, crc,
 * compacted commit, unknown) and the formatters of the keys this library writes. Keys are relative to the
 * table root (`_delta_log/00000000000000000007.json`).
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";

export const LOG_DIR = "_delta_log";
export const LOG_PREFIX = `${LOG_DIR}/`;
export const LAST_CHECKPOINT_KEY = `${LOG_DIR}/_last_checkpoint`;
export const SIDECARS_PREFIX = `${LOG_DIR}/_sidecars/`;

export type LogPath =
  | { kind: "commit"; version: number; key: string }
  | { kind: "checkpoint"; version: number; key: string }
  | { kind: "multipartCheckpoint"; version: number; part: number; numParts: number; key: string }
  | { kind: "uuidCheckpoint"; version: number; uuid: string; format: "json" | "parquet"; key: string }
  | { kind: "crc"; version: number; key: string }
  | { kind: "compacted"; version: number; endVersion: number; key: string }
  | { kind: "unknown"; key: string };

const V = "(\\d{20})";
const COMMIT = new RegExp(`^${V}\\.json$`);
const CLASSIC = new RegExp(`^${V}\\.checkpoint\\.parquet$`);
const MULTIPART = new RegExp(`^${V}\\.checkpoint\\.(\\d{10})\\.(\\d{10})\\.parquet$`);
const UUID_CKPT = new RegExp(
  `^${V}\\.checkpoint\\.([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\\.(json|parquet)$`,
);
const CRC = new RegExp(`^${V}\\.crc$`);
const COMPACTED = new RegExp(`^${V}\\.${V}\\.compacted\\.json$`);

/**
 * Classifies a key relative to the table root (or a bare file name). Only files directly inside
 * `_delta_log/` are log files; anything else (sidecars, `_last_checkpoint`, temp files) is `unknown`.
 */
export function parseLogPath(key: string): LogPath {
  let name = key;
  if (key.includes("/")) {
    if (!key.startsWith(LOG_PREFIX)) return { kind: "unknown", key };
    name = key.slice(LOG_PREFIX.length);
    if (name.includes("/")) return { kind: "unknown", key };
  }
  let m = COMMIT.exec(name);
  if (m) return versioned("commit", m[1]!, key);
  m = CLASSIC.exec(name);
  if (m) return versioned("checkpoint", m[1]!, key);
  m = MULTIPART.exec(name);
  if (m) {
    const version = toVersion(m[1]!);
    const part = Number(m[2]);
    const numParts = Number(m[3]);
    if (version === undefined || part < 1 || numParts < 1 || part > numParts) return { kind: "unknown", key };
    return { kind: "multipartCheckpoint", version, part, numParts, key };
  }
  m = UUID_CKPT.exec(name);
  if (m) {
    const version = toVersion(m[1]!);
    if (version === undefined) return { kind: "unknown", key };
    return { kind: "uuidCheckpoint", version, uuid: m[2]!, format: m[3] as "json" | "parquet", key };
  }
  m = CRC.exec(name);
  if (m) return versioned("crc", m[1]!, key);
  m = COMPACTED.exec(name);
  if (m) {
    const version = toVersion(m[1]!);
    const endVersion = toVersion(m[2]!);
    if (version === undefined || endVersion === undefined || endVersion < version)
      return { kind: "unknown", key };
    return { kind: "compacted", version, endVersion, key };
  }
  return { kind: "unknown", key };
}

function versioned(kind: "commit" | "checkpoint" | "crc", digits: string, key: string): LogPath {
  const version = toVersion(digits);
  return version === undefined ? { kind: "unknown", key } : { kind, version, key };
}

function toVersion(digits: string): number | undefined {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Zero-pads a version to the 20 digits log file names use. */
export function formatVersion(version: number): string {
  assertVersion(version);
  return String(version).padStart(20, "0");
}

/** `_delta_log/<20 digits>.json`. */
export function commitKey(version: number): string {
  return `${LOG_PREFIX}${formatVersion(version)}.json`;
}

/** `_delta_log/<20 digits>.checkpoint.parquet` (classic single-file checkpoint). */
export function checkpointKey(version: number): string {
  return `${LOG_PREFIX}${formatVersion(version)}.checkpoint.parquet`;
}

/** Throws `invalid_argument` unless `version` is a non-negative safe integer. */
export function assertVersion(version: number): void {
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new DeltaLiteInvalidArgumentError(
      `invalid table version ${String(version)}: a version is a non-negative integer`,
    );
  }
}
