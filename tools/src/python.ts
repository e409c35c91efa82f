/**
 * Where the oracle venv lives and how to get its executables. The test command builds it
 * (tools/test.sh runs tools/oracle/ensure-venv.sh); so can `bash tools/oracle/ensure-venv.sh` alone.
 */
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
    throw new Error(
      `${bin} is missing: run 'bash tools/oracle/ensure-venv.sh' (or 'pnpm test', which builds it)`,
    );
  }
  return bin;
}

/** Absolute path of a file in tools/oracle. */
export function oracleFile(name: string): string {
  return path.join(toolsDir, "oracle", name);
}
