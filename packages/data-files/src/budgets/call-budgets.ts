/**
 * The budgets one upsert call runs under: its own per-call limits (maxParallelPartitions, maxParallelFiles,
 * maxBufferedBytes, maxFetchBytes) layered over the process-wide budgets every call of the process shares.
 * Every acquisition takes the call's budget first, then the process's, and levels are always taken in one
 * order — partition, file, fetch, buffer — so no two holders can each wait for the other. Each wait is
 * bounded by the permit-wait timeout and the call's signal; a failed wait gives back what it took.
 * `readAdmission()` turns the fetch and buffer levels into parquet-stream's ReadAdmission hook.
 */
import { DeltaLiteError, DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import type { ReadAdmission, Release } from "@deltalite/parquet-stream";
import { Budget, type Permit } from "./budget.js";
import { globalBudgets, type ProcessBudgets } from "./process-budgets.js";

const MIB = 1024 * 1024;

/** Per-call defaults (the original deltalite's). */
export const CALL_LIMIT_DEFAULTS = {
  maxParallelPartitions: 2,
  maxParallelFiles: 4,
  maxBufferedBytes: 64 * MIB,
  maxFetchBytes: 128 * MIB,
} as const;

/** How long one acquisition may wait for permits before a typed `timeout` (10 min). */
export const DEFAULT_PERMIT_WAIT_TIMEOUT_MS = 10 * 60 * 1000;

export interface CallLimits {
  maxParallelPartitions?: number | undefined;
  maxParallelFiles?: number | undefined;
  /** Decoded Arrow bytes in flight (batches handed out by readers and not yet consumed). */
  maxBufferedBytes?: number | undefined;
  /** Compressed bytes fetched and not yet decoded. */
  maxFetchBytes?: number | undefined;
}

/** Sees every byte the call admits and gives back (a diagnostic hook; the tests' live-byte counter). */
export interface BudgetObserver {
  fetchAdmitted?(bytes: number): void;
  fetchReleased?(bytes: number): void;
  decodeAdmitted?(bytes: number): void;
  decodeReleased?(bytes: number): void;
  /**
   * A file's bytes one read handed to the next without a GET were admitted again (the upsert's probe hands
   * a small hit file to its rewrite): admitted fetch bytes = bytes the store returned + these.
   */
  fetchHandedOver?(bytes: number): void;
  /** A decoded batch of target rows (its real Arrow bytes) is now held by the upsert … */
  batchHeld?(bytes: number): void;
  /** … and is no longer (the next batch was asked for, or the read stopped). */
  batchDropped?(bytes: number): void;
}

export interface CallBudgetOptions {
  /** The shared budgets (default: the process-wide set from the environment). */
  process?: ProcessBudgets | undefined;
  permitWaitTimeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  observer?: BudgetObserver | undefined;
  /** Named in timeout messages. */
  label?: string | undefined;
}

function limit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new DeltaLiteInvalidArgumentError(`${name} must be a positive integer (got ${value})`);
  }
  return value;
}

const kib = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

export class CallBudgets {
  readonly partitions: Budget;
  readonly files: Budget;
  readonly buffer: Budget;
  readonly fetch: Budget;
  readonly process: ProcessBudgets;
  readonly #timeoutMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #observer: BudgetObserver | undefined;
  readonly #label: string;

  constructor(limits: CallLimits = {}, options: CallBudgetOptions = {}) {
    const d = CALL_LIMIT_DEFAULTS;
    this.partitions = new Budget(
      "partitions",
      limit("maxParallelPartitions", limits.maxParallelPartitions, d.maxParallelPartitions),
    );
    this.files = new Budget("files", limit("maxParallelFiles", limits.maxParallelFiles, d.maxParallelFiles));
    this.buffer = new Budget(
      "bufferKb",
      kib(limit("maxBufferedBytes", limits.maxBufferedBytes, d.maxBufferedBytes)),
    );
    this.fetch = new Budget("fetchKb", kib(limit("maxFetchBytes", limits.maxFetchBytes, d.maxFetchBytes)));
    this.process = options.process ?? globalBudgets();
    this.#timeoutMs = limit(
      "permitWaitTimeoutMs",
      options.permitWaitTimeoutMs,
      DEFAULT_PERMIT_WAIT_TIMEOUT_MS,
    );
    this.#signal = options.signal;
    this.#observer = options.observer;
    this.#label = options.label ?? "upsert";
  }

  /** One partition worker. */
  acquirePartition(): Promise<Permit> {
    return this.#both(this.partitions, this.process.partitions, 1);
  }

  /** One open data file (a probe or a rewrite reader). */
  acquireFile(): Promise<Permit> {
    return this.#both(this.files, this.process.files, 1);
  }

  /** The fetch and decode levels as a reader's admission hook (amounts in bytes, permits in KiB). */
  readAdmission(): ReadAdmission {
    const observer = this.#observer;
    return {
      admitFetch: async (bytes, signal) => {
        const permit = await this.#both(this.fetch, this.process.fetch, kib(bytes), signal);
        observer?.fetchAdmitted?.(bytes);
        return releaseOnce(permit, () => observer?.fetchReleased?.(bytes));
      },
      admitDecode: async (bytes, signal) => {
        const permit = await this.#both(this.buffer, this.process.buffer, kib(bytes), signal);
        observer?.decodeAdmitted?.(bytes);
        return releaseOnce(permit, () => observer?.decodeReleased?.(bytes));
      },
    };
  }

  /**
   * The call's budget, then the process's; a failure at the second gives back the first. When both are free
   * now (no waiter, enough available: a probe's file permits, usually) they are taken without an await: the
   * awaiting path, once per file, was among the functions V8 compiled inside a cold 1M upsert (11–15 ms of a
   * compiler thread, merge-engine BENCHMARKS.md, session 32).
   */
  #both(local: Budget, shared: Budget, amount: number, signal?: AbortSignal): Promise<Permit> {
    const mine = local.tryAcquire(amount);
    if (mine !== undefined) {
      const theirs = shared.tryAcquire(amount);
      if (theirs !== undefined) return Promise.resolve(bothPermit(mine, theirs));
      mine.release();
    }
    return this.#bothWaiting(local, shared, amount, signal);
  }

  async #bothWaiting(local: Budget, shared: Budget, amount: number, signal?: AbortSignal): Promise<Permit> {
    const options = { signal: signal ?? this.#signal, timeoutMs: this.#timeoutMs };
    const mine = await this.#labelled(local.acquire(amount, options));
    let theirs: Permit;
    try {
      theirs = await this.#labelled(shared.acquire(amount, options));
    } catch (error) {
      mine.release();
      throw error;
    }
    return bothPermit(mine, theirs);
  }

  async #labelled(wait: Promise<Permit>): Promise<Permit> {
    try {
      return await wait;
    } catch (error) {
      if (error instanceof DeltaLiteError && error.kind === "timeout") {
        throw new DeltaLiteError("timeout", `${this.#label}: ${error.message} (permit-wait timeout)`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

function releaseOnce(permit: Permit, after: () => void): Release {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    permit.release();
    after();
  };
}

/** One permit over the call's (`mine`) and the process's (`theirs`): released together. */
function bothPermit(mine: Permit, theirs: Permit): Permit {
  return {
    amount: mine.amount,
    release: () => {
      theirs.release();
      mine.release();
    },
  };
}
