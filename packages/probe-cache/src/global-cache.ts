/**
 * Owns the process-wide probe cache: one instance per process (shared through globalThis, so two copies of
 * this package still share it), sized by DELTALITE_PROBE_CACHE_BYTES (default 128 MiB, 0 = off; an invalid value
 * is a typed error where the cache is first sized, never at import), and the process-level functions of the
 * public API: setProbeCacheMaxBytes, clearProbeCache, probeCacheStats.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { ProbeCache, type ProbeCacheStats } from "./probe-cache.js";

/** Default cap of the process-wide probe cache: 128 MiB. */
export const DEFAULT_PROBE_CACHE_BYTES = 128 * 1024 * 1024;

const GLOBAL_KEY = Symbol.for("deltalite.probeCache");

/**
 * The cap from DELTALITE_PROBE_CACHE_BYTES: a non-negative integer number of bytes (0 turns the cache off).
 * Unset or empty → the default; anything else is a `DeltaLiteError` (kind `generic`) naming the variable and
 * the value, as every other DELTALITE_* variable is.
 */
export function probeCacheBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DELTALITE_PROBE_CACHE_BYTES;
  const text = raw?.trim();
  if (text === undefined || text === "") return DEFAULT_PROBE_CACHE_BYTES;
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (Number.isSafeInteger(value)) return value;
  }
  throw new DeltaLiteError(
    "generic",
    `DELTALITE_PROBE_CACHE_BYTES must be a non-negative integer (got ${JSON.stringify(raw)})`,
  );
}

/** The process-wide probe cache (created on first use from the environment; throws while that is invalid). */
export function globalProbeCache(): ProbeCache {
  const holder = globalThis as { [GLOBAL_KEY]?: ProbeCache };
  let cache = holder[GLOBAL_KEY];
  if (cache === undefined) {
    cache = new ProbeCache(probeCacheBytesFromEnv());
    holder[GLOBAL_KEY] = cache;
  }
  return cache;
}

/** Changes the process-wide cap at run time (0 turns the cache off and empties it). */
export function setProbeCacheMaxBytes(maxBytes: number): void {
  globalProbeCache().setMaxBytes(maxBytes);
}

/** Empties the process-wide cache and resets its counters. */
export function clearProbeCache(): void {
  globalProbeCache().clear();
}

/** Size (bytes), entries, hits, misses and cap of the process-wide cache. */
export function probeCacheStats(): ProbeCacheStats {
  return globalProbeCache().stats();
}
