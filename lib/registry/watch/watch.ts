/**
 * Watching the registry (docs/watch.md). The Watcher is the public class: an EventEmitter and an
 * async iterable, whose engine (engine.ts: OS file events, kernel exit handles, periodic probes and
 * rescans) it starts in its constructor. The engine is in the library's extras, loaded by the first
 * Watcher (scripts/lazy-parts.mjs); the class itself is here, so that `instanceof`, `extends` and
 * `.constructor` are those of a plain class.
 */
import { EventEmitter } from 'node:events';
import type { Snapshot } from '../snapshot.js';
import type { ConfigDirs, SessionRecord } from '../types.js';
import type { WatchEvent } from './diff.js';
import { startWatch, type WatchEngine } from './engine.js';
import type { WatchOptions } from './options.js';

export type { WatchOptions } from './options.js';

export class Watcher extends EventEmitter implements AsyncIterable<WatchEvent> {
  readonly interval: number;
  private readonly engine: WatchEngine;

  constructor(configDirs: ConfigDirs, options?: WatchOptions) {
    super();
    this.engine = startWatch(this, configDirs, options, () => this.close());
    this.interval = this.engine.interval;
  }

  /** The current view: every record, live or not, sorted by PID. */
  records(): SessionRecord[] {
    return this.engine.records();
  }

  /** The snapshot (docs/watch.md) of the current view, without touching the files. */
  snapshot(): Snapshot {
    return this.engine.snapshot();
  }

  /** Re-probes now what every interval re-probes (records without a kernel exit handle): one batch probe, no file I/O. */
  poll(): void {
    this.engine.poll();
  }

  /** A full sweep of every folder now (what every 30th periodic rescan is): readdir, one lstat per candidate. */
  rescanNow(): void {
    this.engine.rescanNow();
  }

  /** How the exits of live local records are followed now, by PID: a kernel exit handle, or the interval probe. */
  exitWatch(): { kernel: number[]; interval: number[] } {
    return this.engine.exitWatch();
  }

  /** Releases everything: OS watches, exit handles, timers, iterators (they end after what they already hold). */
  close(): void {
    this.engine.close();
  }

  get isClosed(): boolean {
    // Unset only while a failing constructor closes what it took (and emits `close`): closed.
    return this.engine?.isClosed ?? true;
  }

  /** Each iterator sees the events emitted after it was created. Leaving the loop early closes the watcher. */
  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent> {
    return this.engine.iterator();
  }
}

/**
 * Watches the registry (docs/watch.md): an EventEmitter of `added`, `changed`, `died`,
 * `removed` (and `change` for all four, `error`, `close`) and an async iterable of the same events.
 * Call `close()` when done: the watcher holds OS watches, exit handles and timers until then. A
 * listener that throws does not stop the watcher: the error is emitted as `error` when someone listens,
 * else thrown as an EventEmitter would (uncaught). The watcher's own failures (a snapshot write, an
 * unexpected read error) are emitted as `error` when someone listens, else dropped.
 */
export function watch(configDirs?: ConfigDirs, options?: WatchOptions): Watcher {
  return new Watcher(configDirs, options);
}
