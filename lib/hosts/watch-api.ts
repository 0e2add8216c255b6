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
import type { WatchEvent } from '../registry/watch/diff.js';
import { watch as watchHere, type Watcher, type WatchOptions } from '../registry/watch/watch.js';
import { LOCAL_HOST, type HostRecord } from './read.js';
import { checkHostName } from './transport.js';
import { DEFAULT_HOST_INTERVAL_MS, watchHosts, type HostStateEvent, type HostWatcher, type HostWatchEvent } from './watch.js';

export interface HostsWatchOptions extends WatchOptions {
  /** ssh destinations; `'local'` is this machine (the ordinary watch). At least one. */
  hosts: readonly string[];
  /** Per remote read, the whole round trip (default 15 s). */
  timeoutMs?: number;
  /** Config dirs the remotes read (default: each remote's CLAUDE_CONFIG_DIR, else its ~/.claude). */
  remoteConfigDirs?: readonly string[];
}

/**
 * Emits `added`, `changed`, `died`, `removed` and `change` (each a HostWatchEvent), `host`
 * (HostStateEvent: a host's first answer, a lost connection, its return; `local` says `ok` once at
 * the start), `error` and `close`. EventEmitter only: for `for await`, watch one host's registry.
 */
export class HostsWatcher extends EventEmitter {
  private readonly remote: HostWatcher | undefined;
  private readonly local: Watcher | undefined;
  private readonly view = new Map<string, HostRecord>();
  private readonly answered = new Set<string>();
  private closed = false;

  constructor(configDirs: ConfigDirs, options: HostsWatchOptions) {
    super();
    const { hosts, timeoutMs, remoteConfigDirs, ...local } = options;
    if (!Array.isArray(hosts) || hosts.length === 0) {
      throw new TypeError('watch: options.hosts must be a non-empty array of host names (ssh destinations, or "local" for this machine)');
    }
    const names = [...new Set(hosts.map((h: unknown) => (h === LOCAL_HOST ? h : checkHostName(h))))];
    const remotes = names.filter((h) => h !== LOCAL_HOST);
    const initial = options.initial !== false;
    if (names.includes(LOCAL_HOST)) {
      // Throws as watch() does (an unlistable folder, a bad option): before any ssh is started.
      this.local = watchHere(configDirs, local);
      this.local.on('change', (e: WatchEvent) => {
        const measuredAt = Date.now();
        this.deliver({ ...e, record: Object.freeze({ ...e.record, host: LOCAL_HOST, measuredAt }), host: LOCAL_HOST } as HostWatchEvent);
      });
      this.local.on('error', (error: unknown) => this.fail(error));
      // Before the local watcher's first `added` events (a setImmediate), as a remote's state precedes its records.
      process.nextTick(() => this.closed || this.emit('host', { host: LOCAL_HOST, state: 'ok', detail: undefined, time: Date.now() } satisfies HostStateEvent));
    }
    if (remotes.length > 0) {
      const remote = watchHosts(remotes, {
        env: options.env,
        retryDelayMs: options.retryDelayMs,
        intervalMs: options.interval ?? DEFAULT_HOST_INTERVAL_MS,
        timeoutMs,
        remoteConfigDirs,
      });
      this.remote = remote;
      remote.on('host', (e: HostStateEvent) => {
        if (this.closed) return;
        this.emit('host', e);
        // The records of a host's first answer follow in the same turn: with `initial: false` they
        // are the view, not news.
        if (!initial && !this.answered.has(e.host)) process.nextTick(() => this.answered.add(e.host));
      });
      remote.on('change', (e: HostWatchEvent) => {
        if (!initial && e.type === 'added' && !this.answered.has(e.host)) return void this.view.set(key(e), e.record);
        this.deliver(e);
      });
      remote.on('error', (error: unknown) => this.fail(error));
    }
  }

  /** The current view: every host's last known records (a host that stopped answering keeps its last). */
  records(): HostRecord[] {
    return [...this.view.values()];
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.remote?.close();
    this.local?.close();
    this.view.clear();
    this.emit('close');
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private deliver(event: HostWatchEvent): void {
    if (this.closed) return;
    if (event.type === 'removed') this.view.delete(key(event));
    else this.view.set(key(event), event.record);
    // A listener that throws must not cost the other event name its delivery, nor stop the watch.
    for (const name of [event.type, 'change']) {
      try {
        this.emit(name, event);
      } catch (error) {
        this.fail(error);
      }
    }
  }

  /** As the local watcher: `error` when someone listens, else dropped. */
  private fail(error: unknown): void {
    if (!this.closed && this.listenerCount('error') > 0) this.emit('error', error);
  }
}

function key(e: HostWatchEvent): string {
  return `${e.host}\0${e.record.path}`;
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
