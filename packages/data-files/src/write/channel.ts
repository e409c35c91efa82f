/** A bounded async queue: one producer pushes batches, one consumer iterates; push waits while it is full. */
export class BatchChannel<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  readonly #capacity: number;
  #closed = false;
  #failure: unknown;
  #wakeConsumer: (() => void) | undefined;
  #wakeProducer: (() => void) | undefined;

  constructor(capacity = 2) {
    this.#capacity = capacity;
  }

  async push(item: T): Promise<void> {
    while (this.#items.length >= this.#capacity && !this.#closed) {
      await new Promise<void>((resolve) => {
        this.#wakeProducer = resolve;
      });
    }
    if (this.#closed) return;
    this.#items.push(item);
    this.#wakeConsumer?.();
  }

  /** No more items; the consumer ends after draining. With a failure, the consumer throws it instead. */
  close(failure?: unknown): void {
    this.#closed = true;
    if (failure !== undefined) this.#failure = failure;
    this.#wakeConsumer?.();
    this.#wakeProducer?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure;
      const item = this.#items.shift();
      if (item !== undefined) {
        this.#wakeProducer?.();
        yield item;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wakeConsumer = resolve;
      });
    }
  }
}
