/**
 * The `ps` backend against real processes of our own, on Linux's procps `ps` (same columns as macOS):
 * live, reaped, zombie, out-of-range and invalid PIDs, its tokens byte-for-byte what
 * `LC_ALL=C TZ=UTC ps -o lstart= -p PID` prints, and agreement with the native and JS backends.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, probe, resetBackend, type ProbeResult } from '../../lib/backend/index.js';
import { defaultPsOptions, psProbeInto, type PsOptions } from '../../lib/backend/ps.js';
import { STATE_NAMES } from '../../lib/backend/types.js';
import { endAll, ownThreadId, reapedPid, spawnSleep, spawnZombie } from '../helpers/processes.js';

const PID_MAX = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));

/** What Claude Code records on macOS, produced here by procps for the same process. */
function psLstart(pid: number): string | undefined {
  const run = spawnSync(defaultPsOptions().command, ['-o', 'lstart=', '-p', String(pid)], {
    encoding: 'utf8',
    env: { LC_ALL: 'C', TZ: 'UTC' },
  });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

function probeWith(name: 'ps' | 'js' | 'native', pids: number[]): ProbeResult[] {
  process.env.CLAUDE_PS_BACKEND = name;
  resetBackend();
  try {
    return probe(pids);
  } finally {
    delete process.env.CLAUDE_PS_BACKEND;
    resetBackend();
  }
}

/** psProbeInto with explicit options → state names and raw tokens. */
function probeRaw(pids: number[], options: Partial<PsOptions>): Array<{ state: string; token: number }> {
  const states = new Uint8Array(pids.length);
  const tokens = new Float64Array(pids.length);
  psProbeInto(Int32Array.from(pids), states, tokens, { ...defaultPsOptions(), ...options });
  return pids.map((_, i) => ({ state: STATE_NAMES[states[i]!]!, token: tokens[i]! }));
}

let scratch: string;
/** A stand-in `ps` (a shell script) for the failures Linux's own ps will not produce on demand. */
function fakePs(name: string, body: string): string {
  const path = join(scratch, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Zombie children of this test process (a ps the backend failed to reap would show up here). */
function ownZombieChildren(): number[] {
  const zombies: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const line = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' && Number(fields[1]) === process.pid) zombies.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return zombies;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cps-ps-'));
});
afterAll(async () => {
  await endAll();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the ps backend on real processes', () => {
  it('is selected by CLAUDE_PS_BACKEND=ps', () => {
    process.env.CLAUDE_PS_BACKEND = 'ps';
    resetBackend();
    expect(backend()).toEqual({ name: 'ps', reason: 'CLAUDE_PS_BACKEND=ps' });
    delete process.env.CLAUDE_PS_BACKEND;
    resetBackend();
  });

  it('reads a live process with the lstart token ps prints for it, and gone once reaped', async () => {
    const p = spawnSleep();
    const [result] = probeWith('ps', [p.pid]);
    expect(result).toEqual({ pid: p.pid, state: 'alive', token: psLstart(p.pid) });
    expect(result!.token).toMatch(/^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 1-3][0-9] \d\d:\d\d:\d\d \d{4}$/);
    await p.end();
    expect(probeWith('ps', [p.pid])[0]!.state).toBe('gone');
  });

  it('reports a zombie with its token', async () => {
    const z = await spawnZombie();
    expect(probeWith('ps', [z.zombiePid])[0]).toEqual({ pid: z.zombiePid, state: 'zombie', token: psLstart(z.zombiePid) });
    await z.end();
  });

  it('says gone for a reaped PID and one above pid_max, invalid for 0 and -1', () => {
    const reaped = reapedPid();
    expect(probeWith('ps', [reaped, PID_MAX + 1, 0, -1]).map((r) => r.state)).toEqual(['gone', 'gone', 'invalid', 'invalid']);
  });

  it('reads the kernel pid_max on Linux', () => {
    expect(defaultPsOptions().pidMax).toBe(PID_MAX);
  });

  it.each(['js', 'native'] as const)('agrees with the %s backend on live, dead and zombie in one batch', async (other) => {
    const live = spawnSleep();
    const ended = spawnSleep();
    await ended.end();
    const z = await spawnZombie();
    const pids = [live.pid, ended.pid, z.zombiePid, z.pid, process.pid, reapedPid(), PID_MAX + 1, 0, -1, live.pid];
    const viaPs = probeWith('ps', pids);
    const viaOther = probeWith(other, pids);
    expect(viaPs.map((r) => r.state)).toEqual(viaOther.map((r) => r.state));
    expect(viaPs.map((r) => r.state)).toEqual(['alive', 'gone', 'zombie', 'alive', 'alive', 'gone', 'gone', 'invalid', 'invalid', 'alive']);
    for (const r of viaPs) if (r.state === 'alive' || r.state === 'zombie') expect(r.token).toBe(psLstart(r.pid));
    await Promise.all([live.end(), z.end()]);
  });

  it('gives the same answer when the batch is split into chunks', async () => {
    const procs = [spawnSleep(), spawnSleep(), spawnSleep(), spawnSleep(), spawnSleep()];
    const pids = [...procs.map((p) => p.pid), reapedPid()];
    const whole = probeRaw(pids, {});
    expect(probeRaw(pids, { chunkSize: 2 })).toEqual(whole);
    expect(whole.map((r) => r.state)).toEqual(['alive', 'alive', 'alive', 'alive', 'alive', 'gone']);
    await Promise.all(procs.map((p) => p.end()));
  });

  it('keeps a thread ID (kill answers, ps -p does not list it) unverified, never gone', () => {
    expect(probeRaw([ownThreadId()], {})[0]!.state).toBe('unverified');
  });
});

