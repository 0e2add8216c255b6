/**
 * Other hosts on a statusline (docs/statusline.md, "Other hosts on the line"): each host named with its
 * waiting sessions (`box2: ⏳ web-1 (permission prompt)`), or with why it could not be read
 * (`box2: unreachable`, `box2: ?` before its first answer). A host that answered with none waiting is
 * left out: that is proven. One that did not answer is never shown as "none waiting".
 */
import type { SessionRecord } from '../../registry/types.js';
import { sanitise, waiterOf, type HostPart } from './view.js';

export type { HostPart };

const byWaitingSince = (a: SessionRecord, b: SessionRecord) =>
  (a.statusUpdatedAt ?? Infinity) - (b.statusUpdatedAt ?? Infinity) || a.pid - b.pid;

/** One host's part from its state and its records (as read or as last watched). */
export function hostPart(host: string, state: string, records: Iterable<SessionRecord>): HostPart {
  // A host that gave no answer now keeps its last records (lib/hosts/watch.ts): not shown as if current.
  const answered = state === 'ok' || state === 'unreadable';
  const waiting = answered ? [...records].filter((r) => r.live && r.status === 'waiting').sort(byWaitingSince) : [];
  return { host: sanitise(host, 32) || '?', state, waiters: waiting.map(waiterOf) };
}

/** At most this many waiters are named per host; the rest are counted. */
const NAMED = 2;

/** The hosts' text for the line: '' when every host answered and none has a waiting session. */
export function hostsText(parts: readonly HostPart[]): string {
  const bits: string[] = [];
  for (const p of parts) {
    const named = p.waiters.slice(0, NAMED).map((w) => `⏳ ${w.label}${w.waitingFor ? ` (${w.waitingFor})` : ''}`);
    if (p.waiters.length > NAMED) named.push(`+${p.waiters.length - NAMED} waiting`);
    if (p.state === 'pending') named.push('?');
    else if (p.state !== 'ok') named.push(sanitise(p.state, 16));
    if (named.length > 0) bits.push(`${p.host}: ${named.join(', ')}`);
  }
  return bits.join(' · ');
}
