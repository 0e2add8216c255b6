/**
 * Watching other hosts: one read per host every interval, over the shared ssh connection (one round
 * trip, no handshake), each answer diffed against the last one by the watcher's own event rules
 * (lib/registry/watch/diff.ts). A host that stops answering is an event (`host`, with its state)
 * and never a run of `removed`: its last records stay as they were until it answers again. Reads
 * of a failing host back off (interval × 2, 4, … up to a minute) and resume at the interval once
 * it answers.
 */
import { EventEmitter } from 'node:events';
import { transition, type WatchEvent } from '../registry/watch/diff.js';
import { LOCAL_HOST, readHosts, type HostReadOptions, type HostRecord, type HostScan, type HostState } from './read.js';
import { checkHostName, checkTimeoutMs, MAX_TIMEOUT_MS } from './transport.js';

export const DEFAULT_HOST_INTERVAL_MS = 2000;
export const MAX_BACKOFF_MS = 60_000;

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

/** The record as it was measured, with `measuredAt` held at the last one's: a new reading is no change. */
function comparable(record: HostRecord, previous: HostRecord): HostRecord {
  return record.measuredAt === previous.measuredAt ? record : ({ ...record, measuredAt: previous.measuredAt } as HostRecord);
}

class HostTrack {
  records = new Map<string, HostRecord>();
  state: HostState | undefined;
  failures = 0;
  timer: NodeJS.Timeout | undefined;
  constructor(readonly host: string) {}
}

/**
 * Emits `change` (HostWatchEvent), `host` (HostStateEvent) and `error`. Remote hosts only: `local` is
 * the ordinary watch (lib/registry/watch), whose events need no polling.
 */
export class HostWatcher extends EventEmitter {
  private closed = false;
  private readonly tracks: HostTrack[];
  private readonly interval: number;

  constructor(hosts: readonly string[], readonly options: HostWatchOptions = {}) {
    super();
    const interval = options.intervalMs ?? DEFAULT_HOST_INTERVAL_MS;
    if (!Number.isSafeInteger(interval) || interval < 10 || interval > MAX_TIMEOUT_MS) {
      throw new TypeError(`watchHosts: options.intervalMs must be an integer of 10 to ${MAX_TIMEOUT_MS} ms`);
    }
    this.interval = interval;
    // Programmer errors here, as readHosts throws them: not an 'error' event later that nobody may hear.
    if (!Array.isArray(hosts)) throw new TypeError('watchHosts(hosts): hosts must be an array of names');
    for (const host of hosts) if (host !== LOCAL_HOST) checkHostName(host);
    checkTimeoutMs(options.timeoutMs, 'watchHosts');
    this.tracks = [...new Set(hosts)].map((h) => new HostTrack(h));
    for (const track of this.tracks) void this.read(track);
  }

  close(): void {
    this.closed = true;
    for (const track of this.tracks) clearTimeout(track.timer);
  }

  private async read(track: HostTrack): Promise<void> {
    if (this.closed) return;
    let scan: HostScan;
    try {
      [scan] = (await readHosts([track.host], this.options)) as [HostScan];
    } catch (error) {
      this.emit('error', error);
      return;
    }
    if (this.closed) return;
    this.apply(track, scan);
    const answered = scan.state === 'ok' || scan.state === 'unreadable';
    track.failures = answered ? 0 : track.failures + 1;
    const delay = Math.min(this.interval * 2 ** track.failures, Math.max(MAX_BACKOFF_MS, this.interval));
    track.timer = setTimeout(() => void this.read(track), delay);
  }

  private apply(track: HostTrack, scan: HostScan): void {
    if (scan.state !== track.state) {
      track.state = scan.state;
      const event: HostStateEvent = { host: track.host, state: scan.state, detail: scan.detail, time: scan.measuredAt ?? Date.now() };
      this.emit('host', event);
    }
    if (scan.state !== 'ok' && scan.state !== 'unreadable') return; // no answer: nothing is known to have changed
    const seen = new Set<string>();
    for (const record of scan.records) {
      seen.add(record.path);
      const previous = track.records.get(record.path);
      const event = transition(previous, previous ? comparable(record, previous) : record);
      track.records.set(record.path, record);
      if (event) this.emit('change', { ...event, record, host: track.host } as HostWatchEvent);
    }
    // A folder that could not be listed hides its files: nothing is `removed` on that guess.
    if (scan.state === 'unreadable') return;
    for (const [path, record] of track.records) {
      if (seen.has(path)) continue;
      track.records.delete(path);
      this.emit('change', { type: 'removed', record, host: track.host } as HostWatchEvent);
    }
  }
}

/** Watches remote hosts (see HostWatcher). */
export function watchHosts(hosts: readonly string[], options?: HostWatchOptions): HostWatcher {
  return new HostWatcher(hosts, options);
}
