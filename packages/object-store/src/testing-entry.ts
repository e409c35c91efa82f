/**
 * `@deltalite/object-store/testing`: what tests (and benchmarks) of a store's users need, kept out of the
 * main entry — the request-counting, fault-injecting and degraded-store (no ETags, stale 404s) wrappers and the contract suite every store runs.
 * The contract suite imports `vitest` (an optional peer dependency); the wrappers need nothing beyond this
 * package.
 */

export { CountingStore, type FailedRequest, type MethodCount, type RequestRecord } from "./counting.js";
export { EtaglessStore, StaleNotFoundStore } from "./degraded.js";
export { type Fault, type FaultRule, FaultyStore } from "./faulty.js";
export { type ContractOptions, runObjectStoreContract } from "./testing.js";
