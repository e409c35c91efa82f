/**
 * Where relative paths on the command line start: the caller's working directory. Run directly or through
 * `npx`, that is the process's cwd. Run as `pnpm -s deltalite …` (a package script that is only the bin, the
 * caller's arguments appended), pnpm starts the script in the package's directory and puts the caller's
 * directory in INIT_CWD: then INIT_CWD. A script with arguments of its own (`"sync": "deltalite upsert ./t
 * …"`) keeps the package directory, as npm scripts do, and so does any process that merely inherited INIT_CWD.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

/** A package script that runs only this bin: `deltalite`, or `node …/cli.js`. */
const BIN_ONLY_SCRIPT = /^\s*(?:deltalite|node\s+\S*cli\.js)\s*$/;

function scriptText(packageJson: string, event: string): string | undefined {
  try {
    const scripts = (JSON.parse(readFileSync(packageJson, "utf8")) as { scripts?: Record<string, unknown> })
      .scripts;
    const text = scripts?.[event];
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The directory relative paths resolve from (see the module comment). */
export function callerDirectory(env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  const { INIT_CWD: initCwd, npm_lifecycle_event: event, npm_package_json: packageJson } = env;
  if (!initCwd || !event || !packageJson) return cwd;
  const script = scriptText(packageJson, event);
  return script !== undefined && BIN_ONLY_SCRIPT.test(script) ? path.resolve(initCwd) : cwd;
}

/** A URI with a scheme (`s3://`, `file://`, `memory://`) as given; a local path resolved from `from`. */
export function resolveLocation(location: string, from: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? location : path.resolve(from, location);
}
