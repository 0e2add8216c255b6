/**
 * The async-iteration side of a watcher: one queue per iterator, filled as events are emitted and
 * drained by `next()`. Bounded by coalescing (docs/watch.md): an event for a path whose previous
 * event is still queued is merged into it, so a consumer that falls behind (or never drains) sees
 * the latest state of each file, never an unbounded backlog: at most two queued events per path (a
 * `removed` followed by the `added` of a new record). Ending a queue delivers what is already queued,
 * then `done`.
 */
import { transition, type WatchEvent } from './diff.js';

interface Entry {
  /** undefined: merged away (an `added` then `removed` the consumer never saw). */
  event: WatchEvent | undefined;
}

/**
 * One event standing for `earlier` then `later` at the same path, as the consumer would see it had it
 * looked only now; undefined when the two cancel out. `'append'`: both must be delivered (a removal,
 * then a new record at the path).
 */
export function merge(earlier: WatchEvent, later: WatchEvent): WatchEvent | undefined | 'append' {
  if (earlier.type === 'removed') return 'append';
  if (later.type === 'removed') return earlier.type === 'added' ? undefined : { type: 'removed', record: later.record };
  if (later.type === 'added') return 'append'; // not reached: a path's sequence puts `removed` first
  // The consumer last saw nothing (added) or `earlier.previous`: the merged event starts from there.
  if (earlier.type === 'added') return { type: 'added', record: later.record };
  return transition(earlier.previous, later.record);
}

export class EventQueue implements AsyncIterableIterator<WatchEvent> {
  private readonly entries: Entry[] = [];
  private head = 0;
  /** Entries from `head` on that were merged away (event undefined): compacted once they are half. */
  private dead = 0;
  /** The last queued entry of each path. */
  private readonly byPath = new Map<string, Entry>();
  private readonly waiting: Array<(result: IteratorResult<WatchEvent>) => void> = [];
  private ended = false;

  /** `onReturn` runs when the consumer stops early (`break` out of `for await`). */
  constructor(private readonly onReturn: (queue: EventQueue) => void) {}

  /** Slots the queue holds now, merged-away ones included (tests: memory stays bounded by the live events). */
  get slots(): number {
    return this.entries.length - this.head;
  }

  /** Events waiting to be taken (merged ones counted once). */
  get size(): number {
    let n = 0;
    for (let i = this.head; i < this.entries.length; i++) if (this.entries[i]!.event) n++;
    return n;
  }

  push(event: WatchEvent): void {
    if (this.ended) return;
    const resolve = this.waiting.shift();
    if (resolve) return resolve({ value: event, done: false });
    const path = event.record.path;
    const last = this.byPath.get(path);
    if (last?.event) {
      const merged = merge(last.event, event);
      if (merged !== 'append') {
        last.event = merged;
        if (merged === undefined) {
          // An `added` then `removed` the consumer never saw: its slot is garbage now, and a consumer
          // that never drains would otherwise keep one per session ever seen.
          this.byPath.delete(path);
          if (++this.dead > 64 && this.dead * 2 > this.entries.length - this.head) this.compact();
        }
        return;
      }
    }
    const entry: Entry = { event };
    this.entries.push(entry);
    this.byPath.set(path, entry);
  }

  /** Drops the merged-away slots (byPath points at live entries only, so it stays valid). */
  private compact(): void {
    let kept = 0;
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.event) this.entries[kept++] = entry;
    }
    this.entries.length = kept;
    this.head = 0;
    this.dead = 0;
  }

  /** No more items: pending and later `next()` calls resolve `done` once the queue is drained. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const resolve of this.waiting.splice(0)) resolve({ value: undefined, done: true });
  }

  private take(): WatchEvent | undefined {
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head++]!;
      const event = entry.event;
      if (event === undefined) {
        this.dead--;
        continue;
      }
      entry.event = undefined;
      if (this.byPath.get(event.record.path) === entry) this.byPath.delete(event.record.path);
      if (this.head > 1024 && this.head * 2 > this.entries.length) {
        this.entries.splice(0, this.head);
        this.head = 0;
      }
      return event;
    }
    this.entries.length = 0;
    this.head = 0;
    this.dead = 0;
    return undefined;
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const event = this.take();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.entries.length = 0;
    this.head = 0;
    this.dead = 0;
    this.byPath.clear();
    this.end();
    this.onReturn(this);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent> {
    return this;
  }
}
