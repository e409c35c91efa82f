/** Where the oracle venv lives and how to get its executables; set-up builds it (tools/oracle/ensure-venv.sh). */
import { existsSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const toolsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Absolute path of the repository root. */
export const repoRoot = path.resolve(toolsDir, "..");

/** Absolute path of an executable in the oracle venv; throws with the set-up command when it is missing. */
export function venvBin(name: string): string {
  const bin = path.join(toolsDir, "oracle", ".venv", "bin", name);
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: run 'bash tools/setup.sh' (it builds the oracle venv)`);
  }
  return bin;
}

/** Absolute path of a file in tools/oracle. */
export function oracleFile(name: string): string {
  return path.join(toolsDir, "oracle", name);
}
