/** One suite, run against every Linux backend: the native addon and its pure-JS twin. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backend, pidExists, probe, probeBackend, processStartToken, resetBackend } from '../../lib/backend/index.js';
import {
  endAll,
  hasSetpriv,
  hasUnshare,
  isRoot,
  ownThreadId,
  procStartTicks,
  reapedPid,
  spawnNamed,
  spawnSleep,
  spawnZombie,
} from '../helpers/processes.js';

const backends = ['native', 'js'] as const;

afterAll(endAll);

describe.each(backends)('probe with the %s backend', (name) => {
  beforeAll(() => {
    process.env.CLAUDE_PS_BACKEND = name;
    resetBackend();
  });
  afterEach(() => {
    process.env.CLAUDE_PS_BACKEND = name;
  });
  afterAll(() => {
    delete process.env.CLAUDE_PS_BACKEND;
    resetBackend();
  });

  it('is the backend it was asked for', () => {
    expect(backend().name).toBe(name);
  });

  it('reads a live process and its start token', async () => {
    const p = spawnSleep();
    const [result] = probe([p.pid]);
    expect(result).toEqual({ pid: p.pid, state: 'alive', token: procStartTicks(p.pid) });
    expect(result!.token).toMatch(/^[1-9][0-9]*$/);
    expect(pidExists(p.pid)).toBe(true);
    expect(processStartToken(p.pid)).toBe(result!.token);
    await p.end();
    expect(probe([p.pid])[0]!.state).toBe('gone');
    expect(pidExists(p.pid)).toBe(false);
  });

  it('counts fields after the last ")" when the command name holds ")", spaces and a newline', async () => {
    const p = spawnNamed('x) (y\nz ) 1');
    // The naive split on the first ')' would read field 22 from the wrong place.
    expect(probe([p.pid])[0]).toEqual({ pid: p.pid, state: 'alive', token: procStartTicks(p.pid) });
    await p.end();
  });

  it('reports a zombie, with its token, and gone once it is reaped', async () => {
    const z = await spawnZombie();
    const [result] = probe([z.zombiePid]);
    expect(result!.state).toBe('zombie');
    expect(result!.token).toBe(procStartTicks(z.zombiePid));
    await z.end();
    // Ending the parent hands the zombie to init, which reaps it.
    const deadline = Date.now() + 5000;
    while (probe([z.zombiePid])[0]!.state !== 'gone' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(probe([z.zombiePid])[0]!.state).toBe('gone');
  });

  it('reports a reaped PID as gone, without a token', () => {
    const pid = reapedPid();
    expect(probe([pid])).toEqual([{ pid, state: 'gone', token: null }]);
  });

  it('reads a thread ID like a process, with the thread’s own start token', () => {
    const tid = ownThreadId();
    const [result] = probe([tid]);
    expect(result!.state).toBe('alive');
    expect(result!.token).toBe(procStartTicks(tid));
  });

  it('never probes PID ≤ 0 or non-integers, and knows PIDs above 2^31-1 cannot exist', () => {
    expect(probe([0, -1, -2147483648, NaN, 1.5, Infinity, 2 ** 31, 2 ** 53]).map((r) => r.state)).toEqual([
      'invalid',
      'invalid',
      'invalid',
      'invalid',
      'invalid',
      'invalid',
      'gone',
      'gone',
    ]);
  });

  it('gives every result a token key, null when there is none, as the README documents', () => {
    const a = spawnSleep();
    const results = probe([0, 1.5, 2 ** 31, reapedPid(), a.pid]);
    for (const r of results) expect(Object.keys(r).sort()).toEqual(['pid', 'state', 'token']);
    expect(results.slice(0, 4).map((r) => r.token)).toEqual([null, null, null, null]);
    expect(results[4]!.token).toMatch(/^[1-9][0-9]*$/);
    expect(JSON.parse(JSON.stringify(results[1]))).toEqual({ pid: 1.5, state: 'invalid', token: null });
    return a.end();
  });

  it('answers an empty batch with an empty array', () => {
    expect(probe([])).toEqual([]);
    const raw = probeBackend();
    expect(() => raw.probeInto(new Int32Array(0), new Uint8Array(0), new Float64Array(0))).not.toThrow();
  });

  it('keeps input order and handles duplicates in one batch', async () => {
    const a = spawnSleep();
    const gone = reapedPid();
    const results = probe([a.pid, gone, a.pid, 0]);
    expect(results.map((r) => [r.pid, r.state])).toEqual([
      [a.pid, 'alive'],
      [gone, 'gone'],
      [a.pid, 'alive'],
      [0, 'invalid'],
    ]);
    await a.end();
  });

  it('throws a clear error for programmer errors, never for PID values', () => {
    expect(() => probe('123' as unknown as number[])).toThrow(TypeError);
    expect(() => probe(['123'] as unknown as number[])).toThrow(/pids\[0\]/);
    const raw = probeBackend();
    expect(() => raw.probeInto([1] as unknown as Int32Array, new Uint8Array(1), new Float64Array(1))).toThrow(TypeError);
    expect(() => raw.probeInto(new Int32Array(2), new Uint8Array(1), new Float64Array(2))).toThrow(RangeError);
  });

  it.skipIf(!isRoot || !hasSetpriv)('treats EPERM from kill as existing (probed as another user)', async () => {
    const p = spawnSleep();
    const script = fileURLToPath(new URL('../fixtures/probe-as-user.mjs', import.meta.url));
    const out = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, script, String(p.pid)],
      { encoding: 'utf8', env: { ...process.env, CLAUDE_PS_BACKEND: name } },
    );
    expect(out.stderr).toBe('');
    const answer = JSON.parse(out.stdout) as { uid: number; killCode: string; result: unknown };
    expect(answer.uid).toBe(65534);
    expect(answer.killCode).toBe('EPERM');
    // Without hidepid the stat stays readable, so the root-owned sleep is alive with its token.
    expect(answer.result).toEqual({ pid: p.pid, state: 'alive', token: procStartTicks(p.pid) });
    await p.end();
  });
});

describe.skipIf(!isRoot || !hasSetpriv || !hasUnshare)('hidepid (a private PID namespace with its own /proc)', () => {
  it.each(['native', 'js', 'ps'])(
    'the %s backend says unverified, never gone, where the stat is hidden but kill says EPERM',
    (name) => {
      const script = fileURLToPath(new URL('../fixtures/probe-as-user.mjs', import.meta.url));
      // hidepid=1: reading another user's stat fails with EPERM; hidepid=2: with ENOENT.
      for (const hidepid of [1, 2]) {
        const out = spawnSync(
          'unshare',
          [
            '--mount',
            '--pid',
            '--fork',
            'sh',
            '-c',
            `mount -t proc -o hidepid=${hidepid} proc /proc || exit 3
             sleep 30 & S=$!
             setpriv --reuid=65534 --regid=65534 --clear-groups "$0" "$1" $S
             kill $S`,
            process.execPath,
            script,
          ],
          { encoding: 'utf8', env: { ...process.env, CLAUDE_PS_BACKEND: name }, timeout: 20_000 },
        );
        expect(out.stderr).toBe('');
        const answer = JSON.parse(out.stdout) as { killCode: string; result: { state: string; token: string | null } };
        expect(answer.killCode).toBe('EPERM');
        expect(answer.result.state).toBe('unverified');
        expect(answer.result.token).toBeNull();
      }
    },
  );
});
