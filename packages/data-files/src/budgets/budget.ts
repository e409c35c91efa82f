/**
 * A counting budget with fair (FIFO) waits: the unit the process-wide and per-call limits of issue 6 are made
 * of. A request larger than the whole budget is clamped to it (it runs alone); the head waiter takes what is
 * free and waits for the rest, so later, smaller requests cannot starve it; a wait ends in a typed `timeout` or
 * `aborted` error that gives back whatever the waiter had already taken. `snapshot()` does no I/O and takes no
 * lock.
 */
import { DeltaLiteError } from "@deltalite/errors";

export interface BudgetSnapshot {
  available: number;
  total: number;
  waiters: number;
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** Give up after this long (ms) with kind `timeout`; no limit when undefined. */
  timeoutMs?: number | undefined;
}

/** Permits held; `release()` returns them (idempotent). */
export interface Permit {
  readonly amount: number;
  release(): void;
}

interface Waiter {
  wanted: number;
  held: number;
  grant: () => void;
}

export class Budget {
  readonly name: string;
  readonly total: number;
  #available: number;
  readonly #queue: Waiter[] = [];

  constructor(name: string, total: number) {
    if (!Number.isSafeInteger(total) || total <= 0) {
      throw new DeltaLiteError("generic", `budget ${name} needs a positive integer size (got ${total})`);
    }
    this.name = name;
    this.total = total;
    this.#available = total;
  }

  snapshot(): BudgetSnapshot {
    return { available: this.#available, total: this.total, waiters: this.#queue.length };
  }

  /**
   * Takes `amount` permits now if nobody waits and they are free, else undefined (never waits, never
   * queues): for optional buffering such as a checkpoint prefetch, which falls back when the budget is busy.
   */
  tryAcquire(amount: number): Permit | undefined {
    if (!Number.isSafeInteger(amount) || amount < 0) return undefined;
    if (this.#queue.length > 0 || this.#available < amount) return undefined;
    this.#available -= amount;
    return this.#permit(amount);
  }

  /** Takes `amount` permits (clamped to the budget's size), waiting in FIFO order behind earlier requests. */
  acquire(amount: number, options: AcquireOptions = {}): Promise<Permit> {
    if (!Number.isSafeInteger(amount) || amount < 0) {
      return Promise.reject(
        new DeltaLiteError("generic", `budget ${this.name}: invalid request of ${amount}`),
      );
    }
    const wanted = Math.min(amount, this.total);
    if (this.#queue.length === 0 && this.#available >= wanted) {
      this.#available -= wanted;
      return Promise.resolve(this.#permit(wanted));
    }
    if (options.signal?.aborted) return Promise.reject(this.#aborted());
    return new Promise<Permit>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiter: Waiter = {
        wanted,
        held: 0,
        grant: () => {
          cleanup();
          resolve(this.#permit(wanted));
        },
      };
      const giveUp = (error: DeltaLiteError) => {
        const index = this.#queue.indexOf(waiter);
        if (index < 0) return;
        this.#queue.splice(index, 1);
        cleanup();
        this.#available += waiter.held;
        waiter.held = 0;
        this.#pump();
        reject(error);
      };
      const onAbort = () => giveUp(this.#aborted());
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(
          () =>
            giveUp(
              new DeltaLiteError(
                "timeout",
                `waited ${options.timeoutMs} ms for ${wanted} ${this.name} permits`,
                {
                  retryable: false,
                },
              ),
            ),
          options.timeoutMs,
        );
      }
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  #permit(amount: number): Permit {
    let released = false;
    return {
      amount,
      release: () => {
        if (released) return;
        released = true;
        this.#available += amount;
        this.#pump();
      },
    };
  }

  /** Hands free permits to the head of the queue; grants it once it holds all it wants. */
  #pump(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      const take = Math.min(this.#available, head.wanted - head.held);
      head.held += take;
      this.#available -= take;
      if (head.held < head.wanted) return;
      this.#queue.shift();
      head.grant();
    }
  }

  #aborted(): DeltaLiteError {
    return new DeltaLiteError("aborted", `wait for ${this.name} permits aborted`);
  }
}
