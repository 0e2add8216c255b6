/** The pure rules of `notify`: which events are transitions, the rate limits, the escape sequences. */
import { describe, expect, it } from 'vitest';
import { Limiter } from '../../lib/cli/notify/limiter.js';
import { oscKind, oscSequence } from '../../lib/cli/notify/senders.js';
import { noticeOf, Transitions } from '../../lib/cli/notify/transitions.js';
import type { SessionRecord } from '../../lib/registry/types.js';
import type { WatchEvent } from '../../lib/registry/watch/diff.js';

const rec = (fields: Partial<SessionRecord>): SessionRecord =>
  ({ path: '/c/sessions/7.json', pid: 7, sessionId: 's', kind: 'interactive', interactive: true, verdict: 'alive', live: true, status: 'busy', raw: {}, ...fields }) as SessionRecord;
const changed = (previous: SessionRecord, record: SessionRecord): WatchEvent => ({ type: 'changed', previous, record, fields: ['status'] });

describe('transitions', () => {
  it('announce entering waiting once, a turn ending and an end only when asked', () => {
    const t = new Transitions(new Set(['waiting']));
    const busy = rec({ status: 'busy' });
    expect(t.start([busy], false)).toEqual([]);
    const waiting = rec({ status: 'waiting', waitingFor: 'permission prompt' });
    expect(t.next(changed(busy, waiting))?.event).toBe('waiting');
    expect(t.next(changed(waiting, rec({ status: 'waiting', updatedAt: 5 })))).toBeUndefined();
    const idle = rec({ status: 'idle' });
    expect(t.next(changed(waiting, idle))).toBeUndefined();
    expect(t.next({ type: 'removed', record: idle })).toBeUndefined();
    const all = new Transitions(new Set(['waiting', 'done', 'died']));
    all.start([busy], false);
    expect(all.next(changed(busy, idle))?.event).toBe('done');
    const gone = rec({ verdict: 'gone', live: false });
    expect(all.next({ type: 'died', previous: idle, record: gone, fields: ['verdict'] })?.event).toBe('died');
    // The removal after a death says nothing more.
    expect(all.next({ type: 'removed', record: gone })).toBeUndefined();
  });

  it('remember the start without announcing it, unless initial', () => {
    const waiting = rec({ status: 'waiting' });
    expect(new Transitions(new Set(['waiting'])).start([waiting], false)).toEqual([]);
    expect(new Transitions(new Set(['waiting'])).start([waiting, rec({ path: '/x/8.json', status: 'waiting', live: false, verdict: 'gone' })], true)).toHaveLength(1);
  });

  it('the watcher\'s own added events for the records seen at start announce nothing', () => {
    const t = new Transitions(new Set(['waiting']));
    const waiting = rec({ status: 'waiting' });
    t.start([waiting], false);
    expect(t.next({ type: 'added', record: waiting })).toBeUndefined();
  });

  it('a session that appears already waiting after the start is announced', () => {
    const t = new Transitions(new Set(['waiting']));
    t.start([], false);
    expect(t.next({ type: 'added', record: rec({ status: 'waiting' }) })?.event).toBe('waiting');
  });

  it('bound and sanitise the text', () => {
    const n = noticeOf('waiting', rec({ name: '\x1b[31m' + 'x'.repeat(5000), waitingFor: '\u202e\x07y', cwd: '/a\nb' }));
    expect(n.title.length).toBeLessThanOrEqual(80);
    expect(n.body.length).toBeLessThanOrEqual(160);
    expect(n.title + n.body).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
  });
});

describe('the limiter', () => {
  const notice = (key: string) => noticeOf('waiting', rec({ path: key, name: key }));

  it('sends the first at once, holds the rest of the gap, then sends them together', () => {
    const l = new Limiter(1000, 0);
    expect(l.offer(notice('a'), 0)?.notices.map((x) => x.key)).toEqual(['a']);
    expect(l.offer(notice('b'), 100)).toBeUndefined();
    expect(l.offer(notice('c'), 200)).toBeUndefined();
    expect(l.dueAt()).toBe(1000);
    expect(l.release(999)).toBeUndefined();
    expect(l.release(1000)?.notices.map((x) => x.key)).toEqual(['b', 'c']);
    expect(l.dueAt()).toBeUndefined();
  });

  it('holds a session flapping faster than both limits once, however often it comes', () => {
    const l = new Limiter(1000, 0);
    expect(l.offer(notice('a'), 0)).toBeDefined();
    for (let t = 1; t < 1000; t++) expect(l.offer(notice(t % 2 ? 'b' : 'c'), t)).toBeUndefined();
    expect(l.release(1000)?.notices.map((x) => x.key)).toEqual(['b', 'c']);
  });

  it('drops the same session and event inside its window, and forgets it after', () => {
    const l = new Limiter(0, 5000);
    expect(l.offer(notice('a'), 0)).toBeDefined();
    expect(l.offer(notice('a'), 4999)).toBeUndefined();
    expect(l.offer(notice('b'), 4999)).toBeDefined();
    l.sweep(10_000);
    expect(l.offer(notice('a'), 10_000)).toBeDefined();
  });
});

describe('terminal notifications', () => {
  it('cannot be ended early by the text, and pass through tmux when inside it', () => {
    const seq = oscSequence('osc777', { title: 'a;b\x1b]0;x\x07', body: 'c\x9cd' }, false);
    expect(seq.startsWith('\x1b]777;notify;')).toBe(true);
    expect(seq.slice(1, -2)).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(seq.split(';')).toHaveLength(4);
    const wrapped = oscSequence('osc9', { title: 't', body: 'b' }, true);
    expect(wrapped).toBe('\x1bPtmux;\x1b\x1b]9;t: b\x1b\x1b\\\x1b\\');
  });

  it('choose OSC 777 for the terminals that speak it', () => {
    expect(oscKind({ TERM: 'rxvt-unicode-256color' })).toBe('osc777');
    expect(oscKind({ TERM: 'foot' })).toBe('osc777');
    expect(oscKind({ TERM: 'xterm-256color', VTE_VERSION: '7600' })).toBe('osc777');
    expect(oscKind({ TERM: 'xterm-256color' })).toBe('osc9');
  });
});
