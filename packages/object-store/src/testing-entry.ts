/**
 * `@deltalite/object-store/testing`: what tests (and benchmarks) of a store's users need, kept out of the
 * main entry — the request-counting and fault-injecting wrappers and the contract suite every store runs.
 * The contract suite imports `vitest` (an optional peer dependency); the wrappers need nothing beyond this
 * package.
 */

export { CountingStore, type MethodCount, type RequestRecord } from "./counting.js";
export { type Fault, type FaultRule, FaultyStore } from "./faulty.js";
export { type ContractOptions, runObjectStoreContract } from "./testing.js";
