/**
 * watch reports added / changed / died / removed for real claims of our own processes, under every
 * backend (records carry the token form of the backend's platform).
 */
import { mkdirSync, rmSync, unlinkSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Watcher } from '../../../lib/registry/watch/watch.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { spawnSleep } from '../../helpers/processes.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';
import { cleanUpEachTest, collect, tempRegistry, watch, type TempRegistry } from './helpers.js';

const INTERVAL = 200;
/** "Within one interval", with generous room for a loaded CI machine. */
const ONE_INTERVAL_BOUND = INTERVAL + 3000;

let reg: TempRegistry | undefined;
let w: Watcher | undefined;

cleanUpEachTest();

describe.each(BACKENDS)('watch (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);

  it('reports a new claim as added, a status rewrite as changed with its fields, a delete as removed', async () => {
    reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    w = watch(reg.configDir, { interval: INTERVAL });
    const c = collect(w);

    reg.write(p.pid, { status: 'idle', statusUpdatedAt: 1 });
    const added = await c.next((e) => e.type === 'added', 'added');
    expect(added.record).toMatchObject({ pid: p.pid, status: 'idle', verdict: 'alive', live: true });

    reg.write(p.pid, { status: 'busy', statusUpdatedAt: 2 });
    const changed = await c.next((e) => e.type === 'changed', 'changed');
    expect(changed).toMatchObject({ type: 'changed', record: { status: 'busy' }, previous: { status: 'idle' } });
    if (changed.type === 'changed') expect(changed.fields).toEqual(['status', 'statusUpdatedAt']);

    unlinkSync(reg.path(p.pid));
    const removed = await c.next((e) => e.type === 'removed', 'removed');
    expect(removed.record).toMatchObject({ pid: p.pid, status: 'busy' });
    expect(w.records()).toEqual([]);
    await p.end();
  });

  it('reports died within one interval after the process is killed with SIGKILL', async () => {
    reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid);
    w = watch(reg.configDir, { interval: INTERVAL });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');

    await p.end(); // SIGKILL, then reaped
    const killedAt = Date.now();
    const died = await c.next((e) => e.type === 'died', 'died', ONE_INTERVAL_BOUND);
    expect(Date.now() - killedAt).toBeLessThanOrEqual(ONE_INTERVAL_BOUND);
    expect(['gone', 'zombie']).toContain(died.record.verdict);
    expect(died.record.live).toBe(false);
    if (died.type === 'died') expect(died.fields).toEqual(expect.arrayContaining(['live', 'verdict']));
    // Dead is dead: no further event for the same state.
    await c.quiet(3 * INTERVAL);
    expect(c.events.filter((e) => e.type === 'died')).toHaveLength(1);
  });

  it('a rewrite with another start token (a recycled PID) is died; the right token again is changed', async () => {
    reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    const token = tokenOf(p.pid, backendName);
    reg.write(p.pid);
    w = watch(reg.configDir, { interval: INTERVAL });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');

    reg.write(p.pid, { procStart: anotherToken(token), sessionId: 'someone-else' });
    const died = await c.next((e) => e.type === 'died', 'died');
    expect(died.record).toMatchObject({ verdict: 'recycled', live: false, sessionId: 'someone-else' });
    if (died.type === 'died') expect(died.fields).toEqual(['live', 'procStart', 'sessionId', 'token', 'verdict']);

    reg.write(p.pid, { sessionId: 'mine-again' });
    const back = await c.next((e) => e.type !== 'died', 'changed');
    expect(back).toMatchObject({ type: 'changed', record: { verdict: 'alive', live: true, sessionId: 'mine-again' } });
    await p.end();
  });

  it('picks up a sessions folder created after the watch started (config dir present, or not even that)', async () => {
    reg = tempRegistry(false, backendName);
    const p = spawnSleep();
    w = watch(reg.configDir, { interval: INTERVAL });
    const c = collect(w);
    mkdirSync(reg.sessions);
    reg.write(p.pid);
    expect((await c.next((e) => e.type === 'added', 'added in a new folder')).record.pid).toBe(p.pid);
    w.close();

    const missing = `${reg.configDir}/not-yet`;
    w = watch(missing, { interval: INTERVAL });
    const c2 = collect(w);
    mkdirSync(`${missing}/sessions`, { recursive: true });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${missing}/sessions/${p.pid}.json`, JSON.stringify({ pid: p.pid, sessionId: 'late' }));
    expect((await c2.next((e) => e.type === 'added', 'added in a late config dir')).record.sessionId).toBe('late');
    await p.end();
  });

  it('reports removed when the sessions folder is deleted, and added when it comes back', async () => {
    reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid);
    // No timer fires during this test: OS events alone must carry it.
    w = watch(reg.configDir, { interval: 600_000 });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');
    rmSync(reg.sessions, { recursive: true });
    await c.next((e) => e.type === 'removed', 'removed with its folder');
    mkdirSync(reg.sessions);
    reg.write(p.pid, { status: 'back' });
    expect((await c.next((e) => e.type === 'added', 'added in the new folder')).record.status).toBe('back');
    reg.write(p.pid, { status: 'and watched' });
    expect((await c.next((e) => e.type === 'changed', 'changed')).record.status).toBe('and watched');
    await p.end();
  });

  it('reports the records present at the start as added, and dead ones with their verdict', async () => {
    reg = tempRegistry(true, backendName);
    const live = spawnSleep();
    const dead = spawnSleep();
    reg.write(live.pid);
    reg.write(dead.pid);
    await dead.end();
    w = watch(reg.configDir, { interval: INTERVAL });
    expect(w.records().map((r) => r.pid)).toEqual([live.pid, dead.pid].sort((a, b) => a - b));
    const c = collect(w);
    await c.next((e) => e.type === 'added' && e.record.pid === dead.pid, 'added (dead)');
    await c.quiet(2 * INTERVAL);
    const byPid = new Map(c.events.map((e) => [e.record.pid, e]));
    expect(byPid.get(live.pid)).toMatchObject({ type: 'added', record: { verdict: 'alive' } });
    expect(byPid.get(dead.pid)).toMatchObject({ type: 'added', record: { verdict: 'gone', live: false } });
    expect(c.events).toHaveLength(2);
    await live.end();
  });

  it('does not report a half-written file as removed when the writer completes it', async () => {
    reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid, { status: 'idle' });
    w = watch(reg.configDir, { interval: INTERVAL });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(reg.path(p.pid), ''); // truncated, as in the middle of Claude Code's in-place write
    await new Promise((r) => setTimeout(r, 5));
    reg.write(p.pid, { status: 'busy' });
    await c.next((e) => e.type === 'changed', 'changed');
    // A file that stays a non-record is, in the end, removed.
    writeFileSync(reg.path(p.pid), '{"pid":');
    await c.next((e) => e.type === 'removed', 'removed');
    expect(c.events.map((e) => e.type)).toEqual(['added', 'changed', 'removed']);
    await p.end();
  });
});
