/**
 * The async-iteration side of a watcher: one queue per iterator, filled as events are emitted and
 * drained by `next()`. Ending a queue delivers what is already queued, then `done`.
 */

export class EventQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private readonly waiting: Array<(result: IteratorResult<T>) => void> = [];
  private ended = false;

  /** `onReturn` runs when the consumer stops early (`break` out of `for await`). */
  constructor(private readonly onReturn: (queue: EventQueue<T>) => void) {}

  push(item: T): void {
    if (this.ended) return;
    const resolve = this.waiting.shift();
    if (resolve) resolve({ value: item, done: false });
    else this.items.push(item);
  }

  /** No more items: pending and later `next()` calls resolve `done` once the queue is drained. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const resolve of this.waiting.splice(0)) resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.end();
    this.onReturn(this);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
