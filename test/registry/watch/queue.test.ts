/**
 * The iterator's queue is bounded by coalescing per path: a consumer that falls behind, or never
 * drains, holds at most two events per file (a `removed`, then the `added` of a new record), and what
 * it finally reads is the watcher's latest view, as a well-formed sequence per path.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseClaim } from '../../../lib/registry/read/schema.js';
import { DEAD_VERDICTS, type SessionRecord, type Verdict } from '../../../lib/registry/types.js';
import type { WatchEvent } from '../../../lib/registry/watch/diff.js';
import { EventQueue, merge } from '../../../lib/registry/watch/queue.js';
import { spawnSleep } from '../../helpers/processes.js';
import { cleanUpEachTest, collect, tempRegistry, watch } from './helpers.js';

cleanUpEachTest();

function record(pid: number, status: string, verdict: Verdict = 'alive', sessionId = `s-${pid}`): SessionRecord {
  const claim = parseClaim(Buffer.from(JSON.stringify({ pid, sessionId, status })), `/x/${pid}.json`, pid);
  if (typeof claim === 'string') throw new Error(claim);
  return Object.freeze({ ...claim, interactive: true, verdict, live: !DEAD_VERDICTS.has(verdict) });
}

const added = (r: SessionRecord): WatchEvent => ({ type: 'added', record: r });
const changed = (p: SessionRecord, r: SessionRecord): WatchEvent => ({ type: 'changed', record: r, previous: p, fields: ['status'] });
const died = (p: SessionRecord, r: SessionRecord): WatchEvent => ({ type: 'died', record: r, previous: p, fields: ['live', 'verdict'] });
const removed = (r: SessionRecord): WatchEvent => ({ type: 'removed', record: r });

describe('merge', () => {
  const a = record(1, 'idle');
  const b = record(1, 'busy');
  const c = record(1, 'waiting');
  const dead = record(1, 'busy', 'gone');
  it('added then anything but removed stays added, with the latest record', () => {
    expect(merge(added(a), changed(a, b))).toEqual(added(b));
    expect(merge(added(a), died(a, dead))).toEqual(added(dead));
  });
  it('added then removed cancel out; removed then added are both kept', () => {
    expect(merge(added(a), removed(a))).toBeUndefined();
    expect(merge(removed(a), added(b))).toBe('append');
  });
  it('changes merge into one from the record the consumer last saw; back to it, nothing', () => {
    expect(merge(changed(a, b), changed(b, c))).toEqual({ type: 'changed', record: c, previous: a, fields: ['status'] });
    expect(merge(changed(a, b), changed(b, a))).toBeUndefined();
    expect(merge(changed(a, b), died(b, dead))).toMatchObject({ type: 'died', record: dead, previous: a });
    expect(merge(changed(a, b), removed(b))).toEqual(removed(b));
  });
});

describe('EventQueue', () => {
  it('holds at most two events per path however many are pushed, and delivers the latest state', async () => {
    const q = new EventQueue(() => {});
    let last = record(7, 'idle');
    q.push(added(last));
    for (let i = 0; i < 10_000; i++) {
      const next = record(7, `s${i}`);
      q.push(changed(last, next));
      last = next;
    }
    expect(q.size).toBe(1);
    q.push(removed(last));
    expect(q.size).toBe(0); // added + removed: the consumer never needs to know
    q.push(added(record(8, 'idle')));
    q.push(removed(record(8, 'idle')));
    q.push(added(record(8, 'busy', 'alive', 'new')));
    expect(q.size).toBe(1);
    const first = await q.next();
    expect(first.value).toMatchObject({ type: 'added', record: { pid: 8, sessionId: 'new' } });
    // After the consumer saw it: removed, then a new record: both kept, in order.
    q.push(removed(record(8, 'busy', 'alive', 'new')));
    q.push(added(record(8, 'idle', 'alive', 'newer')));
    expect(q.size).toBe(2);
    expect((await q.next()).value).toMatchObject({ type: 'removed' });
    expect((await q.next()).value).toMatchObject({ type: 'added', record: { sessionId: 'newer' } });
  });
});

describe('an iterator that is never drained', () => {
  it('stays bounded while one file is rewritten hundreds of times and others come and go', async () => {
    const reg = tempRegistry();
    const a = spawnSleep();
    reg.write(a.pid);
    const w = watch(reg.configDir, { interval: 20 });
    const iterator = w[Symbol.asyncIterator]() as EventQueue;
    const c = collect(w);
    for (let i = 0; i < 300; i++) {
      reg.write(a.pid, { status: `s${i}` });
      reg.write(4_000_000 + (i % 20), { status: `s${i}` }); // dead claims that come and go
      if (i % 3 === 0) rmSync(reg.path(4_000_000 + ((i + 7) % 20)), { force: true });
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 15));
    }
    await c.next((e) => e.record.pid === a.pid && e.record.status === 's299', 'the last rewrite');
    await c.quiet(300);
    const paths = new Set(c.events.map((e) => e.record.path)).size;
    expect(c.events.length).toBeGreaterThan(2 * paths); // the listener saw more than the queue keeps
    expect(iterator.size).toBeLessThanOrEqual(2 * paths);
    // Drained now: the events, applied in order, rebuild the watcher's view.
    const view = new Map<string, SessionRecord>();
    const held = iterator.size;
    for (let i = 0; i < held; i++) {
      const { value } = await iterator.next();
      if (value.type === 'removed') view.delete(value.record.path);
      else view.set(value.record.path, value.record);
    }
    expect([...view.values()].map((r) => `${r.pid}:${r.status}`).sort()).toEqual(w.records().map((r) => `${r.pid}:${r.status}`).sort());
    await a.end();
  });
});

describe('an undrained queue holds what is pending, not what was ever seen', () => {
  it('added-then-removed pairs leave no slot: 20,000 sessions that came and went, a handful of slots', () => {
    const q = new EventQueue(() => {});
    const stays = record(1, 'idle');
    q.push(added(stays));
    let most = 0;
    for (let pid = 2; pid < 20_002; pid++) {
      const r = record(pid, 'idle');
      q.push(added(r));
      q.push(removed(r));
      most = Math.max(most, q.slots);
    }
    expect(q.size).toBe(1);
    expect(most).toBeLessThanOrEqual(2 * 65 + 1);
    expect(q.slots).toBeLessThanOrEqual(2 * 65 + 1);
    // Changes that return to what the consumer saw cancel out the same way.
    let last = stays;
    for (let i = 0; i < 10_000; i++) {
      const next = record(1, i % 2 === 0 ? 'busy' : 'idle');
      q.push(changed(last, next));
      last = next;
    }
    expect(q.slots).toBeLessThanOrEqual(2 * 65 + 1);
  });

  it('still delivers, in order, what is pending after compaction', async () => {
    const q = new EventQueue(() => {});
    const keep: SessionRecord[] = [];
    for (let pid = 1; pid <= 1000; pid++) {
      const r = record(pid, 'idle');
      q.push(added(r));
      if (pid % 10 === 0) keep.push(r);
      else q.push(removed(r));
    }
    expect(q.slots).toBeLessThan(300);
    const got: number[] = [];
    for (let i = 0; i < keep.length; i++) got.push((await q.next()).value.record.pid);
    expect(got).toEqual(keep.map((r) => r.pid));
    expect(q.size).toBe(0);
  });
});
