/**
 * Which apache-arrow an Arrow object comes from, for error messages. apache-arrow puts no version on its
 * objects, so the version is read from the library's own files: a method of the object's copy is called
 * with an argument that records the call stack, the stack names the file that copy runs from, and the
 * nearest `package.json` of apache-arrow above that file holds the version. Where no file can be found
 * (a bundle, a browser), what the objects themselves tell is reported instead: 21.2 added cross-copy
 * markers (`Symbol.for("apache-arrow/Schema")`), older releases have none.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Schema } from "apache-arrow";

/** The apache-arrow majors deltalite reads and is tested with (the packages' peer range). */
export const SUPPORTED_ARROW_MAJORS = [19, 20, 21] as const;
/** The peer range as package.json spells it. */
export const ARROW_PEER_RANGE = SUPPORTED_ARROW_MAJORS.map((m) => `^${m}.0.0`).join(" || ");

const MARKER = Symbol.for("apache-arrow/Schema");
let own: string | undefined;

/** The version of the apache-arrow this package runs with. */
export function ownArrowVersion(): string {
  own ??= arrowVersionOf(new Schema([]));
  return own;
}

/**
 * The version of the apache-arrow `schema` was made by: "20.0.0", or when no file tells it, a description
 * ("apache-arrow 21.2 or newer" / "an apache-arrow older than 21.2").
 */
export function arrowVersionOf(schema: object): string {
  const found = versionFromFiles(schema);
  if (found) return found;
  return MARKER in schema ? "21.2 or newer (version not found)" : "older than 21.2 (version not found)";
}

function versionFromFiles(schema: object): string | undefined {
  const selectAt = (schema as { selectAt?: unknown }).selectAt;
  if (typeof selectAt !== "function") return undefined;
  let files: string[] = [];
  // Schema#selectAt calls `indices.map(...)` (releases 9 and later) or uses each index as a key (older
  // ones, `selectAt(...indices)`): either way the stack of that call starts in the file of the copy that
  // made `schema`.
  const record = () => {
    files = callerFiles();
  };
  const recorder = {
    map: () => {
      record();
      return [];
    },
    toString: () => {
      record();
      return "";
    },
  };
  try {
    selectAt.call(schema, recorder);
  } catch {
    // not the method we know: no version from files
  }
  for (const file of files) {
    const version = arrowPackageVersion(file);
    if (version) return version;
  }
  return undefined;
}

/** File names of the current call stack, innermost first (V8's structured stack trace). */
function callerFiles(): string[] {
  const original = Error.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  try {
    Error.prepareStackTrace = (_error, sites) => sites.map((site) => site.getFileName() ?? "");
    Error.captureStackTrace(holder, callerFiles);
    return Array.isArray(holder.stack) ? (holder.stack as string[]) : [];
  } finally {
    Error.prepareStackTrace = original;
  }
}

/** The version in the nearest package.json named apache-arrow above `file`, if any. */
function arrowPackageVersion(file: string): string | undefined {
  if (!file.includes("apache-arrow")) return undefined;
  let dir = dirname(file.startsWith("file:") ? fileURLToPath(file) : file);
  for (let up = 0; up < 4; up++, dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    try {
      const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown; version?: unknown };
      if (parsed.name === "apache-arrow" && typeof parsed.version === "string") return parsed.version;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
