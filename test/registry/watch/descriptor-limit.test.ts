/**
 * docs/watch.md "exit handles and the descriptor limit": the handle budget follows RLIMIT_NOFILE, so
 * under `ulimit -n 64` with 80 live sessions and the default exitHandles (1,024) the watcher keeps
 * descriptors to read its files with: no session leaves the view while it runs, no verdict turns
 * `unverified`, and `watch --statusline-dir` starts. Before, 46 pidfds filled the table, every record
 * flipped to `unverified` and a rewritten record was reported `removed`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileLimit, parseProcLimits } from '../../../lib/backend/exits.js';
import { exitHandleBudget, DESCRIPTOR_RESERVE } from '../../../lib/registry/watch/exits.js';
import { useBackend } from '../../helpers/backends.js';
import { spawnSleep, until, type Spawned } from '../../helpers/processes.js';
import { builtCli, cliEnv, removeCopy } from '../../cli/run-cli.js';
import { cleanUpEachTest, runScript, tempRegistry } from './helpers.js';

cleanUpEachTest();

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const SESSIONS = 80;
const LIMIT = 64;

describe('the exit-handle budget', () => {
  it('is half of what the soft limit leaves after the reserve, never more than asked', () => {
    expect(DESCRIPTOR_RESERVE).toBe(32);
    expect(exitHandleBudget(1024, { soft: 64, hard: 64 })).toBe(16);
    expect(exitHandleBudget(1024, { soft: 1024, hard: 4096 })).toBe(496);
    expect(exitHandleBudget(1024, { soft: 1_048_576, hard: 1_048_576 })).toBe(1024);
    expect(exitHandleBudget(5, { soft: 64, hard: 64 })).toBe(5);
    expect(exitHandleBudget(1024, { soft: 40, hard: 40 })).toBe(4);
    expect(exitHandleBudget(1024, { soft: 10, hard: 10 })).toBe(0);
    expect(exitHandleBudget(1024, { soft: Infinity, hard: Infinity })).toBe(1024);
    expect(exitHandleBudget(1024, undefined)).toBe(1024);
  });

  it('reads the limit through the addon and from /proc/self/limits alike', () => {
    const text = readFileSync('/proc/self/limits', 'latin1');
    const fromProc = parseProcLimits(text);
    expect(fromProc?.soft).toBeGreaterThan(0);
    for (const name of ['native', 'js']) {
      const restore = useBackend(name);
      try {
        expect(openFileLimit(), name).toEqual(fromProc);
      } finally {
        restore();
      }
    }
    expect(parseProcLimits('Max open files            unlimited            unlimited            files     \n')).toEqual({ soft: Infinity, hard: Infinity });
    expect(parseProcLimits('Max processes 1 2 processes\n')).toBeUndefined();
  });
});

describe('exit handles under descriptor pressure (native backend)', () => {
  it('an EMFILE gives half the handles back and leaves the host descriptors; all return once it passes', async () => {
    const restore = useBackend('native');
    const procs = Array.from({ length: 12 }, () => spawnSleep());
    try {
      const reg = tempRegistry();
      for (const p of procs) reg.write(p.pid);
      // In a child (this worker must never run out of descriptors): all descriptors taken but ten.
      const run = await runScript(
        `import { closeSync, openSync } from 'node:fs';
         import { watch } from './lib/registry/watch/watch.ts';
         const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
         const free = () => { const fds = []; try { for (;;) fds.push(openSync('/dev/null', 'r')); } catch {} for (const fd of fds) closeSync(fd); return fds.length; };
         const held = [];
         try { for (;;) held.push(openSync('/dev/null', 'r')); } catch {}
         for (let i = 0; i < 10; i++) closeSync(held.pop());
         const w = watch(process.argv[2], { interval: 100 });
         const errors = [];
         w.on('error', (e) => errors.push(String(e)));
         const removed = [];
         w.on('removed', (e) => removed.push(e.pid));
         await sleep(1000);
         const during = { records: w.records().length, alive: w.records().filter((r) => r.verdict === 'alive').length, kernel: w.exitWatch().kernel.length, free: free() };
         for (const fd of held) closeSync(fd);
         await sleep(2000);
         console.log(JSON.stringify({ during, after: w.exitWatch().kernel.length, removed, errors }));
         w.close();`,
        [reg.configDir],
        60_000,
      );
      expect(run.stderr).toBe('');
      const out = JSON.parse(run.stdout) as { during: { records: number; alive: number; kernel: number; free: number }; after: number; removed: number[]; errors: string[] };
      expect(out.during.records).toBe(12);
      expect(out.during.alive).toBe(12);
      expect(out.during.kernel).toBeGreaterThan(0);
      expect(out.during.kernel).toBeLessThan(10);
      expect(out.during.free, 'descriptors the host has while handles are held').toBeGreaterThanOrEqual(4);
      expect(out.after).toBe(12);
      expect(out.removed).toEqual([]);
    } finally {
      restore();
      await Promise.all(procs.map((p) => p.end()));
    }
  }, 90_000);
});

describe('a first read that found no descriptor free (native backend: its batch read holds the folder open)', () => {
  for (const backendName of ['native']) {
    it(`is read again once descriptors are free: the records appear, nothing is removed (${backendName})`, async () => {
      const restore = useBackend(backendName);
      const procs = Array.from({ length: 3 }, () => spawnSleep());
      try {
        const reg = tempRegistry(true, backendName);
        for (const p of procs) reg.write(p.pid);
        await new Promise((r) => setTimeout(r, 2500)); // past the racy window: only the unreadable mark brings a re-read
        const run = await runScript(
          `import { closeSync, openSync } from 'node:fs';
           import { watch } from './lib/registry/watch/watch.ts';
           const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
           const held = [];
           try { for (;;) held.push(openSync('/dev/null', 'r')); } catch {}
           // Two: one for the OS watch, one to list the folder (then to hold it open for the batch read);
           // none left to open a record with.
           closeSync(held.pop());
           closeSync(held.pop());
           const w = watch(process.argv[2], { interval: 50, rescanEvery: 1 });
           w.on('error', () => {});
           const types = [];
           w.on('change', (e) => types.push(e.type));
           const during = w.records().length;
           for (const fd of held) closeSync(fd);
           await sleep(1500);
           console.log(JSON.stringify({ during, after: w.records().filter((r) => r.verdict === 'alive').length, types }));
           w.close();`,
          [reg.configDir],
          60_000,
        );
        expect(run.stderr).toBe('');
        expect(JSON.parse(run.stdout)).toEqual({ during: 0, after: 3, types: ['added', 'added', 'added'] });
      } finally {
        restore();
        await Promise.all(procs.map((p) => p.end()));
      }
    }, 60_000);
  }
});

describe(`watch under ulimit -n ${LIMIT} with ${SESSIONS} live sessions (native backend, default exitHandles)`, () => {
  let cli: string;
  const sleeps: Spawned[] = [];
  beforeAll(async () => {
    cli = await builtCli();
    for (let i = 0; i < SESSIONS; i++) sleeps.push(spawnSleep());
  });
  afterAll(async () => {
    removeCopy(cli);
    await Promise.all(sleeps.map((s) => s.end()));
  });

  function startWatch(args: string[]): { child: ChildProcess; lines: string[]; stderr: () => string } {
    const child = spawn('bash', ['-c', `ulimit -n ${LIMIT} && exec ${quote(process.execPath)} ${quote(cli)} watch ${args.map(quote).join(' ')}`], {
      env: { ...cliEnv(), CLAUDE_PS_BACKEND: 'native' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let err = '';
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    return { child, lines, stderr: () => err };
  }

  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM'); // our own child, by its PID
    await exited;
  }

  it('no session leaves the view, none turns unverified, descriptors to spare; every exit is seen', async () => {
    const reg = tempRegistry();
    for (const s of sleeps) reg.write(s.pid);
    const { child, lines, stderr } = startWatch(['--interval', '100', '--config-dir', reg.configDir]);
    try {
      const events = () => lines.map((l) => JSON.parse(l) as { type: string; record: { pid: number; verdict: string } });
      await until(() => events().filter((e) => e.type === 'added').length === SESSIONS, 'all added', 20_000);
      // Rewrite a quarter of the records, twice: each must be re-read, which needs a descriptor.
      for (const round of [1, 2]) {
        for (const s of sleeps.slice(0, SESSIONS / 4)) reg.write(s.pid, { status: round === 1 ? 'busy' : 'idle' });
        await until(() => events().filter((e) => e.type === 'changed').length >= (SESSIONS / 4) * round, `round ${round} changed`, 20_000);
      }
      await new Promise((r) => setTimeout(r, 1500)); // several rescans and probes
      const fds = readdirSync(`/proc/${child.pid}/fd`).length;
      expect(fds, 'descriptors held by the watcher').toBeLessThanOrEqual(LIMIT - 16);
      expect(events().filter((e) => e.type !== 'added' && e.type !== 'changed')).toEqual([]);
      expect(events().filter((e) => e.record.verdict !== 'alive')).toEqual([]);
      expect(stderr()).toBe('');

      for (const s of sleeps.slice(0, 10)) await s.end();
      await until(() => events().filter((e) => e.type === 'died').length === 10, '10 died', 20_000);
      expect(events().filter((e) => e.type === 'removed')).toEqual([]);
    } finally {
      await stop(child);
    }
  }, 90_000);

  it('watch --statusline-dir starts and writes a line for every live session', async () => {
    const reg = tempRegistry();
    const live = sleeps.filter((s) => readdirSync(`/proc`).includes(String(s.pid)));
    for (const s of live) reg.write(s.pid);
    const dir = join(reg.configDir, 'lines');
    const { child, stderr } = startWatch(['--interval', '100', '--statusline-dir', dir, '--config-dir', reg.configDir]);
    try {
      await until(
        () => {
          try {
            return readdirSync(dir).filter((n) => /^[0-9]+$/.test(n)).length === live.length;
          } catch {
            return false;
          }
        },
        'a line file per live session',
        20_000,
      );
      expect(child.exitCode).toBeNull();
      expect(stderr()).toBe('');
    } finally {
      await stop(child);
    }
  }, 60_000);
});
