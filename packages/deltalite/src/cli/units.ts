/**
 * Option values with units: byte sizes (`64MiB`, `1.5GiB`, `500KB`, `1048576`) — the one parser every byte
 * option of the CLI uses — and non-negative integers. A malformed value is invalid_argument naming the flag.
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";

/** Bytes per unit; binary units are powers of 1024, decimal ones powers of 1000 (as `ls -h` vs `df -H`). */
const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
};

export const BYTE_SIZE_HELP =
  "BYTES: an integer, or with a unit: KiB MiB GiB TiB (1024-based), KB MB GB TB (1000-based)";

/** Parses a byte size: an integer, or a number with a unit (case-insensitive); a whole number of bytes. */
export function parseByteSize(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const multiplier = match ? BYTE_UNITS[(match[2] || "b").toLowerCase()] : undefined;
  const bytes = match && multiplier !== undefined ? Number(match[1]) * multiplier : Number.NaN;
  if (!Number.isSafeInteger(bytes)) {
    throw new DeltaLiteInvalidArgumentError(
      `${flag} needs a byte size such as 67108864, 64MiB or 1.5GiB (got ${JSON.stringify(text)})`,
    );
  }
  return bytes;
}

/** Parses a non-negative integer (digits only). */
export function parseCount(text: string, flag: string): number {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new DeltaLiteInvalidArgumentError(
      `${flag} needs a non-negative integer (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

/** A byte count for people: "1.5 MiB", "512 B". */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
