/**
 * Hands a batch of events to iterators and listeners so that no listener can stop the watcher or
 * cost another record its event. Every event reaches every queue and every listener, even after a
 * listener threw; the watcher's own state is already updated when delivery starts. A listener's
 * exception then surfaces as Node's emitters surface it (thrown, so `uncaughtException` sees it) or,
 * when an `error` listener exists, as an `error` event.
 */
import type { EventEmitter } from 'node:events';
import type { WatchEvent } from './diff.js';
import type { EventQueue } from './queue.js';

/** Calls each listener of `name` (once-listeners are removed as emit() would); returns what they threw. */
function callEach(emitter: EventEmitter, name: string, arg: unknown, thrown: unknown[]): void {
  for (const listener of emitter.rawListeners(name) as Array<(arg: unknown) => void>) {
    try {
      listener.call(emitter, arg);
    } catch (err) {
      thrown.push(err);
    }
  }
}

/**
 * Delivers `events` in order; stops early only when `isClosed()` turns true (a listener closed the
 * watcher). Returns the listeners' exceptions, for `surface`.
 */
export function deliver(
  emitter: EventEmitter,
  events: readonly WatchEvent[],
  queues: Iterable<EventQueue>,
  isClosed: () => boolean,
): unknown[] {
  const thrown: unknown[] = [];
  for (const event of events) {
    if (isClosed()) break;
    for (const q of queues) q.push(event);
    callEach(emitter, event.type, event, thrown);
    callEach(emitter, 'change', event, thrown);
  }
  return thrown;
}

/**
 * Reports errors: as `error` events when someone listens, else thrown, as an EventEmitter with no
 * `error` listener would. A throw is deferred to a fresh tick (one per error), so the batch and the
 * watcher's bookkeeping after it (timers, the snapshot file) are complete before `uncaughtException`
 * sees it. `quiet` errors (the watcher's own, e.g. a failed snapshot write) are dropped when nobody
 * listens: they are documented never to crash the process.
 */
export function surface(emitter: EventEmitter, errors: readonly unknown[], quiet = false): void {
  if (errors.length === 0) return;
  let toThrow: unknown[] = [];
  if (emitter.listenerCount('error') > 0) for (const err of errors) callEach(emitter, 'error', err, toThrow);
  else if (!quiet) toThrow = [...errors];
  for (const err of toThrow) {
    process.nextTick(() => {
      throw err;
    });
  }
}
