/**
 * @deltalite/probe-cache: the process-wide, byte-capped LRU of per-file primary-key hash sets that lets a
 * probe decide an unchanged file without reading it.
 */
export {
  clearProbeCache,
  DEFAULT_PROBE_CACHE_BYTES,
  globalProbeCache,
  probeCacheBytesFromEnv,
  probeCacheStats,
  setProbeCacheMaxBytes,
} from "./global-cache.js";
export { KeyHashSet } from "./key-hash-set.js";
export { ENTRY_OVERHEAD_BYTES, HashCollection, ProbeCache, type ProbeCacheStats } from "./probe-cache.js";
export { ProbeKeys } from "./probe-keys.js";
