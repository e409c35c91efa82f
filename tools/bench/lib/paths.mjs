// Owns the places every benchmark script starts from: the repository root, the oracle venv's Python (pyarrow
// and delta-rs, built by tools/oracle/ensure-venv.sh before any benchmark runs) and the MB the figures use.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const oraclePython = join(repo, "tools/oracle/.venv/bin/python");
export const MB = 1024 * 1024;
