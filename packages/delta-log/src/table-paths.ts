/**
 * `add.path` / `remove.path` → store keys. A log path is a URI-encoded path relative to the table root;
 * it is decoded exactly once (so `%25` becomes a literal `%` in the key, as delta-rs's partition
 * directories need) and must stay inside the root: absolute paths and URIs, `..` / `.` / empty segments
 * and malformed escapes are refused with `invalid_path`. (Encoding for writing: `partition/paths.ts`.)
 */
import { DeltaLiteError } from "@deltalite/errors";

/** Decodes a log path to a store key relative to the table root, or throws `invalid_path`. */
export function decodeLogPath(path: string, table = "table"): string {
  const refuse = (why: string) =>
    new DeltaLiteError("invalid_path", `${table}: file path ${JSON.stringify(path)} ${why}`);
  if (path === "") throw refuse("is empty");
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path))
    throw refuse("is an absolute URI; only relative paths are supported");
  if (path.startsWith("/")) throw refuse("is absolute; only relative paths are supported");
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch (error) {
    throw new DeltaLiteError(
      "invalid_path",
      `${table}: file path ${JSON.stringify(path)} has a malformed escape`,
      {
        cause: error,
      },
    );
  }
  if (decoded.startsWith("/")) throw refuse("is absolute once decoded");
  if (decoded.includes("\\") || decoded.includes("\0")) throw refuse("contains a backslash or NUL");
  for (const segment of decoded.split("/")) {
    if (segment === "..") throw refuse("leaves the table root ('..' segment)");
    if (segment === "." || segment === "") throw refuse("has an empty or '.' segment");
  }
  return decoded;
}
