/**
 * The darwin probe's decisions (native/darwin_state.h) on Linux: a small C++ driver compiled with g++
 * feeds it injected kill(pid, 0) and sysctl(KERN_PROC_PID) answers, since no macOS exists here.
 * The two system calls themselves (native/probe_darwin.cc) run only on macOS; `npm run check:darwin`
 * compiles them against Apple's headers here.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenString } from '../../lib/backend/index.js';
import { STATE_NAMES } from '../../lib/backend/types.js';
import { compileDriver, hasGxx, type Driver } from '../helpers/cxx-driver.js';

// errno values (Linux and macOS agree on these three).
const EPERM = 1;
const ESRCH = 3;
const EINTR = 4;
const ENOMEM = 12;
const KINFO = 648; // sizeof(struct kinfo_proc) on macOS; any fixed value serves the fake
const SRUN = 2;
const SZOMB = 5;
const START = 1794217730;

interface Query {
  rc?: number;
  errno?: number;
  length?: number;
  pStat?: number;
  start?: number;
}
interface Case {
  pid: number;
  kills?: number[];
  queries?: Query[];
}

let driver: Driver;

function run(cases: Case[]): Array<{ state: string; token: string | undefined; kills: number; queries: number }> {
  const input = cases
    .map(({ pid, kills = [], queries = [] }) => {
      const q = queries.map((x) => [x.rc ?? 0, x.errno ?? 0, x.length ?? KINFO, KINFO, x.pStat ?? SRUN, x.start ?? START].join(':'));
      return `${pid} ${kills.join(',') || '-'} ${q.join(';') || '-'}`;
    })
    .join('\n');
  return driver
    .run(`${input}\n`)
    .trimEnd()
    .split('\n')
    .map((line) => {
      const [state, token, kills, queries] = line.split(' ');
      return {
        state: STATE_NAMES[Number(state)]!,
        // The facade's own conversion: epoch seconds → the lstart text Claude Code records.
        token: tokenString('lstart', token === 'nan' ? Number.NaN : Number(token)),
        kills: Number(kills),
        queries: Number(queries),
      };
    });
}

describe.skipIf(!hasGxx)('darwin probe decisions (darwin_state.h, injected answers)', () => {
  beforeAll(() => {
    driver = compileDriver(join(import.meta.dirname, 'darwin-state.cc'), 'darwin-state');
  }, 130_000);
  afterAll(() => driver?.remove());

  it('never makes a system call for PID 0 or below', () => {
    expect(run([{ pid: 0 }, { pid: -1 }, { pid: -2147483648 }])).toEqual([
      { state: 'invalid', token: undefined, kills: 0, queries: 0 },
      { state: 'invalid', token: undefined, kills: 0, queries: 0 },
      { state: 'invalid', token: undefined, kills: 0, queries: 0 },
    ]);
  });

  it('ESRCH from kill: gone, and sysctl is not asked', () => {
    expect(run([{ pid: 42, kills: [ESRCH] }])).toEqual([{ state: 'gone', token: undefined, kills: 1, queries: 0 }]);
  });

  it('a running process: alive, with its start second formatted as lstart', () => {
    expect(run([{ pid: 42, kills: [0], queries: [{}] }])).toEqual([
      { state: 'alive', token: 'Mon Nov  9 09:48:50 2026', kills: 1, queries: 1 },
    ]);
  });

  it('EPERM from kill (another user): the process exists, sysctl still reads it', () => {
    expect(run([{ pid: 42, kills: [EPERM], queries: [{ start: 0 }] }])).toEqual([
      { state: 'alive', token: 'Thu Jan  1 00:00:00 1970', kills: 1, queries: 1 },
    ]);
  });

  it('p_stat SZOMB: zombie, keeping its start token', () => {
    expect(run([{ pid: 42, kills: [0], queries: [{ pStat: SZOMB }] }])).toEqual([
      { state: 'zombie', token: 'Mon Nov  9 09:48:50 2026', kills: 1, queries: 1 },
    ]);
  });

  it('sysctl returns length 0 (exited after kill): gone', () => {
    expect(run([{ pid: 42, kills: [0], queries: [{ length: 0 }] }])[0]).toMatchObject({ state: 'gone', token: undefined });
  });

  it('sysctl fails for an existing PID: unverified, never gone', () => {
    expect(run([{ pid: 42, kills: [0], queries: [{ rc: -1, errno: ENOMEM, length: 0 }] }])[0]).toMatchObject({
      state: 'unverified',
      token: undefined,
    });
  });

  it('a short kinfo_proc: unverified, no token', () => {
    expect(run([{ pid: 42, kills: [0], queries: [{ length: KINFO - 8 }] }])[0]).toMatchObject({ state: 'unverified', token: undefined });
  });

  it('retries both calls on EINTR', () => {
    expect(run([{ pid: 42, kills: [EINTR, EINTR, 0], queries: [{ rc: -1, errno: EINTR }, { rc: -1, errno: EINTR }, {}] }])).toEqual([
      { state: 'alive', token: 'Mon Nov  9 09:48:50 2026', kills: 3, queries: 3 },
    ]);
  });

  it('start times past 2038 survive the double conversion', () => {
    expect(run([{ pid: 99999, kills: [0], queries: [{ start: 4294967296 }] }])[0]!.token).toBe('Sun Feb  7 06:28:16 2106');
  });
});
