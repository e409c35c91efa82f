/**
 * What two runs of the same upsert on copies of one table are compared by (the passthrough suites): copies
 * of the base table, the Add stats a commit wrote, and the counters of the stats that must agree whichever
 * way the hit files were read (timings and files passed through aside).
 */
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { UpsertStats } from "../src/index.js";

/** Copies of the table at `base`, one per suffix, at `${base}-${suffix}`. */
export async function copiesOf<const S extends readonly string[]>(
  base: string,
  suffixes: S,
): Promise<{ [K in keyof S]: string }> {
  const roots = suffixes.map((suffix) => `${base}-${suffix}`);
  for (const root of roots) await cp(base, root, { recursive: true });
  return roots as { [K in keyof S]: string };
}

/** The `stats` of every Add the commit of `version` wrote, sorted. */
export async function addStats(root: string, version: number): Promise<string[]> {
  const text = await readFile(join(root, "_delta_log", `${String(version).padStart(20, "0")}.json`), "utf8");
  return text
    .split("\n")
    .filter((line) => line.includes('"add"'))
    .map((line) => JSON.parse(line).add.stats as string)
    .sort();
}

/** The stats' counters, without timings and the count of files passed through. */
export function comparableCounters(stats: UpsertStats): Record<string, unknown> {
  const { filesPassedThrough: _, ...rest } = stats;
  return Object.fromEntries(Object.entries(rest).filter(([k]) => !k.endsWith("Ms")));
}
