/**
 * The win32 probe's decisions (native/win32_state.h) on Linux: a small C++ driver compiled with g++
 * feeds it injected OpenProcess / GetProcessId / WaitForSingleObject / GetExitCodeProcess /
 * GetProcessTimes answers, including the ones Wine cannot produce (ERROR_ACCESS_DENIED). The calls
 * themselves (native/probe_win32.cc) run under Wine in `npm run test:windows` (test/windows/).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenAt } from '../../lib/backend/index.js';
import { STATE_NAMES } from '../../lib/backend/types.js';
import { decideVerdict } from '../../lib/registry/verdict.js';
import { compileDriver, hasGxx, type Driver } from '../helpers/cxx-driver.js';

const ERROR_ACCESS_DENIED = 5;
const ERROR_INVALID_PARAMETER = 87;
const ERROR_NOT_ENOUGH_MEMORY = 8;
const STILL_ACTIVE = 259;
const NOT_ASKED = 0;
const SIGNALED = 1;
const TIMEOUT = 2;
const WAIT_FAILED = 3;
// A creation FILETIME of 2026-12-01, past 2^53: a double would round it to a multiple of 16.
const CREATION = 134090721234567891n;

interface Answer {
  openError?: number;
  actualPid?: number;
  wait?: number;
  exitOk?: boolean;
  exitCode?: number;
  timesOk?: boolean;
  creation?: bigint;
}

let driver: Driver;

function run(pid: number, a: Answer = {}): { state: string; token: string | undefined; calls: number } {
  const line = [
    pid,
    a.openError ?? 0,
    a.actualPid ?? pid,
    a.wait ?? TIMEOUT,
    a.exitOk === false ? 0 : 1,
    a.exitCode ?? STILL_ACTIVE,
    a.timesOk === false ? 0 : 1,
    a.creation ?? CREATION,
  ].join(' ');
  const [state, bits, calls] = driver.run(`${line}\n`).trim().split(' ');
  // The facade's own reading of the slot: its 64 bits, as a decimal integer.
  const slot = new Float64Array(1);
  new BigUint64Array(slot.buffer)[0] = BigInt(bits!);
  return { state: STATE_NAMES[Number(state)]!, token: tokenAt('filetime', slot, 0), calls: Number(calls) };
}

describe.skipIf(!hasGxx)('win32 probe decisions (win32_state.h, injected answers)', () => {
  beforeAll(() => {
    driver = compileDriver(join(import.meta.dirname, 'win32-state.cc'), 'win32-state');
  }, 130_000);
  afterAll(() => driver?.remove());

  it('never makes a call for PID 0 or below', () => {
    for (const pid of [0, -4, -2147483648]) expect(run(pid)).toEqual({ state: 'invalid', token: undefined, calls: 0 });
  });

  it('a running process: alive, with its creation FILETIME exact to the last digit', () => {
    expect(run(1234)).toEqual({ state: 'alive', token: '134090721234567891', calls: 1 });
    expect(run(1234, { creation: CREATION + 1n }).token).toBe('134090721234567892');
  });

  it('ERROR_INVALID_PARAMETER from OpenProcess: no such process, gone', () => {
    expect(run(1234, { openError: ERROR_INVALID_PARAMETER })).toEqual({ state: 'gone', token: undefined, calls: 1 });
  });

  it('ERROR_ACCESS_DENIED: a process exists that we may not query, unverified, never gone', () => {
    expect(run(1234, { openError: ERROR_ACCESS_DENIED })).toEqual({ state: 'unverified', token: undefined, calls: 1 });
  });

  it('any other OpenProcess failure proves nothing: unverified', () => {
    expect(run(1234, { openError: ERROR_NOT_ENOUGH_MEMORY }).state).toBe('unverified');
  });

  it('a handle on another PID (Windows ignores the two low bits): no process has this one, gone', () => {
    expect(run(1001, { actualPid: 1000 })).toEqual({ state: 'gone', token: undefined, calls: 1 });
  });

  it('GetProcessId failing: unverified', () => {
    expect(run(1000, { actualPid: 0 }).state).toBe('unverified');
  });

  it('the handle is signaled: exited, held open by someone, provably dead (zombie) with its token', () => {
    expect(run(1000, { wait: SIGNALED, exitCode: 0 })).toEqual({ state: 'zombie', token: '134090721234567891', calls: 1 });
    // Exit code 259 (STILL_ACTIVE) does not fool the wait.
    expect(run(1000, { wait: SIGNALED, exitCode: STILL_ACTIVE }).state).toBe('zombie');
  });

  it('the wait says running: the exit code is not consulted', () => {
    expect(run(1000, { wait: TIMEOUT, exitOk: false }).state).toBe('alive');
  });

  it('no SYNCHRONIZE right (or the wait failed): the exit code decides', () => {
    for (const wait of [NOT_ASKED, WAIT_FAILED]) {
      expect(run(1000, { wait, exitCode: 1 }).state).toBe('zombie');
      expect(run(1000, { wait, exitCode: STILL_ACTIVE }).state).toBe('alive');
      expect(run(1000, { wait, exitOk: false })).toEqual({ state: 'unverified', token: undefined, calls: 1 });
    }
  });

  it('GetProcessTimes failing, or a zero creation time: unverified for a running process, still dead for an exited one', () => {
    expect(run(1000, { timesOk: false })).toEqual({ state: 'unverified', token: undefined, calls: 1 });
    expect(run(1000, { creation: 0n })).toEqual({ state: 'unverified', token: undefined, calls: 1 });
    expect(run(1000, { wait: SIGNALED, timesOk: false })).toEqual({ state: 'zombie', token: undefined, calls: 1 });
  });

  it('the measured token against recorded ones: equal alive, one tick off recycled, .NET ticks of the same instant alive', () => {
    const { state, token } = run(1000);
    expect(decideVerdict('134090721234567891', state as 'alive', token)).toBe('alive');
    expect(decideVerdict('134090721234567890', state as 'alive', token)).toBe('recycled');
    expect(decideVerdict('134090721234567892', state as 'alive', token)).toBe('recycled');
    // Claude Code's PowerShell fallback: .NET ticks = FILETIME + 504911232000000000, cut to the microsecond.
    const dotnet = (CREATION / 10n) * 10n + 504911232000000000n;
    expect(decideVerdict(dotnet.toString(), state as 'alive', token)).toBe('alive');
    expect(decideVerdict((dotnet + 10n).toString(), state as 'alive', token)).toBe('recycled');
  });
});
