/**
 * The warm-up of a write: the first-use costs a write would otherwise pay on its critical path — the Parquet
 * encoder worker's start (a thread and a WebAssembly compile), where the store's writes use one, and the store's one-time proof that it refuses
 * a create-only put of an existing object (S3 with a custom endpoint: one or two PUTs of a hidden object) —
 * started as the write begins, so they overlap its planning and reads. Nothing waits here and nothing is
 * skipped: the first stream uses the started worker, and every create-only put still waits for the proof (a
 * failed proof fails that put, as when it starts there).
 */
import type { ObjectStore, SignalOptions } from "@deltalite/object-store";
import { startEncoderFor } from "@deltalite/parquet-stream";

/** A store whose create-only puts wait for a one-time proof that can be started early (the S3 store). */
interface ProvesConditionalPut {
  proveConditionalPut(options?: SignalOptions): Promise<void>;
}

function provesConditionalPut(store: ObjectStore): store is ObjectStore & ProvesConditionalPut {
  return typeof (store as Partial<ProvesConditionalPut>).proveConditionalPut === "function";
}

/**
 * Starts the encoder worker (where `store`'s writes use one) and the store's conditional-put proof for a write about to run on `store`; call
 * it once the write is validated (it sends requests and starts a thread) and before its reads.
 */
export function warmUpForWrites(store: ObjectStore, signal?: AbortSignal): void {
  startEncoderFor(store);
  if (!provesConditionalPut(store)) return;
  // Not awaited: the write's first create-only put waits for this proof and reports its failure.
  store.proveConditionalPut(signal ? { signal } : {}).catch(() => undefined);
}
