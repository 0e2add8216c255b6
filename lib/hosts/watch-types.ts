/**
 * The host watchers' public types, apart from both the classes (watch.ts, watch-api.ts) and their
 * engines (watch-engine.ts, watch-api-engine.ts), which all use them.
 */
import type { WatchEvent } from '../registry/watch/diff.js';
import type { WatchOptions } from '../registry/watch/watch.js';
import type { HostReadOptions, HostRecord, HostState } from './read.js';

/** A record event, as the local watcher's, with the record's host. */
export type HostWatchEvent = WatchEvent & { host: string; record: HostRecord };

/** A host's state changed: the first answer, a lost connection (`unreachable`, `timeout`…), a return. */
export interface HostStateEvent {
  host: string;
  state: HostState;
  detail: string | undefined;
  /** When this state was measured (this machine's clock, ms). */
  time: number;
}

export interface HostWatchOptions extends HostReadOptions {
  /** Between two reads of a host that answers, in ms (default 2000). */
  intervalMs?: number;
}

export interface HostsWatchOptions extends WatchOptions {
  /** ssh destinations; `'local'` is this machine (the ordinary watch). At least one. */
  hosts: readonly string[];
  /** Per remote read, the whole round trip (default 15 s). */
  timeoutMs?: number;
  /** Config dirs the remotes read (default: each remote's CLAUDE_CONFIG_DIR, else its ~/.claude). */
  remoteConfigDirs?: readonly string[];
}
