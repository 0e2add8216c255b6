/**
 * What one session's statusline is about: every live record, split into this session (self) and the
 * others, with the others' waiting sessions named. Pure: the same view feeds `claude-ps statusline`
 * and every line file of `watch --statusline-dir` (docs/statusline.md).
 */
import { basename } from 'node:path';
import type { SessionRecord } from '../../registry/types.js';
import { countRecords } from '../commands/summary.js';
import { clip, printable } from '../format.js';
import { COUNT_KEYS, type Counts } from '../template.js';

export interface Waiter {
  pid: number;
  /** Sanitised: the name, else the cwd's last part, else `pid N`. */
  label: string;
  /** Sanitised, or '' when the record does not say. */
  waitingFor: string;
}

/** Another host on the line (hosts-line.ts makes them). */
export interface HostPart {
  /** Sanitised: a name from the command line or the hosts file, made safe for a terminal. */
  host: string;
  /** `ok` (every folder listed), `pending` (no answer yet), or why not: unreachable, timeout, unreadable… */
  state: string;
  /** Its live waiting sessions, the longest-waiting first (for `unreadable`: those it could read). */
  waiters: Waiter[];
}

export interface StatuslineView {
  /** Every record (self included), as `summary` counts them. */
  all: Counts;
  /** The same counts without this session's own records. */
  others: Counts;
  /** The others that wait, the longest-waiting first. */
  waiters: Waiter[];
  /** This session's own record, when it was found. */
  self: SessionRecord | undefined;
  /** Other hosts asked for (`--host`), with their waiting sessions or why they gave none (hosts-line.ts). */
  hosts: readonly HostPart[];
}

// Bidirectional overrides, zero-width characters and line separators can reorder or hide what a
// terminal shows: they are dropped (a name stays one word), and printable() then blanks what else a
// terminal would act on (C0/C1 controls such as ESC and CSI, other format characters).
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = /[\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
// Half of a UTF-16 pair (a JSON "\ud800" escape): it reaches the terminal as U+FFFD.
const LONE_SURROGATE = /\p{Cs}/gu;

/** A value from another program's file, made safe for one terminal line, at most `max` UTF-16 units. */
export function sanitise(value: string | undefined, max: number): string {
  if (value === undefined) return '';
  const text = printable(value.replace(INVISIBLE, '').replace(LONE_SURROGATE, '')).replace(/\s+/g, ' ').trim();
  const cut = clip(text, max);
  // A cut between the halves of a pair (an emoji) must not leave half of it.
  return cut.length < text.length ? cut.replace(LONE_SURROGATE, '') : cut;
}

export function waiterOf(r: SessionRecord): Waiter {
  const label = sanitise(r.name, 24) || sanitise(r.cwd === undefined ? undefined : basename(r.cwd), 24) || `pid ${r.pid}`;
  return { pid: r.pid, label, waitingFor: sanitise(r.waitingFor, 32) };
}

const byWaitingSince = (a: SessionRecord, b: SessionRecord) =>
  (a.statusUpdatedAt ?? Infinity) - (b.statusUpdatedAt ?? Infinity) || a.pid - b.pid;

/**
 * The views of many sessions over one list of records, for a watcher that renders a line per live
 * session: the counts and the waiters are made once, and each session's view subtracts its own
 * records, so N sessions cost O(N), not one pass over every record for each of them.
 */
export function viewsOver(records: readonly SessionRecord[], hosts: readonly HostPart[] = []): (self: readonly SessionRecord[]) => StatuslineView {
  const all = countRecords(records, false);
  const waiting = records.filter((r) => r.live && r.status === 'waiting').sort(byWaitingSince);
  const waiters = waiting.map(waiterOf);
  const listed = new Set(records);
  return (self) => {
    // Only what is in the list can be subtracted from its counts (a record from elsewhere is no "other").
    const own = countRecords(self.filter((r) => listed.has(r)), false);
    const others = { ...all };
    for (const key of COUNT_KEYS) others[key] -= own[key];
    const mine = new Set(self);
    const selfWaits = self.some((r) => r.live && r.status === 'waiting');
    return {
      all,
      others,
      waiters: selfWaits ? waiters.filter((_, i) => !mine.has(waiting[i]!)) : waiters,
      self: self.find((r) => r.live) ?? self[0],
      hosts,
    };
  };
}

/** The view for a session whose own records are `self` (none: every session is an "other"). */
export function viewFor(records: readonly SessionRecord[], self: readonly SessionRecord[], hosts: readonly HostPart[] = []): StatuslineView {
  return viewsOver(records, hosts)(self);
}
