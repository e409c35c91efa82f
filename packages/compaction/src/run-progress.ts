/**
 * A run's progress as `onProgress` (a CompactOptions / ZOrderOptions callback) sees it: bins planned and
 * rewritten, and the stored bytes of their input files planned and read, reported when planning is done, after
 * every input file is read and after every bin is rewritten. Re-planned bins add to the totals.
 */
import type { CompactionBin } from "./plan.js";
import type { CompactProgress } from "./types.js";

export class RunProgress {
  readonly #listener: ((progress: CompactProgress) => void) | undefined;
  readonly #state: CompactProgress = { bins: 0, binsDone: 0, bytes: 0, bytesDone: 0 };

  constructor(listener: ((progress: CompactProgress) => void) | undefined) {
    this.#listener = listener;
  }

  /** Bins about to be rewritten (the plan, or a re-plan's). */
  planned(bins: readonly CompactionBin[]): void {
    this.#state.bins += bins.length;
    this.#state.bytes += bins.reduce((n, b) => n + b.files.reduce((m, f) => m + f.size, 0), 0);
    this.#report();
  }

  /** One input file (of `size` stored bytes) fully read. */
  fileRead(size: number): void {
    this.#state.bytesDone += size;
    this.#report();
  }

  binDone(): void {
    this.#state.binsDone++;
    this.#report();
  }

  #report(): void {
    this.#listener?.({ ...this.#state });
  }
}
