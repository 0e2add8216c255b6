/** snapshot(): the versioned shape for dashboards; writeSnapshot(): atomic, 0600, no temp left behind. */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ourPidDomain } from '../../lib/registry/domain.js';
import { capString, snapshot, SNAPSHOT_STRING_CAP, writeSnapshot } from '../../lib/registry/snapshot.js';
import { endAll, spawnSleep } from '../helpers/processes.js';
import { tempRegistry, type TempRegistry } from './watch/helpers.js';

let reg: TempRegistry | undefined;
afterEach(() => {
  reg?.remove();
  reg = undefined;
});
afterAll(endAll);

describe('snapshot', () => {
  it('has the versioned shape, with every key present (absent values null) and dead records included', async () => {
    reg = tempRegistry();
    const live = spawnSleep();
    const dead = spawnSleep();
    reg.write(live.pid, { sessionId: 'a', name: 'fix tests', status: 'waiting', waitingFor: 'approve Bash', statusUpdatedAt: 42 });
    reg.write(dead.pid, { sessionId: 'b', kind: 'bg', status: undefined, cwd: undefined });
    await dead.end();
    const before = Date.now();
    const snap = snapshot(reg.configDir);
    expect(snap.version).toBe(1);
    expect(snap.written).toBeGreaterThanOrEqual(before);
    expect(snap.host).toEqual({ platform: process.platform, pidDomain: ourPidDomain() });
    expect(JSON.parse(JSON.stringify(snap.sessions))).toEqual({
      a: {
        pid: live.pid,
        name: 'fix tests',
        status: 'waiting',
        waitingFor: 'approve Bash',
        kind: 'interactive',
        interactive: true,
        cwd: '/tmp',
        statusUpdatedAt: 42,
        verdict: 'alive',
        live: true,
      },
      b: {
        pid: dead.pid,
        name: null,
        status: null,
        waitingFor: null,
        kind: 'bg',
        interactive: false,
        cwd: null,
        statusUpdatedAt: null,
        verdict: 'gone',
        live: false,
      },
    });
    await live.end();
  });

  it('caps string values and keys at SNAPSHOT_STRING_CAP code units, never inside a surrogate pair', async () => {
    reg = tempRegistry();
    const p = spawnSleep();
    const long = 'x'.repeat(SNAPSHOT_STRING_CAP - 1) + '😀' + 'tail'; // the emoji straddles the cap
    reg.write(p.pid, { sessionId: 'k'.repeat(5000), name: long, cwd: 'c'.repeat(100_000) });
    const snap = snapshot(reg.configDir);
    const [key] = Object.keys(snap.sessions);
    expect(key).toBe('k'.repeat(SNAPSHOT_STRING_CAP));
    const s = snap.sessions[key!]!;
    expect(s.name).toBe('x'.repeat(SNAPSHOT_STRING_CAP - 1));
    expect(s.cwd).toHaveLength(SNAPSHOT_STRING_CAP);
    expect(capString('short')).toBe('short');
    await p.end();
  });

  it('shows a session id held by two files once: the live record wins over a stale one', async () => {
    reg = tempRegistry();
    const live = spawnSleep();
    const dead = spawnSleep();
    reg.write(live.pid, { sessionId: 'resumed', statusUpdatedAt: 1 });
    reg.write(dead.pid, { sessionId: 'resumed', statusUpdatedAt: 2 });
    await dead.end();
    expect(snapshot(reg.configDir).sessions.resumed).toMatchObject({ pid: live.pid, live: true });
    await live.end();
  });

  it('keeps a session id such as __proto__ as an ordinary key', async () => {
    reg = tempRegistry();
    const p = spawnSleep();
    reg.write(p.pid, { sessionId: '__proto__' });
    const snap = snapshot(reg.configDir);
    const parsed = JSON.parse(JSON.stringify(snap)).sessions; // JSON.parse makes "__proto__" an own key
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toMatchObject({ pid: p.pid });
    expect(Object.getPrototypeOf(snap.sessions)).toBe(null);
    await p.end();
  });

  it('is an empty registry for a missing folder', () => {
    expect(snapshot('/nonexistent/claude-ps-test').sessions).toEqual({});
  });
});

describe('writeSnapshot', () => {
  it('replaces the file with mode 0600 and leaves no temp file', () => {
    reg = tempRegistry();
    const file = join(reg.configDir, 'out', 'snapshot.json');
    mkdirSync(join(reg.configDir, 'out'));
    writeFileSync(file, 'old', { mode: 0o644 });
    const data = snapshot(reg.configDir);
    writeSnapshot(file, data);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(data)));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(reg.configDir, 'out'))).toEqual(['snapshot.json']);
  });

  it('removes its temp file and throws when the rename fails', () => {
    reg = tempRegistry();
    const target = join(reg.configDir, 'out', 'is-a-dir');
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'keep'), '');
    expect(() => writeSnapshot(target, snapshot(reg!.configDir))).toThrow();
    expect(readdirSync(join(reg.configDir, 'out'))).toEqual(['is-a-dir']);
  });

  it('throws for a missing folder without creating anything, and for programmer errors', () => {
    expect(() => writeSnapshot('/nonexistent/claude-ps-test/s.json', snapshot('/nonexistent'))).toThrow(/ENOENT/);
    expect(() => writeSnapshot('', snapshot('/nonexistent'))).toThrow(TypeError);
    expect(() => writeSnapshot('/tmp/x.json', null as never)).toThrow(TypeError);
  });
});
