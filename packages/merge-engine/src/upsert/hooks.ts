/**
 * The upsert's test hooks, kept off the public `UpsertOptions`: the key hasher (tests force hash collisions
 * with it), the budget observer (tests count live bytes with it), the switch of the probe's native value
 * hashes and the bound on whole files held to pass through (tests make it bind on small files).
 * `upsertWithHooks` (upsert.ts) takes them as a separate argument; inside the pipeline they travel merged
 * into `InternalUpsertOptions`, so a caller of the public `upsert` can never set them, even from untyped code.
 */
import type { BudgetObserver } from "@deltalite/data-files";
import type { KeyHasher } from "../keys/key-hasher.js";
import type { UpsertOptions } from "./types.js";

export interface UpsertHooks {
  /** The key hash (default XXH64). Tests pass a colliding one; equal keys must always hash equal. */
  keyHasher?: KeyHasher | undefined;
  /** Told every admitted / released byte and every decoded batch held (tests count live bytes). */
  budgetObserver?: BudgetObserver | undefined;
  /**
   * False: the probe always reads and encodes the key column in JavaScript (tests that bound its decoded
   * batches). Default: the native engine's value hashes first where they apply (probe.ts).
   */
  valueHashProbe?: boolean | undefined;
  /** The bound on whole files held to pass through (default PASSTHROUGH_HELD_BYTES, rewrite-passthrough.ts). */
  passthroughHeldBytes?: number | undefined;
}

/** The options as the pipeline's steps read them: the caller's options and the hooks of this call. */
export type InternalUpsertOptions = UpsertOptions & UpsertHooks;

/** `options` with exactly `hooks` as its hooks (whatever hook-named keys the caller's object carried). */
export function withHooks(options: UpsertOptions, hooks: UpsertHooks): InternalUpsertOptions {
  return {
    ...options,
    keyHasher: hooks.keyHasher,
    budgetObserver: hooks.budgetObserver,
    valueHashProbe: hooks.valueHashProbe,
    passthroughHeldBytes: hooks.passthroughHeldBytes,
  };
}