describe('the ps backend when ps itself fails', () => {
  // Existing PIDs must stay unverified (kill says they exist); dead ones are still gone (kill says so).
  async function expectUnverified(options: Partial<PsOptions>): Promise<void> {
    const live = spawnSleep();
    const z = await spawnZombie();
    const reaped = reapedPid();
    const result = probeRaw([live.pid, z.zombiePid, reaped, 0], options);
    expect(result.map((r) => r.state)).toEqual(['unverified', 'unverified', 'gone', 'invalid']);
    expect(result.every((r) => Number.isNaN(r.token))).toBe(true);
    await Promise.all([live.end(), z.end()]);
  }

  it('ps missing (ENOENT)', async () => {
    await expectUnverified({ command: join(scratch, 'no-such-ps') });
  });

  it('ps exits 1 with a message on stderr', async () => {
    await expectUnverified({ command: fakePs('ps-error', 'echo "ps: something broke" >&2; exit 1') });
  });

  it('ps exits with another status', async () => {
    await expectUnverified({ command: fakePs('ps-status', 'exit 2') });
  });

  it('ps hangs: killed at the timeout and reaped, no zombie left behind', async () => {
    await expectUnverified({ command: fakePs('ps-hang', 'exec sleep 30'), timeoutMs: 100 });
    expect(ownZombieChildren()).toEqual([]);
  });

  it('ps says none exist (exit 1, silent) while kill still answers: unverified, never gone', async () => {
    await expectUnverified({ command: fakePs('ps-none', 'exit 1') });
  });

  it('a failed chunk stops further spawns but keeps the rows of chunks that worked', async () => {
    const a = spawnSleep();
    const b = spawnSleep();
    // Works for the first call only (a marker file), then disappears as if ps went missing.
    const marker = join(scratch, 'once');
    const real = defaultPsOptions().command;
    const command = fakePs('ps-once', `[ -e ${marker} ] && exit 127; : > ${marker}; exec ${real} "$@"`);
    const result = probeRaw([a.pid, b.pid], { command, chunkSize: 1 });
    expect(result.map((r) => r.state)).toEqual(['alive', 'unverified']);
    await Promise.all([a.end(), b.end()]);
  });
});

describe('the ps backend reading macOS-shaped output (a stand-in ps in the BSD layout, real kill answers)', () => {
  it('alive with the printed token, zombie from STAT, unlisted-but-existing unverified, dead gone', async () => {
    const listed = spawnSleep();
    const unlisted = spawnSleep();
    const z = await spawnZombie();
    const reaped = reapedPid();
    const args = join(scratch, 'bsd-args');
    // Apple's layout (test/proc/ps-output.test.ts): %5d, STAT in 4 columns, lstart in 28; one PID missing.
    const command = fakePs(
      'ps-bsd',
      [
        `printf '%s|%s|%s\\n' "$*" "$TZ" "$LC_ALL" > ${args}`,
        `printf '%5d %-4s %-28s\\n' ${listed.pid} 'Ss' 'Fri Jan  1 00:00:00 2027' ${z.zombiePid} 'Z' 'Thu Dec 31 23:59:59 2026'`,
      ].join('\n'),
    );
    const result = probeRaw([listed.pid, unlisted.pid, z.zombiePid, reaped, listed.pid], { command });
    expect(result).toEqual([
      { state: 'alive', token: Date.UTC(2027, 0, 1) / 1000 },
      { state: 'unverified', token: Number.NaN },
      { state: 'zombie', token: Date.UTC(2026, 11, 31, 23, 59, 59) / 1000 },
      { state: 'gone', token: Number.NaN },
      { state: 'alive', token: Date.UTC(2027, 0, 1) / 1000 },
    ]);
    // One spawn, each existing PID once, the fixed columns and environment.
    expect(readFileSync(args, 'utf8')).toBe(`-o pid=,stat=,lstart= -p ${listed.pid},${unlisted.pid},${z.zombiePid}|UTC|C\n`);
    await Promise.all([listed.end(), unlisted.end(), z.end()]);
  });

  it("macOS's answer to a PID above 99999 (a message, exit 1, no rows): unverified, never gone", async () => {
    const live = spawnSleep();
    const command = fakePs('ps-bsd-large', 'echo "ps: process id too large: 100000" >&2; exit 1');
    expect(probeRaw([live.pid], { command }).map((r) => r.state)).toEqual(['unverified']);
    await live.end();
  });
});
