/**
 * "Does this PID exist": `kill(pid, 0)` through Node's raw `process._kill` (an errno, no Error per dead
 * PID), or the public `process.kill` where a runtime has no raw one; and the Linux JS backend, which
 * reads no start token from a /proc of another PID namespace.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { killZero, killZeroPublic } from '../../lib/backend/kill.js';
import { procIsOurs } from '../../lib/backend/js-linux.js';
import { hasUnshare, isRoot, ownThreadId, reapedPid, spawnSleep } from '../helpers/processes.js';

describe('killZero (kill(pid, 0) through Node)', () => {
  it('says exists for live processes and threads, and not for reaped or impossible PIDs', async () => {
    const live = spawnSleep();
    const pids = [process.pid, live.pid, reapedPid(), 2147483000, ownThreadId()];
    expect(pids.map(killZero)).toEqual([true, true, false, false, true]);
    await live.end();
  });

  it('says exists on EPERM (PID 1 as seen by any user is not ESRCH)', () => {
    expect(killZero(1)).toBe(true);
  });

  it('answers the same through the public process.kill, the path where a runtime has no raw kill', async () => {
    const live = spawnSleep();
    const pids = [process.pid, live.pid, reapedPid(), 2147483000, ownThreadId(), 1];
    expect(pids.map(killZeroPublic)).toEqual([true, true, false, false, true, true]);
    expect(pids.map(killZeroPublic)).toEqual(pids.map(killZero));
    await live.end();
  });
});

describe('procIsOurs', () => {
  it('is true here, where /proc is mounted for our own PID namespace', () => {
    expect(procIsOurs()).toBe(true);
  });
});

// unshare --pid without --mount: the child's /proc still numbers the parent namespace's processes.
describe.skipIf(!isRoot || !hasUnshare)('a /proc of another PID namespace', () => {
  it('the JS backend reads no token from it: its own PID is unverified, a PID only the other namespace has is gone', () => {
    const script = fileURLToPath(new URL('../fixtures/probe-as-user.mjs', import.meta.url));
    for (const pid of [1, process.pid]) {
      const out = spawnSync('unshare', ['--pid', '--fork', process.execPath, script, String(pid)], {
        encoding: 'utf8',
        env: { ...process.env, CLAUDE_PS_BACKEND: 'js' },
        timeout: 20_000,
      });
      expect(out.stderr).toBe('');
      const answer = JSON.parse(out.stdout) as { killCode: string; result: { state: string; token: string | null } };
      // Inside, node is PID 1 and nothing else exists; outside, /proc/1 is init and /proc/<ours> is us.
      if (pid === 1) {
        expect(answer.killCode).toBe('OK');
        expect(answer.result).toEqual({ pid: 1, state: 'unverified', token: null });
      } else {
        expect(answer.killCode).toBe('ESRCH');
        expect(answer.result).toEqual({ pid, state: 'gone', token: null });
      }
    }
  });
});

describe('killZero and the caller’s Error settings', () => {
  it('leaves Error.stackTraceLimit as it found it, and still answers where Error is frozen', () => {
    const before = Error.stackTraceLimit;
    Error.stackTraceLimit = 7;
    try {
      expect([killZero(process.pid), killZero(reapedPid())]).toEqual([true, false]);
      expect([killZeroPublic(process.pid), killZeroPublic(reapedPid())]).toEqual([true, false]);
      expect(Error.stackTraceLimit).toBe(7);
    } finally {
      Error.stackTraceLimit = before;
    }
    // A frozen Error (as under a hardened runtime): the limit cannot be set, the answers stay right.
    // The ps backend asks killZero for every PID before it spawns ps.
    const lib = JSON.stringify(fileURLToPath(new URL('../../dist/index.cjs', import.meta.url)));
    const gone = reapedPid();
    const script = `"use strict"; Object.freeze(Error); const { probe } = require(${lib});
      process.stdout.write(JSON.stringify(probe([process.pid, ${gone}]).map((r) => r.state)));`;
    const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, CLAUDE_PS_BACKEND: 'ps' } });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual(['alive', 'gone']);
  });
});
