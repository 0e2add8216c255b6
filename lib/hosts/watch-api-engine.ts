/**
 * The engine of a HostsWatcher (lib/hosts/watch-api.ts): the local watch and the remote hosts' watch
 * merged into one stream of events and one view. In the library's extras (scripts/lazy-parts.mjs),
 * loaded by the first HostsWatcher.
 */
import type { EventEmitter } from 'node:events';
import type { ConfigDirs } from '../registry/types.js';
import type { WatchEvent } from '../registry/watch/diff.js';
import { watch as watchHere, type Watcher } from '../registry/watch/watch.js';
import { LOCAL_HOST, type HostRecord } from './read.js';
import { checkHostName } from './transport.js';
import { DEFAULT_HOST_INTERVAL_MS, watchHosts, type HostWatcher } from './watch.js';
import type { HostStateEvent, HostsWatchOptions, HostWatchEvent } from './watch-types.js';

export interface HostsWatchEngine {
  records(): HostRecord[];
  close(): void;
  readonly isClosed: boolean;
}

function key(e: HostWatchEvent): string {
  return `${e.host}\0${e.record.path}`;
}

/** Checks the options and starts the local and remote watches (before any ssh, the local one's errors throw). */
export function startHostsWatch(emitter: EventEmitter, configDirs: ConfigDirs, options: HostsWatchOptions): HostsWatchEngine {
  const { hosts, timeoutMs, remoteConfigDirs, ...localOptions } = options;
  if (!Array.isArray(hosts) || hosts.length === 0) {
    throw new TypeError('watch: options.hosts must be a non-empty array of host names (ssh destinations, or "local" for this machine)');
  }
  const names = [...new Set(hosts.map((h: unknown) => (h === LOCAL_HOST ? h : checkHostName(h))))];
  const remotes = names.filter((h) => h !== LOCAL_HOST);
  const initial = options.initial !== false;
  const view = new Map<string, HostRecord>();
  const answered = new Set<string>();
  let closed = false;
  let local: Watcher | undefined;
  let remote: HostWatcher | undefined;

  /** As the local watcher: `error` when someone listens, else dropped. */
  const fail = (error: unknown): void => {
    if (!closed && emitter.listenerCount('error') > 0) emitter.emit('error', error);
  };
  const deliver = (event: HostWatchEvent): void => {
    if (closed) return;
    if (event.type === 'removed') view.delete(key(event));
    else view.set(key(event), event.record);
    // A listener that throws must not cost the other event name its delivery, nor stop the watch.
    for (const name of [event.type, 'change']) {
      try {
        emitter.emit(name, event);
      } catch (error) {
        fail(error);
      }
    }
  };

  if (names.includes(LOCAL_HOST)) {
    // Throws as watch() does (an unlistable folder, a bad option): before any ssh is started.
    local = watchHere(configDirs, localOptions);
    local.on('change', (e: WatchEvent) => {
      const measuredAt = Date.now();
      deliver({ ...e, record: Object.freeze({ ...e.record, host: LOCAL_HOST, measuredAt }), host: LOCAL_HOST } as HostWatchEvent);
    });
    local.on('error', (error: unknown) => fail(error));
    // Before the local watcher's first `added` events (a setImmediate), as a remote's state precedes its records.
    process.nextTick(() => closed || emitter.emit('host', { host: LOCAL_HOST, state: 'ok', detail: undefined, time: Date.now() } satisfies HostStateEvent));
  }
  if (remotes.length > 0) {
    remote = watchHosts(remotes, {
      env: options.env,
      retryDelayMs: options.retryDelayMs,
      intervalMs: options.interval ?? DEFAULT_HOST_INTERVAL_MS,
      timeoutMs,
      remoteConfigDirs,
    });
    remote.on('host', (e: HostStateEvent) => {
      if (closed) return;
      emitter.emit('host', e);
      // The records of a host's first answer follow in the same turn: with `initial: false` they
      // are the view, not news.
      if (!initial && !answered.has(e.host)) process.nextTick(() => answered.add(e.host));
    });
    remote.on('change', (e: HostWatchEvent) => {
      if (!initial && e.type === 'added' && !answered.has(e.host)) return void view.set(key(e), e.record);
      deliver(e);
    });
    remote.on('error', (error: unknown) => fail(error));
  }

  return {
    records: () => [...view.values()],
    close() {
      if (closed) return;
      closed = true;
      remote?.close();
      local?.close();
      view.clear();
      emitter.emit('close');
    },
    get isClosed() {
      return closed;
    },
  };
}
