/**
 * The periodic rescan under working OS events is cheap (the folder's stat, a listing only when the
 * folder changed, files whose last read proves nothing yet), and every FULL_SWEEP_EVERY-th one is a full
 * sweep that still finds an in-place change no OS event reported. A write through a hard link in
 * another folder changes the file without an event on the sessions folder (inotify reports a child by
 * the path it was opened through), so only a rescan can see it.
 */
import { linkSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { procStartTicks, spawnSleep } from '../../helpers/processes.js';
import { cleanUpEachTest, collect, tempRegistry, watch } from './helpers.js';

cleanUpEachTest();

describe('the periodic rescan', () => {
  it('finds an in-place rewrite that no OS event reported at its full sweep', async () => {
    const reg = tempRegistry();
    const a = spawnSleep();
    const doc = (status: string) => JSON.stringify({ pid: a.pid, sessionId: 's', procStart: procStartTicks(a.pid), pidDomain: ourPidDomain(), status });
    writeFileSync(reg.path(a.pid), doc('idle'));
    const old = new Date(Date.now() - 3_600_000); // outside the racy window: its stamp is trusted
    utimesSync(reg.path(a.pid), old, old);
    const side = join(reg.configDir, 'side');
    mkdirSync(side);
    linkSync(reg.path(a.pid), join(side, 'link.json'));
    utimesSync(reg.sessions, old, old); // the folder too: a cheap rescan does not list it again
    // A rescan every 20 ms interval; a full sweep every 30 of them (0.6 s).
    const w = watch(reg.configDir, { interval: 20, rescanEvery: 1 });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');
    writeFileSync(join(side, 'link.json'), doc('a longer status')); // no event on sessions/
    const changed = await c.next((e) => e.type === 'changed', 'changed, found by a sweep');
    expect(changed.record.status).toBe('a longer status');
    await a.end();
  });

  it('re-reads a racily clean file at a cheap rescan (same size, same mtime tick, no OS event)', async () => {
    const reg = tempRegistry();
    const a = spawnSleep();
    const doc = (status: string) => JSON.stringify({ pid: a.pid, sessionId: 's', procStart: procStartTicks(a.pid), pidDomain: ourPidDomain(), status });
    writeFileSync(reg.path(a.pid), doc('idle'));
    const side = join(reg.configDir, 'side');
    mkdirSync(side);
    linkSync(reg.path(a.pid), join(side, 'link.json'));
    // A rescan every second, a full sweep only every 30 s: within the 10 s wait only a cheap rescan can find this.
    const w = watch(reg.configDir, { interval: 1000, rescanEvery: 1 });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');
    const mtime = new Date(Date.now());
    writeFileSync(join(side, 'link.json'), doc('busy')); // same length as 'idle'
    utimesSync(join(side, 'link.json'), mtime, mtime);
    const changed = await c.next((e) => e.type === 'changed', 'changed, found by a cheap rescan');
    expect(changed.record.status).toBe('busy');
    await a.end();
  });
});
