/**
 * Which watch events are worth a notification (docs/top.md): a session that starts waiting, and when
 * asked one that finishes a turn (busy → idle) or ends. Pure: events in, notices out. The records
 * present at the start are remembered, not announced, unless `initial` asks for the waiting ones.
 */
import { basename } from 'node:path';
import type { WatchEvent } from '../../registry/watch/diff.js';
import type { SessionRecord } from '../../registry/types.js';
import { shortenHome } from '../format.js';
import { sanitise } from '../statusline/view.js';

export const NOTIFY_EVENTS = ['waiting', 'done', 'died'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export interface Notice {
  event: NotifyEvent;
  /** The record's file: one session's identity. */
  key: string;
  pid: number;
  sessionId: string;
  /** Sanitised and bounded: safe for a terminal, a desktop notification, an argument. */
  label: string;
  title: string;
  body: string;
  record: SessionRecord;
}

export const TITLE_MAX = 80;
export const BODY_MAX = 160;

export function labelOf(r: SessionRecord): string {
  return sanitise(r.name?.slice(0, 400), 40) || sanitise(r.cwd === undefined ? undefined : basename(r.cwd.slice(0, 4096)), 40) || `pid ${r.pid}`;
}

export function noticeOf(event: NotifyEvent, r: SessionRecord): Notice {
  const label = labelOf(r);
  const what = event === 'waiting' ? 'needs you' : event === 'done' ? 'finished its turn' : 'ended';
  const detail = event === 'waiting' ? sanitise(r.waitingFor, 60) : '';
  const where = sanitise(shortenHome(r.cwd?.slice(0, 4096)), 120);
  const body = [detail, where, `pid ${r.pid}`].filter(Boolean).join(' · ');
  return {
    event,
    key: r.path,
    pid: r.pid,
    sessionId: r.sessionId,
    label,
    title: sanitise(`Claude Code: ${label} ${what}`, TITLE_MAX),
    body: sanitise(body, BODY_MAX),
    record: r,
  };
}

export class Transitions {
  private readonly last = new Map<string, SessionRecord>();
  constructor(private readonly wanted: ReadonlySet<NotifyEvent>) {}

  /** The records there at the start: remembered; with `initial`, the waiting ones announced. */
  start(records: readonly SessionRecord[], initial: boolean): Notice[] {
    const notices: Notice[] = [];
    for (const r of records) {
      this.last.set(r.path, r);
      if (initial && this.wanted.has('waiting') && r.live && r.status === 'waiting') notices.push(noticeOf('waiting', r));
    }
    return notices;
  }

  /** What one event announces, if anything. */
  next(event: WatchEvent): Notice | undefined {
    const before = this.last.get(event.record.path);
    const r = event.record;
    if (event.type === 'removed') {
      this.last.delete(r.path);
      // A file removed while its session was last seen alive: the session ended (Claude Code removes
      // its own record on exit). One notice per session: a `died` before it already said so.
      return before?.live && this.wanted.has('died') ? noticeOf('died', before) : undefined;
    }
    this.last.set(r.path, r);
    if (event.type === 'died') return before?.live !== false && this.wanted.has('died') ? noticeOf('died', r) : undefined;
    if (!r.live) return undefined;
    // The watcher's own `added` for a record start() already saw compares with what start() saw.
    const was = before !== undefined ? before.status : event.type === 'added' ? undefined : event.previous.status;
    if (r.status === 'waiting' && was !== 'waiting') return this.wanted.has('waiting') ? noticeOf('waiting', r) : undefined;
    if (r.status === 'idle' && was === 'busy') return this.wanted.has('done') ? noticeOf('done', r) : undefined;
    return undefined;
  }
}
