/**
 * docs/watch.md "every listing is proven complete": a watcher of a folder with 4,000 key files while
 * a child repeats prune's put-back move on one live session's record (test/registry/read/
 * put-back-race.test.ts does the same to the guard). The record moves between names, so `removed`
 * and `added` at its two paths are true; what must hold: the other live session is never removed, a
 * folder that keeps changing is said at most once (EAGAIN), and once the moves stop the view holds
 * both sessions again.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnSleep } from '../../helpers/processes.js';
import { cleanUpEachTest, collect, tempRegistry, watch } from './helpers.js';

cleanUpEachTest();
const MOVER = fileURLToPath(new URL('../../fixtures/put-back-mover.mjs', import.meta.url));

describe('watch while a put-back repeats in a folder of 4,000 key files (native backend)', () => {
  it('never removes the session that does not move; says a busy folder at most once; settles after', async () => {
    const reg = tempRegistry(true, 'native');
    const moving = spawnSleep();
    const still = spawnSleep();
    reg.write(moving.pid);
    reg.write(still.pid);
    const key = 'cd'.repeat(32);
    for (let i = 0; i < 4000; i++) writeFileSync(join(reg.sessions, `${200000 + i}.${key}.key`), 'k');
    const w = watch(reg.configDir, { interval: 20, rescanEvery: 1, exitHandles: 0 });
    const events = collect(w);
    const errors: Array<{ reason?: string }> = [];
    w.on('error', (e) => errors.push(e as { reason?: string }));
    await events.next((e) => e.type === 'added', 'the first added');
    await events.next((e) => e.type === 'added', 'the second added');
    const mover = spawn(process.execPath, [MOVER, reg.sessions, String(moving.pid)], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 3000));
    } finally {
      const exited = new Promise((r) => mover.once('exit', r));
      mover.kill('SIGKILL'); // our own child
      await exited;
    }
    w.rescanNow();
    await events.quiet(500);
    expect(events.events.filter((e) => e.type === 'removed' && e.record.pid === still.pid)).toEqual([]);
    expect(errors.length).toBeLessThanOrEqual(1);
    for (const e of errors) expect(e.reason).toBe('EAGAIN');
    const live = w.records().filter((r) => r.live).map((r) => r.pid);
    expect(new Set(live)).toEqual(new Set([moving.pid, still.pid]));
    await moving.end();
    await still.end();
  }, 60_000);
});
