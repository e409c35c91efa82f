/**
 * `@deltalite/merge-engine/internal`: what tests and benchmarks need and users do not — `upsertWithHooks`,
 * the upsert with its test hooks (a key hasher that forces hash collisions, a budget observer that counts
 * live bytes), kept off the public `UpsertOptions`. Not part of the stable API.
 */
export type { UpsertHooks } from "./upsert/hooks.js";
export { upsertWithHooks } from "./upsert/upsert.js";
