// The original deltalite (PyPI `deltalite` 0.1.15) as a contender of `pnpm bench upsert`: builds its venv once
// (ensure-venv.sh beside this file; exit 3 there means no CPython >= 3.12 exists) and says how to run one
// measured upsert (upsert-original.py) in a child process with the original's defaults: no DELTALITE_*
// variable of the bench's environment reaches it (they are meant for our upsert).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const NO_PYTHON = 3;

/** `{ command, args(tableDir, batchFile), env }` when the venv is ready, else `{ skipped: reason }`. */
export function prepareOriginal() {
  const build = spawnSync("bash", [join(here, "ensure-venv.sh")], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (build.status !== 0) {
    return {
      skipped:
        build.status === NO_PYTHON
          ? "no CPython >= 3.12 found"
          : `building its venv failed (exit ${build.status ?? build.signal})`,
    };
  }
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("DELTALITE_")),
  );
  return {
    command: join(here, ".venv/bin/python"),
    args: (tableDir, batchFile) => [join(here, "upsert-original.py"), "merge", tableDir, batchFile],
    env,
  };
}
