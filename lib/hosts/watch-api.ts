/**
 * `watch(configDirs, { hosts })`: the library's watch over several hosts (docs/hosts.md, "Library").
 * Remote hosts are watchHosts (an interval read over the shared connection, a lost connection a
 * `host` event, no `removed` on a guess); `local` is the ordinary watch. Every record event carries
 * `host` and a record with `host` and `measuredAt`; the names are the local watcher's (`added`,
 * `changed`, `died`, `removed`, and `change` for all four), plus `host` for a host's state.
 * Without `hosts`, `watch` is exactly the registry's own.
 */
import { EventEmitter } from 'node:events';
import type { ConfigDirs } from '../registry/types.js';
import { watch as watchHere, type Watcher, type WatchOptions } from '../registry/watch/watch.js';
import type { HostRecord } from './read.js';
import { startHostsWatch, type HostsWatchEngine } from './watch-api-engine.js';
import type { HostsWatchOptions } from './watch-types.js';

export type { HostsWatchOptions } from './watch-types.js';

/**
 * Emits `added`, `changed`, `died`, `removed` and `change` (each a HostWatchEvent), `host`
 * (HostStateEvent: a host's first answer, a lost connection, its return; `local` says `ok` once at
 * the start), `error` and `close`. EventEmitter only: for `for await`, watch one host's registry.
 * Its engine (watch-api-engine.ts) is in the library's extras, loaded by the first HostsWatcher.
 */
export class HostsWatcher extends EventEmitter {
  private readonly engine: HostsWatchEngine;

  constructor(configDirs: ConfigDirs, options: HostsWatchOptions) {
    super();
    this.engine = startHostsWatch(this, configDirs, options);
  }

  /** The current view: every host's last known records (a host that stopped answering keeps its last). */
  records(): HostRecord[] {
    return this.engine.records();
  }

  close(): void {
    this.engine.close();
  }

  get isClosed(): boolean {
    return this.engine?.isClosed ?? true;
  }
}

/** Watches the registry (docs/watch.md); with `options.hosts`, every host named (docs/hosts.md). */
export function watch(configDirs: ConfigDirs, options: HostsWatchOptions): HostsWatcher;
export function watch(options: HostsWatchOptions): HostsWatcher;
export function watch(configDirs?: ConfigDirs, options?: WatchOptions): Watcher;
export function watch(first?: ConfigDirs | HostsWatchOptions | WatchOptions, second?: WatchOptions | HostsWatchOptions): Watcher | HostsWatcher {
  const alone = typeof first === 'object' && first !== null && !Array.isArray(first) && second === undefined;
  const configDirs = (alone ? undefined : first) as ConfigDirs;
  const options = (alone ? first : second) as (WatchOptions & { hosts?: unknown }) | undefined;
  if (typeof options === 'object' && options !== null && options.hosts !== undefined) {
    return new HostsWatcher(configDirs, options as HostsWatchOptions);
  }
  return watchHere(configDirs, options);
}
