/**
 * Other machines in `top` (--host, --all-hosts): `watchHosts` (lib/hosts/watch.ts) reads each remote
 * over its shared ssh connection, and this keeps what its events say: each host's records and its
 * state. A host that stops answering keeps its last records, shown marked as not current, and its
 * state is on screen (the hosts line), so no answer never reads as "no sessions".
 */
import { EventEmitter } from 'node:events';
import type { HostRecord, HostState } from '../../hosts/read.js';
import { watchHosts, type HostStateEvent, type HostWatcher, type HostWatchEvent, type HostWatchOptions } from '../../hosts/watch.js';
import { cellText } from './rows.js';

export interface HostStatus {
  host: string;
  /** Undefined until the first answer (or failure). */
  state: HostState | undefined;
  detail: string | undefined;
}

/** Emits `change` on every record or state change, and `error`. */
export class HostFeed extends EventEmitter {
  private readonly watcher: HostWatcher;
  private readonly byHost = new Map<string, Map<string, HostRecord>>();
  private readonly states = new Map<string, HostStatus>();

  constructor(readonly hosts: readonly string[], options: HostWatchOptions) {
    super();
    for (const host of hosts) {
      this.byHost.set(host, new Map());
      this.states.set(host, { host, state: undefined, detail: undefined });
    }
    this.watcher = watchHosts(hosts, options);
    this.watcher.on('change', (e: HostWatchEvent) => {
      const records = this.byHost.get(e.host);
      if (!records) return;
      if (e.type === 'removed') records.delete(e.record.path);
      else records.set(e.record.path, e.record);
      this.emit('change');
    });
    this.watcher.on('host', (e: HostStateEvent) => {
      this.states.set(e.host, { host: e.host, state: e.state, detail: e.detail });
      this.emit('change');
    });
    this.watcher.on('error', (error: unknown) => this.emit('error', error));
  }

  /** Every remote record known, the last answer of each host. */
  records(): HostRecord[] {
    return [...this.byHost.values()].flatMap((m) => [...m.values()]);
  }

  status(): HostStatus[] {
    return this.hosts.map((h) => this.states.get(h)!);
  }

  /** Whether `host`'s records are its current answer (it answered at the last read). */
  current(host: string): boolean {
    const s = this.states.get(host)?.state;
    return s === 'ok' || s === 'unreadable';
  }

  close(): void {
    this.watcher.close();
  }
}

/** The hosts line: `local ok · host-a 3 live · host-b unreachable (why)`, remote text made safe. */
export function hostsLine(local: { live: number } | undefined, feed: HostFeed | undefined): string {
  const parts: string[] = [];
  if (local) parts.push(`local ${local.live} live`);
  const records = feed?.records() ?? [];
  for (const s of feed?.status() ?? []) {
    const name = cellText(s.host, 40);
    if (s.state === undefined) parts.push(`${name} connecting…`);
    else if (s.state === 'ok') parts.push(`${name} ${records.filter((r) => r.host === s.host && r.live).length} live`);
    else parts.push(`${name} ${s.state}${s.detail ? ` (${cellText(s.detail, 48)})` : ''}${records.some((r) => r.host === s.host) ? ', rows as last seen' : ''}`);
  }
  return ` hosts: ${parts.join(' · ')}`;
}
