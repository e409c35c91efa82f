/**
 * Owns the process-wide probe cache: one instance per process (shared through globalThis, so two copies of
 * this package still share it), sized by DELTALITE_PROBE_CACHE_BYTES (default 128 MiB, 0 = off), and the
 * process-level functions of the public API: setProbeCacheMaxBytes, clearProbeCache, probeCacheStats.
 */
import { ProbeCache, type ProbeCacheStats } from "./probe-cache.js";

/** Default cap of the process-wide probe cache: 128 MiB. */
export const DEFAULT_PROBE_CACHE_BYTES = 128 * 1024 * 1024;

const GLOBAL_KEY = Symbol.for("deltalite.probeCache");

/**
 * The cap from DELTALITE_PROBE_CACHE_BYTES: a non-negative integer number of bytes (0 turns the cache off).
 * Unset, empty or invalid → the default (an invalid value also emits a process warning).
 */
export function probeCacheBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DELTALITE_PROBE_CACHE_BYTES?.trim();
  if (raw === undefined || raw === "") return DEFAULT_PROBE_CACHE_BYTES;
  if (/^\d+$/.test(raw)) {
    const value = Number(raw);
    if (Number.isSafeInteger(value)) return value;
  }
  process.emitWarning(
    `DELTALITE_PROBE_CACHE_BYTES=${JSON.stringify(raw)} is not a non-negative integer; using ${DEFAULT_PROBE_CACHE_BYTES}`,
    { code: "DELTALITE_INVALID_ENV" },
  );
  return DEFAULT_PROBE_CACHE_BYTES;
}

/** The process-wide probe cache (created on first use from the environment). */
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
