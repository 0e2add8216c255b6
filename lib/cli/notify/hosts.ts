/**
 * `notify --host`: other machines' sessions through `watchHosts` (lib/hosts/watch.ts), one set of
 * transition rules per host (their record paths may be the same as this machine's). A host's first
 * answer, whenever it comes, is its state at start: remembered, announced only with --initial, as
 * for this machine. A host that stops answering is reported, never announced as sessions ending
 * (watchHosts emits no `removed` for it). Loaded only when --host is given.
 */
import type { HostRecord } from '../../hosts/read.js';
import { watchHosts, type HostStateEvent, type HostWatchEvent } from '../../hosts/watch.js';
import { sanitise } from '../statusline/view.js';
import { Transitions, type Notice, type NotifyEvent } from './transitions.js';

export interface NotifyHostsOptions {
  env: NodeJS.ProcessEnv;
  intervalMs: number | undefined;
  timeoutMs: number | undefined;
  offer(notice: Notice): void;
  report(line: string): void;
}

const TITLE_MAX = 120;

/** The notice, with its host in the title and label, and a key of its own per host. */
export function onHost(notice: Notice, host: string): Notice {
  const name = sanitise(host, 40);
  return {
    ...notice,
    key: `${host}\0${notice.key}`,
    label: `${notice.label} on ${name}`,
    title: sanitise(`${notice.title} (on ${name})`, TITLE_MAX),
  };
}

export function notifyHosts(hosts: readonly string[], wanted: ReadonlySet<NotifyEvent>, initial: boolean, o: NotifyHostsOptions): { close(): void } {
  const rules = new Map(hosts.map((h) => [h, new Transitions(wanted)]));
  const answered = new Set<string>();
  /** A host's first answer, collected while its events of that answer arrive (all in one turn). */
  const priming = new Map<string, HostRecord[]>();
  const watcher = watchHosts(hosts, { env: o.env, intervalMs: o.intervalMs, timeoutMs: o.timeoutMs });
  watcher.on('host', (e: HostStateEvent) => {
    const ok = e.state === 'ok' || e.state === 'unreadable';
    if (!ok) return o.report(`${sanitise(e.host, 40)}: ${e.state}${e.detail ? ` (${sanitise(e.detail, 120)})` : ''}`);
    if (answered.has(e.host)) return o.report(`${sanitise(e.host, 40)}: answering again`);
    answered.add(e.host);
    priming.set(e.host, []);
    // watchHosts emits a host's state, then that answer's records, synchronously.
    setImmediate(() => {
      const records = priming.get(e.host) ?? [];
      priming.delete(e.host);
      for (const notice of rules.get(e.host)!.start(records, initial)) o.offer(onHost(notice, e.host));
    });
  });
  watcher.on('change', (e: HostWatchEvent) => {
    const first = priming.get(e.host);
    if (first) return void first.push(e.record);
    const notice = rules.get(e.host)?.next(e);
    if (notice) o.offer(onHost(notice, e.host));
  });
  watcher.on('error', (error: unknown) => o.report(error instanceof Error ? error.message : String(error)));
  return { close: () => watcher.close() };
}
