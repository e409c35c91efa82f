/**
 * Key hygiene shared by every store: validation (no way out of the root), UTF-8 byte-order comparison for
 * sorted listings, and range normalisation. `compareUtf8` is also the library's one string order: Add-stats
 * bounds (delta-log), scan filters and pruning (data-files) compare with it, this being the lowest package
 * they all depend on.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { ByteRange } from "./types.js";

/**
 * Throws `invalid_path` unless `key` is a plain relative key: non-empty, no leading `/`, no empty, `.` or
 * `..` segment, no NUL. Percent-encoded characters are literal (a key may contain `%2F`).
 */
export function validateKey(key: string): string {
  if (typeof key !== "string" || key.length === 0) throw invalidPath(key, "empty key");
  if (key.startsWith("/")) throw invalidPath(key, "absolute keys are not allowed");
  if (key.includes("\0")) throw invalidPath(key, "NUL byte in key");
  if (key.includes("\\")) throw invalidPath(key, "backslash in key");
  for (const segment of key.split("/")) {
    if (segment === "" && !key.endsWith("/")) throw invalidPath(key, "empty path segment");
    if (segment === "." || segment === "..") throw invalidPath(key, `'${segment}' segment`);
  }
  if (key.endsWith("/")) throw invalidPath(key, "key names a directory");
  return key;
}

/** Validates a listing prefix: like a key, but it may be empty or end with `/`. */
export function validatePrefix(prefix: string): string {
  if (prefix === "") return prefix;
  validateKey(prefix.endsWith("/") ? `${prefix}x` : prefix);
  return prefix;
}

function invalidPath(key: string, why: string): DeltaLiteError {
  return new DeltaLiteError("invalid_path", `invalid object key ${JSON.stringify(key)}: ${why}`);
}

/**
 * Compares two strings by their UTF-8 bytes (the order S3 lists in, and the order Parquet statistics use),
 * which is Unicode code-point order. Exact for well-formed strings; a lone surrogate sorts like the
 * supplementary characters (above U+E000–U+FFFF), where UTF-8 encoders would substitute U+FFFD.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order equals UTF-8 order except that surrogates (U+D800–DFFF, i.e. code points ≥ U+10000)
    // sort below U+E000–FFFF in UTF-16 but above them in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && x >= 0xd800 && y >= 0xd800) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Clamps `range` to an object of `size` bytes; throws when the range is malformed or starts past the end. */
export function clampRange(range: ByteRange, size: number, key: string): ByteRange {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new DeltaLiteError("generic", `invalid byte range [${start}, ${end}) for ${JSON.stringify(key)}`);
  }
  if (start > size) {
    throw new DeltaLiteError(
      "generic",
      `byte range [${start}, ${end}) starts past the end of ${JSON.stringify(key)} (${size} bytes)`,
    );
  }
  return { start, end: Math.min(end, size) };
}
