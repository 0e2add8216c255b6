/**
 * Async iteration, close(), and what a poll or rescan reads (files changed behind the OS watch), under
 * every backend (a child process inherits CLAUDE_PS_BACKEND).
 */
import { linkSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Watcher } from '../../../lib/registry/watch/watch.js';
import type { WatchEvent } from '../../../lib/registry/watch/diff.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { spawnSleep } from '../../helpers/processes.js';
import { tokenOf } from '../../helpers/tokens.js';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { cleanUpEachTest, collect, runScript, tempRegistry, watch, type TempRegistry } from './helpers.js';

let reg: TempRegistry | undefined;
let w: Watcher | undefined;
cleanUpEachTest();

describe.each(BACKENDS)('watch lifecycle (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);

  it('is an async iterable that ends on close(), after the events it already holds', async () => {
    reg = tempRegistry(true, backendName);
    const a = spawnSleep();
    const b = spawnSleep();
    reg.write(a.pid);
    const watcher = (w = watch(reg.configDir, { interval: 100 }));
    const seen: WatchEvent[] = [];
    const loop = (async () => {
      for await (const e of watcher) {
        seen.push(e);
        if (seen.length === 1) reg!.write(b.pid);
        if (seen.length === 2) watcher.close();
      }
    })();
    await loop; // ends: close() finished the iteration
    expect(seen.map((e) => [e.type, e.record.pid])).toEqual([
      ['added', a.pid],
      ['added', b.pid],
    ]);
    expect(watcher.isClosed).toBe(true);
    await a.end();
    await b.end();
  });

  it('leaving a for-await loop early closes the watcher', async () => {
    reg = tempRegistry(true, backendName);
    const a = spawnSleep();
    reg.write(a.pid);
    const watcher = (w = watch(reg.configDir, { interval: 100 }));
    for await (const e of watcher) {
      expect(e.type).toBe('added');
      break;
    }
    expect(watcher.isClosed).toBe(true);
    await a.end();
  });

  it('close() releases every timer and OS watch it held', async () => {
    reg = tempRegistry(true, backendName);
    const a = spawnSleep();
    reg.write(a.pid);
    const count = (t: string) => process.getActiveResourcesInfo().filter((r) => r === t).length;
    const before = { timers: count('Timeout'), watches: count('FSEventWrap') };
    const watcher = watch(reg.configDir, { interval: 100, snapshotFile: join(reg.configDir, 'snap.json') });
    const c = collect(watcher);
    await c.next((e) => e.type === 'added', 'added');
    reg.write(a.pid, { status: 'busy' }); // leave a debounce and a snapshot timer in flight
    expect(count('FSEventWrap')).toBeGreaterThan(before.watches);
    watcher.close();
    // Closed handles leave the list a few loop turns later: wait (bounded) for it to settle.
    for (let i = 0; i < 100 && count('FSEventWrap') > before.watches; i++) await new Promise((r) => setTimeout(r, 10));
    expect(count('FSEventWrap')).toBe(before.watches);
    expect(count('Timeout')).toBeLessThanOrEqual(before.timers); // the runner's own timers may have ended meanwhile
    await a.end();
  });

  it('a process that closes its watcher exits by itself', async () => {
    reg = tempRegistry(true, backendName);
    const a = spawnSleep();
    reg.write(a.pid);
    const run = await runScript(
      `import { watch } from './lib/registry/watch/watch.ts';
        const w = watch(process.argv[2], { interval: 50, snapshotFile: process.argv[2] + '/snap.json' });
        w.once('added', () => setTimeout(() => { w.close(); console.log('closed'); }, 200));`,
      [reg.configDir],
    );
    const out = run.stdout;
    const code = run.code;
    expect(out.trim()).toBe('closed');
    expect(code).toBe(0); // not -1: it did not have to be killed
    await a.end();
  });

  /**
   * A write through a hard link in another folder changes the file without an OS event on the sessions
   * folder (inotify reports a child by the path it was opened through). So only a read of the file can
   * see the change: that tells what a poll and a rescan read.
   */
  it('an idle poll reads no file; a rescan re-reads only files whose inode, size or mtime changed', async () => {
    reg = tempRegistry(true, backendName);
    const a = spawnSleep();
    const doc = (status: string) =>
      JSON.stringify({ pid: a.pid, sessionId: 's', procStart: tokenOf(a.pid, backendName), pidDomain: ourPidDomain(), status });
    writeFileSync(reg.path(a.pid), doc('idle'));
    const old = new Date(Date.now() - 3_600_000); // well outside the racy window
    utimesSync(reg.path(a.pid), old, old);
    const side = join(reg.configDir, 'side');
    mkdirSync(side);
    linkSync(reg.path(a.pid), join(side, 'link.json'));

    w = watch(reg.configDir, { interval: 60_000, rescanEvery: 1_000_000 });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');

    // Same size, mtime put back: a rescan must not re-read it (if it did, it would report 'wait').
    writeFileSync(join(side, 'link.json'), doc('wait'));
    utimesSync(join(side, 'link.json'), old, old);
    expect(statSync(reg.path(a.pid)).size).toBe(doc('idle').length);
    w.poll();
    w.rescanNow();
    await new Promise((r) => setTimeout(r, 100));
    expect(w.records()[0]!.status).toBe('idle');

    // A change of size: polls still read nothing; the next rescan does.
    writeFileSync(join(side, 'link.json'), doc('busy'));
    for (let i = 0; i < 5; i++) w.poll();
    await new Promise((r) => setTimeout(r, 100));
    expect(w.records()[0]!.status).toBe('idle');
    w.rescanNow();
    const changed = await c.next((e) => e.type === 'changed', 'changed after the rescan');
    expect(changed.record.status).toBe('busy');
    await a.end();
  });

  it('throws at once, holding nothing, when the snapshot file cannot be written', () => {
    reg = tempRegistry(true, backendName);
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    expect(() => watch(reg!.configDir, { snapshotFile: join(reg!.configDir, 'missing', 'snap.json') })).toThrow(/ENOENT/);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(before);
  });
});
