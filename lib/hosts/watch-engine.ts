/**
 * The engine of a HostWatcher (lib/hosts/watch.ts): one read per host every interval, over the shared
 * ssh connection, each answer diffed against the last one by the watcher's own event rules
 * (lib/registry/watch/diff.ts). In the library's extras (scripts/lazy-parts.mjs), loaded by the first
 * HostWatcher, so that a process that only reads does not compile the transport and the diff.
 */
import type { EventEmitter } from 'node:events';
import { transition } from '../registry/watch/diff.js';
import { LOCAL_HOST, readHosts, type HostRecord, type HostScan, type HostState } from './read.js';
import { checkHostName, checkTimeoutMs, MAX_TIMEOUT_MS } from './transport.js';
import type { HostStateEvent, HostWatchEvent, HostWatchOptions } from './watch-types.js';

export const DEFAULT_HOST_INTERVAL_MS = 2000;
export const MAX_BACKOFF_MS = 60_000;

export interface HostWatchEngine {
  close(): void;
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
 * Checks the hosts and options (programmer errors throw here, as readHosts throws them: not an
 * 'error' event later that nobody may hear), then starts a read of each host; events go to `emitter`.
 */
export function startHostWatch(emitter: EventEmitter, hosts: readonly string[], options: HostWatchOptions): HostWatchEngine {
  const interval = options.intervalMs ?? DEFAULT_HOST_INTERVAL_MS;
  if (!Number.isSafeInteger(interval) || interval < 10 || interval > MAX_TIMEOUT_MS) {
    throw new TypeError(`watchHosts: options.intervalMs must be an integer of 10 to ${MAX_TIMEOUT_MS} ms`);
  }
  if (!Array.isArray(hosts)) throw new TypeError('watchHosts(hosts): hosts must be an array of names');
  for (const host of hosts) if (host !== LOCAL_HOST) checkHostName(host);
  checkTimeoutMs(options.timeoutMs, 'watchHosts');
  const tracks = [...new Set(hosts)].map((h) => new HostTrack(h));
  let closed = false;

  async function read(track: HostTrack): Promise<void> {
    if (closed) return;
    let scan: HostScan;
    try {
      [scan] = (await readHosts([track.host], options)) as [HostScan];
    } catch (error) {
      emitter.emit('error', error);
      return;
    }
    if (closed) return;
    apply(track, scan);
    const answered = scan.state === 'ok' || scan.state === 'unreadable';
    track.failures = answered ? 0 : track.failures + 1;
    const delay = Math.min(interval * 2 ** track.failures, Math.max(MAX_BACKOFF_MS, interval));
    track.timer = setTimeout(() => void read(track), delay);
  }

  function apply(track: HostTrack, scan: HostScan): void {
    if (scan.state !== track.state) {
      track.state = scan.state;
      const event: HostStateEvent = { host: track.host, state: scan.state, detail: scan.detail, time: scan.measuredAt ?? Date.now() };
      emitter.emit('host', event);
    }
    if (scan.state !== 'ok' && scan.state !== 'unreadable') return; // no answer: nothing is known to have changed
    const seen = new Set<string>();
    for (const record of scan.records) {
      seen.add(record.path);
      const previous = track.records.get(record.path);
      const event = transition(previous, previous ? comparable(record, previous) : record);
      track.records.set(record.path, record);
      if (event) emitter.emit('change', { ...event, record, host: track.host } as HostWatchEvent);
    }
    // A folder that could not be listed hides its files: nothing is `removed` on that guess.
    if (scan.state === 'unreadable') return;
    for (const [path, record] of track.records) {
      if (seen.has(path)) continue;
      track.records.delete(path);
      emitter.emit('change', { type: 'removed', record, host: track.host } as HostWatchEvent);
    }
  }

  for (const track of tracks) void read(track);
  return {
    close() {
      closed = true;
      for (const track of tracks) clearTimeout(track.timer);
    },
  };
}
