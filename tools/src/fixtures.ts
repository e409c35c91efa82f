/**
 * Where the read-only Delta fixtures live (`../shared/fixtures` beside the repository, or
 * DELTALITE_SHARED_DIR/fixtures), and a helper that copies a table to a temp dir before a test writes to it.
 */
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { repoRoot } from "./python.js";

/** Absolute path of the shared fixtures folder; throws when it is missing. */
export function fixturesDir(): string {
  const shared = process.env.DELTALITE_SHARED_DIR ?? path.resolve(repoRoot, "..", "shared");
  const dir = path.join(shared, "fixtures");
  if (!existsSync(dir)) throw new Error(`fixtures not found at ${dir} (set DELTALITE_SHARED_DIR)`);
  return dir;
}

/** Absolute path of one golden table. */
export function goldenTable(name: string): string {
  return path.join(fixturesDir(), "golden", name);
}

/** Copies a fixture folder to a fresh temp dir (writable, unlike the fixture) and returns its path. */
export async function copyFixture(source: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-fixture-"));
  const target = path.join(dir, path.basename(source));
  await fs.cp(source, target, { recursive: true, preserveTimestamps: true });
  await fs.chmod(target, 0o755).catch(() => undefined);
  return target;
}
