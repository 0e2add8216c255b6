/**
 * Watching other hosts: one read per host every interval, over the shared ssh connection (one round
 * trip, no handshake), each answer diffed against the last one by the watcher's own event rules
 * (lib/registry/watch/diff.ts). A host that stops answering is an event (`host`, with its state)
 * and never a run of `removed`: its last records stay as they were until it answers again. Reads
 * of a failing host back off (interval × 2, 4, … up to a minute) and resume at the interval once
 * it answers.
 *
 * The class is here and its engine (watch-engine.ts) in the library's extras, as for the registry's
 * Watcher: `instanceof` and `extends` are those of a plain class, and a process that only reads
 * compiles neither the engine nor the ssh transport.
 */
import { EventEmitter } from 'node:events';
import { startHostWatch, type HostWatchEngine } from './watch-engine.js';
import type { HostWatchOptions } from './watch-types.js';

export { DEFAULT_HOST_INTERVAL_MS, MAX_BACKOFF_MS } from './watch-engine.js';
export type { HostStateEvent, HostWatchEvent, HostWatchOptions } from './watch-types.js';

/**
 * Emits `change` (HostWatchEvent), `host` (HostStateEvent) and `error`. Remote hosts only: `local` is
 * the ordinary watch (lib/registry/watch), whose events need no polling.
 */
export class HostWatcher extends EventEmitter {
  private readonly engine: HostWatchEngine;

  constructor(hosts: readonly string[], readonly options: HostWatchOptions = {}) {
    super();
    this.engine = startHostWatch(this, hosts, options);
  }

  close(): void {
    this.engine.close();
  }
}

/** Watches remote hosts (see HostWatcher). */
export function watchHosts(hosts: readonly string[], options?: HostWatchOptions): HostWatcher {
  return new HostWatcher(hosts, options);
}
