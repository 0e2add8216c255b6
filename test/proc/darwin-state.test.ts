/**
 * The darwin probe's decisions (native/darwin_state.h) on Linux: a small C++ driver compiled with g++
 * feeds it injected kill(pid, 0) and sysctl(KERN_PROC_PID) answers, since no macOS exists here.
 * The two system calls themselves (native/probe_darwin.cc) are only compiled and run on macOS.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenString } from '../../lib/backend/index.js';
import { STATE_NAMES } from '../../lib/backend/types.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const hasGxx = spawnSync('g++', ['--version']).status === 0;

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

let dir: string;
let driver: string;

function run(cases: Case[]): Array<{ state: string; token: string | undefined; kills: number; queries: number }> {
  const input = cases
    .map(({ pid, kills = [], queries = [] }) => {
      const q = queries.map((x) => [x.rc ?? 0, x.errno ?? 0, x.length ?? KINFO, KINFO, x.pStat ?? SRUN, x.start ?? START].join(':'));
      return `${pid} ${kills.join(',') || '-'} ${q.join(';') || '-'}`;
    })
    .join('\n');
  const out = spawnSync(driver, [], { input: `${input}\n`, encoding: 'utf8', timeout: 10_000 });
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  return out.stdout
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
    dir = mkdtempSync(join(tmpdir(), 'ccs-darwin-'));
    driver = join(dir, 'darwin-state');
    const cc = spawnSync(
      'g++',
      ['-std=c++17', '-O1', '-Wall', '-Wextra', '-Werror', '-I', join(root, 'native'), join(here, 'darwin-state.cc'), '-o', driver],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(cc.stderr).toBe('');
    expect(cc.status).toBe(0);
  }, 130_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
