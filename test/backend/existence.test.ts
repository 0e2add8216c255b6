/**
 * "Does this PID exist" without private Node APIs: `kill(pid, 0)` through the public `process.kill`,
 * and the Linux JS backend's procfs answer, which must equal kill's wherever it is trusted and give
 * way to kill (or to `unverified`) where /proc hides processes or numbers another PID namespace.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { killZero } from '../../lib/backend/kill.js';
import { procfsTrust, procMountShowsAll } from '../../lib/backend/js-linux.js';
import { hasUnshare, isRoot, ownThreadId, reapedPid, spawnSleep } from '../helpers/processes.js';

describe('killZero (process.kill, public API)', () => {
  it('says exists for live processes and threads, and not for reaped or impossible PIDs', async () => {
    const live = spawnSleep();
    const pids = [process.pid, live.pid, reapedPid(), 2147483000, ownThreadId()];
    expect(pids.map(killZero)).toEqual([true, true, false, false, true]);
    await live.end();
  });

  it('says exists on EPERM (PID 1 as seen by any user is not ESRCH)', () => {
    expect(killZero(1)).toBe(true);
  });
});

const line = (mountPoint: string, type: string, superOptions: string): string =>
  `22 27 0:21 / ${mountPoint} rw,relatime shared:12 - ${type} ${type} ${superOptions}`;

describe('procMountShowsAll (mountinfo → may a missing /proc/<pid> mean ESRCH)', () => {
  it('trusts a plain procfs at /proc', () => {
    expect(procMountShowsAll(`${line('/', 'ext4', 'rw')}\n${line('/proc', 'proc', 'rw')}\n`)).toBe(true);
    expect(procMountShowsAll(line('/proc', 'proc', 'rw,hidepid=0'))).toBe(true);
    expect(procMountShowsAll(line('/proc', 'proc', 'rw,hidepid=off,subset=pid'))).toBe(true);
  });

  it.each(['hidepid=1', 'hidepid=2', 'hidepid=4', 'hidepid=invisible', 'hidepid=noaccess', 'hidepid=ptraceable'])(
    'does not trust absence under %s',
    (option) => {
      expect(procMountShowsAll(line('/proc', 'proc', `rw,${option},gid=0`))).toBe(false);
    },
  );

  it('follows the top of stacked mounts, and refuses a /proc that is not procfs or not mounted', () => {
    expect(procMountShowsAll(`${line('/proc', 'proc', 'rw')}\n${line('/proc', 'proc', 'rw,hidepid=2')}`)).toBe(false);
    expect(procMountShowsAll(`${line('/proc', 'proc', 'rw,hidepid=2')}\n${line('/proc', 'proc', 'rw')}`)).toBe(true);
    expect(procMountShowsAll(line('/proc', 'tmpfs', 'rw'))).toBe(false);
    expect(procMountShowsAll(line('/proc/sys', 'proc', 'rw'))).toBe(false);
    expect(procMountShowsAll('')).toBe(false);
    expect(procMountShowsAll('garbage\n\n - - -')).toBe(false);
  });

  it('decides this machine as its own mountinfo says', () => {
    const expected = procMountShowsAll(readFileSync('/proc/self/mountinfo', 'latin1')) ? 'all' : 'tokens';
    expect(procfsTrust()).toBe(expected);
  });
});

// unshare --pid without --mount: the child's /proc still numbers the parent namespace's processes.
describe.skipIf(!isRoot || !hasUnshare)('a /proc of another PID namespace', () => {
  it('the JS backend reads no token from it: its own PID is unverified, a PID only the other namespace has is gone', () => {
    const script = fileURLToPath(new URL('../fixtures/probe-as-user.mjs', import.meta.url));
    for (const pid of [1, process.pid]) {
      const out = spawnSync('unshare', ['--pid', '--fork', process.execPath, script, String(pid)], {
        encoding: 'utf8',
        env: { ...process.env, CC_SESSIONS_BACKEND: 'js' },
        timeout: 20_000,
      });
      expect(out.stderr).toBe('');
      const answer = JSON.parse(out.stdout) as { killCode: string; result: { state: string; token?: string } };
      // Inside, node is PID 1 and nothing else exists; outside, /proc/1 is init and /proc/<ours> is us.
      if (pid === 1) {
        expect(answer.killCode).toBe('OK');
        expect(answer.result).toEqual({ pid: 1, state: 'unverified' });
      } else {
        expect(answer.killCode).toBe('ESRCH');
        expect(answer.result).toEqual({ pid, state: 'gone' });
      }
    }
  });
});
