/**
 * The checkpoint prefetch (the seed's "Checkpoint prefetch"): a table load reads each checkpoint Parquet file
 * whole, in one GET, and the Parquet reader's many range reads are served from those bytes. The load caches at
 * most `DELTALITE_CHECKPOINT_PREFETCH_MAX_BYTES` (0 disables), and the bytes are reserved, without waiting,
 * from the process buffered budget the application installs with `useCheckpointPrefetchBudget` (delta-log
 * cannot own that budget: it lives in @deltalite/data-files). A file over the cap (`too_large`) or that the
 * budget cannot take now (`budget_exhausted`) is read with range reads as before; so is every file when no
 * budget is installed or the cap is 0. Reservations are released when the checkpoint has been read. Each
 * decision goes to the `onCheckpointPrefetch` listeners (the `deltalite_checkpoint_prefetch_total` metric).
 */
import type { GetOptions, ObjectMeta, ObjectStore } from "@deltalite/object-store";
import { checkpointPrefetchMaxBytes } from "./request-switches.js";

export type CheckpointPrefetchOutcome = "fetched" | "too_large" | "budget_exhausted";

/**
 * The process buffered budget as delta-log sees it, counted in KiB: the shape of data-files' `Budget`. A
 * reservation is taken only when nobody waits and enough permits are free, so `acquire` grants it at once.
 */
export interface CheckpointPrefetchBudget {
  /** KiB permits taken now, or undefined when the budget cannot give them without waiting. */
  tryAcquire(kib: number): { release(): void } | undefined;
}

let installedBudget: (() => CheckpointPrefetchBudget) | undefined;
const listeners = new Set<(outcome: CheckpointPrefetchOutcome) => void>();

/**
 * Installs the process buffered budget checkpoint bytes are reserved from (a getter, read on each load);
 * `undefined` uninstalls it, which turns the prefetch off. Returns the previous getter.
 */
export function useCheckpointPrefetchBudget(
  budget: (() => CheckpointPrefetchBudget) | undefined,
): (() => CheckpointPrefetchBudget) | undefined {
  const previous = installedBudget;
  installedBudget = budget;
  return previous;
}

/** Calls `listener` with the outcome of every prefetch decision; returns the unsubscribe function. */
export function onCheckpointPrefetch(listener: (outcome: CheckpointPrefetchOutcome) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function report(outcome: CheckpointPrefetchOutcome): void {
  for (const listener of listeners) {
    try {
      listener(outcome);
    } catch {
      // A listener (a metrics recorder) never fails a table load.
    }
  }
}

/** The prefetch of one checkpoint read: its cap, its reservations, and the files it holds in memory. */
export class CheckpointPrefetch {
  readonly #store: ObjectStore;
  readonly #budget: CheckpointPrefetchBudget | undefined;
  #capLeft: number;
  readonly #releases: (() => void)[] = [];

  constructor(store: ObjectStore) {
    this.#store = store;
    this.#capLeft = checkpointPrefetchMaxBytes();
    this.#budget = this.#capLeft > 0 ? installedBudget?.() : undefined;
  }

  /**
   * Decides for each Parquet file of `files` (in order) and starts the whole-file GETs of those fetched, all
   * at once; returns the store each file is to be read through (a memory view, or the store itself).
   */
  storesFor(files: readonly ObjectMeta[], signal: AbortSignal | undefined): ObjectStore[] {
    return files.map((file) => {
      if (this.#budget === undefined || !file.key.endsWith(".parquet")) return this.#store;
      if (file.size > this.#capLeft) {
        report("too_large");
        return this.#store;
      }
      const release = reserveWithoutWaiting(this.#budget, file.size);
      if (release === undefined) {
        report("budget_exhausted");
        return this.#store;
      }
      this.#capLeft -= file.size;
      this.#releases.push(release);
      report("fetched");
      const bytes = this.#store.get(file.key, { signal });
      bytes.catch(() => undefined); // surfaced by the read that awaits it
      return new PrefetchedObjectStore(this.#store, file, bytes);
    });
  }

  /** Gives back every reservation (idempotent); the fetched bytes go with the stores that hold them. */
  release(): void {
    for (const release of this.#releases.splice(0)) release();
  }
}

/** Reserves `bytes` (as KiB) if the budget can take them now; undefined when it cannot (never waits). */
export function reserveWithoutWaiting(
  budget: CheckpointPrefetchBudget,
  bytes: number,
): (() => void) | undefined {
  const permit = budget.tryAcquire(Math.max(1, Math.ceil(bytes / 1024)));
  return permit === undefined ? undefined : () => permit.release();
}

/**
 * `inner` with one object served from memory: GETs of `file.key` (ranges included) are answered from the
 * bytes of its whole-file GET, other calls pass through. Bytes of another length than the listing said are
 * not trusted: reads then go to `inner` (range reads, as without the prefetch).
 */
class PrefetchedObjectStore implements ObjectStore {
  readonly root: string;
  readonly #inner: ObjectStore;
  readonly #file: ObjectMeta;
  readonly #bytes: Promise<Uint8Array>;

  constructor(inner: ObjectStore, file: ObjectMeta, bytes: Promise<Uint8Array>) {
    this.root = inner.root;
    this.#inner = inner;
    this.#file = file;
    this.#bytes = bytes;
  }

  get capabilities() {
    return this.#inner.capabilities;
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    if (key !== this.#file.key) return this.#inner.get(key, options);
    const bytes = await this.#bytes;
    if (bytes.length !== this.#file.size) return this.#inner.get(key, options);
    const range = options?.range;
    return range ? bytes.subarray(range.start, Math.min(range.end, bytes.length)) : bytes;
  }
  head: ObjectStore["head"] = (key, options) => this.#inner.head(key, options);
  put: ObjectStore["put"] = (key, data, options) => this.#inner.put(key, data, options);
  putMultipart: ObjectStore["putMultipart"] = (key, chunks, options) =>
    this.#inner.putMultipart(key, chunks, options);
  list: ObjectStore["list"] = (prefix, options) => this.#inner.list(prefix, options);
  delete: ObjectStore["delete"] = (key, options) => this.#inner.delete(key, options);
}
