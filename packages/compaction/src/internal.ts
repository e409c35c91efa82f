/**
 * `@deltalite/compaction/internal`: what tests and benchmarks need and users do not — `compactWithHooks`,
 * the compaction with its diagnostics hooks (a budget observer that counts live bytes), kept off the public
 * `CompactOptions`. Not part of the stable API.
 */
export { compactWithHooks } from "./compact.js";
export type { CompactHooks } from "./types.js";
