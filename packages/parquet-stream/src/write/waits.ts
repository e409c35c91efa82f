/**
 * Waiting on a session's state (encoder-pool.ts, native-stream.ts): a wait resumes whenever the session
 * notifies, and ends once its condition holds or the session has failed (it then throws the failure). Several
 * sides may wait at once (a producer for credit, a consumer for events, a driver for work).
 */
export class Waits {
  #waiters: (() => void)[] = [];

  /** Resolves once `ready()` holds; throws `failure()` whenever it is defined. */
  async until(ready: () => boolean, failure: () => unknown): Promise<void> {
    for (;;) {
      const failed = failure();
      if (failed !== undefined) throw failed;
      if (ready()) return;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
      });
    }
  }

  /** Wakes every wait, to check its condition again. */
  notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}
