/**
 * Many quick in-place rewrites: the watcher reports states, not writes. Guaranteed: the final state is
 * reported; no two successive events for a path carry the same state; states are seen in write order
 * (never an older one after a newer one); a live file being rewritten is never reported removed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Watcher } from '../../../lib/registry/watch/watch.js';
import type { WatchEvent } from '../../../lib/registry/watch/diff.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { spawnSleep } from '../../helpers/processes.js';
import { cleanUpEachTest, collect, tempRegistry, watch, type TempRegistry } from './helpers.js';

let reg: TempRegistry | undefined;
let w: Watcher | undefined;
cleanUpEachTest();

function seq(e: WatchEvent): number {
  return Number(e.record.name?.slice(2));
}

function checkStream(events: WatchEvent[], last: number): void {
  expect(events[0]!.type).toBe('added');
  expect(events.slice(1).every((e) => e.type === 'changed')).toBe(true);
  for (let i = 1; i < events.length; i++) {
    const e = events[i]!;
    // Each event's previous is exactly the state reported before it, and differs from it.
    expect(e.type === 'changed' && e.previous).toBe(events[i - 1]!.record);
    expect(seq(e)).toBeGreaterThan(seq(events[i - 1]!));
  }
  expect(seq(events.at(-1)!)).toBe(last);
}

/**
 * js and native only: these tests are about coalescing states, not about probing, and under ps every
 * judgement of a rewritten file is one synchronous `ps` spawn, so the three tests took 58.5 s under ps
 * (15.3 + 24.5 + 18.7 s, against ~2.5 s per backend for js and native). watch-events and
 * watch-lifecycle run the watcher under ps.
 */
const REWRITE_BACKENDS = BACKENDS.filter((name) => name !== 'ps');

describe.each(REWRITE_BACKENDS)('rewrites (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);

  it('a burst of synchronous rewrites ends with the final state, each state once, in order', async () => {
    reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid, { name: 'n-0' });
    w = watch(reg.configDir, { interval: 100 });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');
    for (let i = 1; i <= 500; i++) reg.write(p.pid, { name: `n-${i}` });
    await c.next((e) => seq(e) === 500, 'the final state');
    await c.quiet(500);
    checkStream(c.events, 500);
    await p.end();
  });

  it('rewrites interleaved with the watcher reading (yielding between writes) are never doubled or lost', async () => {
    reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid, { name: 'n-0' });
    w = watch(reg.configDir, { interval: 50 });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');
    for (let i = 1; i <= 300; i++) {
      reg.write(p.pid, { name: `n-${i}` });
      // Vary the gap so reads land before, between and after writes.
      await new Promise((r) => (i % 3 === 0 ? setTimeout(r, i % 7) : setImmediate(r)));
    }
    await c.next((e) => seq(e) === 300, 'the final state');
    await c.quiet(400);
    checkStream(c.events, 300);
    expect(c.events.length).toBeGreaterThan(2); // the reads did interleave
    await p.end();
  });

  it('many files rewritten together: every file ends in its final state, with one added each', async () => {
    reg = tempRegistry(true, backendName);
    const procs = Array.from({ length: 20 }, () => spawnSleep());
    w = watch(reg.configDir, { interval: 100 });
    const c = collect(w);
    for (let round = 0; round <= 30; round++) for (const p of procs) reg.write(p.pid, { name: `n-${round}` });
    for (const p of procs) await c.next((e) => e.record.pid === p.pid && seq(e) === 30, `final state of ${p.pid}`);
    await c.quiet(400);
    for (const p of procs) {
      const mine = c.events.filter((e) => e.record.pid === p.pid);
      checkStream(mine, 30);
    }
    expect(w.records().every((r) => r.name === 'n-30' && r.live)).toBe(true);
    for (const p of procs) await p.end();
  });
});
