/**
 * What `top` shows, from the watcher's records: one row per live session, its text already made safe
 * for a terminal, filtered and sorted. Pure (the clock is an argument), so the order and the filter are
 * testable without a terminal.
 */
import { basename, dirname } from 'node:path';
import type { SessionRecord } from '../../registry/types.js';
import { shortenHome } from '../format.js';
import { sanitise } from '../statusline/view.js';
import { lazily } from '../width.js';

export const SORTS = ['waiting', 'name', 'pid', 'started', 'cwd'] as const;
export type Sort = (typeof SORTS)[number];

export interface Row {
  /** The record's file: a row's identity across refreshes (a PID can be reused, a path is one claim). */
  key: string;
  pid: number;
  /** ' ' alive, '?' unverified (cannot tell), '~' foreign (another PID space). */
  mark: string;
  name: string;
  status: string;
  waiting: boolean;
  /** Epoch ms the status was set, when the record says. */
  since: number | undefined;
  waitingFor: string;
  kind: string;
  cwd: string;
  configDir: string;
  startedAt: number | undefined;
  /** The host it was read on (--host): `local` or an ssh name; '' when top reads this machine only. */
  host: string;
  record: SessionRecord;
}

// Record text is bounded before anything measures it: a 10 000-character name costs one cut, not a
// 10 000-cluster walk on every frame.
const FIELD_MAX = 200;

/**
 * Record text for a cell: sanitised, and every unassigned code point (Unicode's Cn, noncharacters
 * too) replaced by U+FFFD. Terminals disagree on those (tmux with glibc draws none, others one or two
 * columns) while the width table says one, so a name holding one would shift the rest of its row;
 * U+FFFD is one column everywhere.
 */
export function cellText(text: string | undefined, max: number): string {
  const clean = sanitise(text, max);
  return UNASSIGNED().test(clean) ? clean.replace(UNASSIGNED_ALL(), '\ufffd') : clean;
}
const UNASSIGNED = lazily(() => /\p{Cn}/u);
const UNASSIGNED_ALL = lazily(() => /\p{Cn}/gu);

const MARKS: Readonly<Record<string, string>> = { alive: ' ', unverified: '?', foreign: '~' };

export function rowOf(r: SessionRecord, home?: string, localHost = ''): Row {
  const cwd = cellText(shortenHome(r.cwd?.slice(0, 4096), home), FIELD_MAX);
  const configDir = cellText(shortenHome(dirname(dirname(r.path)), home), FIELD_MAX);
  const folder = r.cwd === undefined ? '' : cellText(basename(r.cwd.slice(0, 4096)), FIELD_MAX);
  const host = cellText((r as { host?: string }).host ?? localHost, 64);
  return {
    key: host ? `${host}\0${r.path}` : r.path,
    host,
    pid: r.pid,
    mark: MARKS[r.verdict] ?? '?',
    name: cellText(r.name?.slice(0, 4 * FIELD_MAX), FIELD_MAX) || folder || '-',
    status: cellText(r.status, 16) || '-',
    waiting: r.status === 'waiting',
    since: r.statusUpdatedAt ?? r.updatedAt,
    waitingFor: r.status === 'waiting' ? cellText(r.waitingFor, 64) : '',
    kind: cellText(r.kind, 16),
    cwd,
    configDir,
    startedAt: r.startedAt,
    record: r,
  };
}

const STATUS_ORDER: Readonly<Record<string, number>> = { waiting: 0, busy: 1, shell: 2, idle: 3 };
const oldestFirst = (a: number | undefined, b: number | undefined) => (a ?? Infinity) - (b ?? Infinity);
const newestFirst = (a: number | undefined, b: number | undefined) => (b ?? -Infinity) - (a ?? -Infinity);
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const COMPARE: Readonly<Record<Sort, (a: Row, b: Row) => number>> = {
  // Waiting first, the longest-waiting first; then busy, shell, idle, others, the latest change first.
  waiting: (a, b) =>
    (STATUS_ORDER[a.record.status ?? ''] ?? 4) - (STATUS_ORDER[b.record.status ?? ''] ?? 4) ||
    (a.waiting ? oldestFirst(a.since, b.since) : newestFirst(a.since, b.since)),
  name: (a, b) => byText(a.name.toLowerCase(), b.name.toLowerCase()),
  pid: () => 0,
  started: (a, b) => newestFirst(a.startedAt, b.startedAt),
  cwd: (a, b) => byText(a.cwd, b.cwd),
};

/** Whether the row's visible text holds `filter` (case-insensitive); an empty filter holds for all. */
export function matches(row: Row, filter: string): boolean {
  if (filter === '') return true;
  const needle = filter.toLowerCase();
  return [row.name, row.status, row.waitingFor, row.kind, row.cwd, row.configDir, row.host, String(row.pid)].some((t) =>
    t.toLowerCase().includes(needle),
  );
}

// The watcher hands back the same frozen record until its file or verdict changes: a frame a second
// over a thousand sessions sanitises only what changed.
const made = new WeakMap<SessionRecord, Row>();
function cachedRow(r: SessionRecord, home: string | undefined, localHost: string): Row {
  if (home !== undefined) return rowOf(r, home, localHost);
  let row = made.get(r);
  // localHost is one value for a whole run of top: a cached row's host is still right.
  if (!row) made.set(r, (row = rowOf(r, undefined, localHost)));
  return row;
}

/** The rows to show: live records only, filtered, in `sort` order (ties by PID, then path). */
export function topRows(records: readonly SessionRecord[], filter: string, sort: Sort, home?: string, localHost = ''): Row[] {
  const rows = records.filter((r) => r.live).map((r) => cachedRow(r, home, localHost)).filter((row) => matches(row, filter));
  return rows.sort((a, b) => COMPARE[sort](a, b) || a.pid - b.pid || byText(a.key, b.key));
}
