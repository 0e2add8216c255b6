/**
 * `watch --exec CMD`: once per event, in order, one at a time, the event in the environment, never
 * through a shell unless asked; a failing or missing command is reported and the next event runs; a
 * slow one never holds up the watcher, and an overflowing queue drops the oldest events, counted.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupsAfterEach, textOf, until } from './helpers.js';
import { builtCli, removeCopy, startCli } from '../cli/run-cli.js';
import { ExecRunner, eventEnv } from '../../lib/cli/statusline/exec.js';
import type { WatchEvent } from '../../lib/index.js';
import type { SessionRecord } from '../../lib/registry/types.js';
import { endAll, procStartTicks, procState, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../helpers/registry-fixture.js';

let cli: string;
let a: Spawned;
let work: string;
const cleanups = cleanupsAfterEach();

beforeAll(async () => {
  cli = await builtCli();
  a = spawnSleep();
  work = mkdtempSync(join(tmpdir(), 'cps-exec-'));
});

afterAll(async () => {
  await a?.end();
  await endAll();
  rmSync(work, { recursive: true, force: true });
  if (cli) removeCopy(cli);
});

const text = textOf;

function event(pid: number, status: string, extra: Partial<SessionRecord> = {}): WatchEvent {
  const record = { pid, sessionId: `s-${pid}`, status, verdict: 'alive', kind: 'interactive', path: `/x/${pid}.json`, raw: {}, ...extra } as SessionRecord;
  return { type: 'changed', record, previous: { ...record, status: 'idle' }, fields: ['status', 'updatedAt'] };
}

// A recorder: appends "<event> <pid> <status>" to a log, optionally sleeping first.
function recorder(log: string, sleep = 0, exit = 0): { shell: string } {
  return { shell: `${sleep ? `sleep ${sleep}; ` : ''}printf '%s %s %s dropped=%s\\n' "$CLAUDE_PS_EVENT" "$CLAUDE_PS_PID" "$CLAUDE_PS_STATUS" "$CLAUDE_PS_DROPPED" >> '${log}'; exit ${exit}` };
}

describe('the exec runner', () => {
  it('runs once per event, one at a time, in order', async () => {
    const log = join(work, 'order.log');
    const lines: string[] = [];
    // Each run logs its start and its end: overlapping runs would interleave them.
    const command = { shell: `echo "start $CLAUDE_PS_PID" >> '${log}'; sleep 0.05; echo "end $CLAUDE_PS_PID" >> '${log}'` };
    const runner = new ExecRunner({ command, report: (l) => lines.push(l) });
    cleanups.push(() => runner.close());
    for (let i = 1; i <= 8; i++) runner.push(event(i, 'busy'));
    await until(() => text(log).split('\n').length === 17, 'eight runs');
    expect(text(log).trim().split('\n')).toEqual([1, 2, 3, 4, 5, 6, 7, 8].flatMap((i) => [`start ${i}`, `end ${i}`]));
    expect(lines).toEqual([]);
  });

  it('puts the event in the environment, sanitised to one line', () => {
    const env = eventEnv(event(42, 'waiting', { name: 'api\x1b[31m-3f\nx', waitingFor: 'permission prompt', cwd: '/src/app' }));
    expect(env).toMatchObject({
      CLAUDE_PS_EVENT: 'changed',
      CLAUDE_PS_PID: '42',
      CLAUDE_PS_NAME: 'api [31m-3f x',
      CLAUDE_PS_STATUS: 'waiting',
      CLAUDE_PS_PREVIOUS_STATUS: 'idle',
      CLAUDE_PS_WAITING_FOR: 'permission prompt',
      CLAUDE_PS_CWD: '/src/app',
      CLAUDE_PS_FIELDS: 'status,updatedAt',
      CLAUDE_PS_VERDICT: 'alive',
    });
    expect(eventEnv({ type: 'added', record: event(1, 'idle').record }).CLAUDE_PS_PREVIOUS_STATUS).toBe('');
  });

  it('passes argv without a shell: metacharacters reach the program as text', async () => {
    const log = join(work, 'argv.log');
    const runner = new ExecRunner({ command: { argv: ['/bin/sh', '-c', 'printf "%s|" "$@" >> "$0"', log, '$(touch pwned)', '; rm', '*'] }, report: () => {} });
    cleanups.push(() => runner.close());
    runner.push(event(1, 'busy'));
    await until(() => text(log) !== '', 'the run');
    expect(text(log)).toBe('$(touch pwned)|; rm|*|');
  });

  it('reports a failing, a missing and a signalled command on one line each, and goes on', async () => {
    const log = join(work, 'fail.log');
    const lines: string[] = [];
    const fail = new ExecRunner({ command: recorder(log, 0, 3), report: (l) => lines.push(l) });
    const missing = new ExecRunner({ command: { argv: [join(work, 'no-such-program')] }, report: (l) => lines.push(l) });
    cleanups.push(() => fail.close(), () => missing.close());
    fail.push(event(1, 'busy'));
    fail.push(event(2, 'busy'));
    missing.push(event(3, 'busy'));
    missing.push(event(4, 'busy'));
    await until(() => lines.length === 4, 'four reports');
    expect(text(log).trim().split('\n')).toEqual(['changed 1 busy dropped=0', 'changed 2 busy dropped=0']);
    expect(lines.filter((l) => l.startsWith('--exec exited 3 for changed'))).toHaveLength(2);
    expect(lines.filter((l) => /could not start for changed [34]: .*ENOENT/.test(l))).toHaveLength(2);
    const signalled = new ExecRunner({ command: { shell: 'kill -TERM $$' }, report: (l) => lines.push(l) });
    cleanups.push(() => signalled.close());
    signalled.push(event(5, 'busy'));
    await until(() => lines.length === 5, 'the signal report');
    expect(lines[4]).toBe('--exec was ended by SIGTERM for changed 5');
  });

  it('stops a command that runs past the timeout and runs the next', async () => {
    const log = join(work, 'timeout.log');
    const lines: string[] = [];
    const runner = new ExecRunner({ command: { shell: `[ "$CLAUDE_PS_PID" = 1 ] && exec sleep 30; echo "$CLAUDE_PS_PID" >> '${log}'` }, timeoutMs: 300, report: (l) => lines.push(l) });
    cleanups.push(() => runner.close());
    runner.push(event(1, 'busy'));
    runner.push(event(2, 'busy'));
    await until(() => text(log) === '2\n', 'the next run');
    expect(lines).toEqual(['--exec ran over 300 ms for changed 1: stopped']);
  });

  it('stops the whole command, not only its first process: a timeout and a close leave no grandchild running', async () => {
    const lines: string[] = [];
    const gone = (pid: number) => {
      const state = procState(pid);
      return state === undefined || state === 'Z';
    };
    for (const how of ['timeout', 'close'] as const) {
      const pidFile = join(work, `grandchild-${how}.pid`);
      // `; wait` keeps the shell from exec'ing sleep: the sleep is the shell's child, as curl in a script would be.
      const runner = new ExecRunner({ command: { shell: `sleep 30 & echo $! > '${pidFile}'; wait` }, timeoutMs: how === 'timeout' ? 300 : 60_000, report: (l) => lines.push(l) });
      cleanups.push(() => runner.close());
      runner.push(event(1, 'busy'));
      await until(() => text(pidFile).endsWith('\n'), 'the grandchild');
      const grandchild = Number(text(pidFile));
      cleanups.push(() => {
        if (!gone(grandchild)) process.kill(grandchild, 'SIGKILL'); // ours: started by this test's command
      });
      if (how === 'close') runner.close();
      await until(() => gone(grandchild), `the grandchild to end after the ${how}`, 10_000);
    }
    // The close's SIGTERM may be reported too, depending on when the shell's exit is seen.
    expect(lines[0]).toBe('--exec ran over 300 ms for changed 1: stopped');
    expect(lines.slice(1).filter((l) => l !== '--exec was ended by SIGTERM for changed 1')).toEqual([]);
  });

  it('drops the oldest queued events on overflow, says so once, and counts them in the next run', async () => {
    const log = join(work, 'overflow.log');
    const lines: string[] = [];
    const runner = new ExecRunner({ command: recorder(log, 0.3), maxQueued: 3, report: (l) => lines.push(l) });
    cleanups.push(() => runner.close());
    for (let i = 1; i <= 10; i++) runner.push(event(i, 'busy')); // 1 runs; 2..10 queue into 3 places
    expect(runner.queued).toBe(3);
    await until(() => text(log).split('\n').length === 5, 'four runs');
    expect(text(log).trim().split('\n')).toEqual(['changed 1 busy dropped=0', 'changed 8 busy dropped=6', 'changed 9 busy dropped=0', 'changed 10 busy dropped=0']);
    expect(lines).toEqual(['--exec is 3 events behind: dropping the oldest until it catches up']);
  });
});

describe('watch --exec with the CLI', () => {
  it('runs the command per event while the NDJSON stream goes on, a slow command holding up nothing', async () => {
    const reg = makeRegistry('cps-exec-reg-');
    cleanups.push(() => reg.remove());
    const log = join(work, 'cli.log');
    const write = (status: string) => reg.write(a.pid, sessionRecord(a.pid, { sessionId: 'sid', procStart: procStartTicks(a.pid), status, name: 'alpha', cwd: '/src/a b' }));
    write('idle');
    // 1.5 s per run: the watcher must keep reporting on stdout while runs queue.
    const script = `sleep 1.5; printf '%s %s %s %s|%s\\n' "$CLAUDE_PS_EVENT" "$CLAUDE_PS_NAME" "$CLAUDE_PS_STATUS" "$CLAUDE_PS_CWD" "$CLAUDE_PS_WAITING_FOR" >> '${log}'`;
    const child = startCli(cli, ['watch', '--interval', '100', '--config-dir', reg.configDir, '--exec', script, '--exec-shell']);
    cleanups.push(async () => {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(() => stdout.includes('"added"'), 'the first event');
    write('busy');
    await until(() => stdout.includes('"busy"'), 'the busy event');
    reg.write(a.pid, sessionRecord(a.pid, { sessionId: 'sid', procStart: procStartTicks(a.pid), status: 'waiting', waitingFor: 'permission prompt', name: 'alpha', cwd: '/src/a b' }));
    await until(() => stdout.includes('"waiting"'), 'the waiting event');
    // All three events were on stdout before the first run (1.5 s) could have finished all of them.
    expect(text(log).split('\n').length).toBeLessThan(4);
    await until(() => text(log).split('\n').length === 4, 'three runs');
    expect(text(log).trim().split('\n')).toEqual([
      'added alpha idle /src/a b|',
      'changed alpha busy /src/a b|',
      'changed alpha waiting /src/a b|permission prompt',
    ]);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    expect(child.exitCode).toBe(0);
    expect(stderr).toBe('');
  });

  it('ends on SIGINT within seconds while a command that ignores SIGTERM runs, and ends that command too', async () => {
    const reg = makeRegistry('cps-exec-stubborn-');
    cleanups.push(() => reg.remove());
    reg.write(a.pid, sessionRecord(a.pid, { procStart: procStartTicks(a.pid), status: 'idle' }));
    const pidFile = join(work, 'stubborn.pid');
    // `trap '' TERM` is inherited: the sleep ignores SIGTERM too.
    const script = `trap '' TERM; sleep 30 & echo $! > '${pidFile}'; wait; sleep 30`;
    const child = startCli(cli, ['watch', '--config-dir', reg.configDir, '--exec', script, '--exec-shell']);
    child.stdout!.resume();
    child.stderr!.resume();
    const exited = new Promise((r) => child.once('exit', r));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    await until(() => text(pidFile).endsWith('\n'), 'the command to start');
    const sleeper = Number(text(pidFile));
    const gone = () => {
      const state = procState(sleeper);
      return state === undefined || state === 'Z';
    };
    cleanups.push(() => {
      if (!gone()) process.kill(sleeper, 'SIGKILL'); // ours: started by this test's command
    });
    child.kill('SIGINT');
    let ended = false;
    void exited.then(() => (ended = true));
    await until(() => ended, 'the watcher to end', 15_000); // it waited for the command: up to 62 s
    expect(child.exitCode).toBe(0);
    expect(gone()).toBe(true);
  }, 30_000);

  it('rejects an unclosed quote and --exec-shell without --exec as usage errors', () => {
    const bad = spawnSync(process.execPath, [cli, 'watch', '--exec', "notify-send 'x"], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unclosed single quote/);
    const alone = spawnSync(process.execPath, [cli, 'watch', '--exec-shell'], { encoding: 'utf8' });
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/--exec-shell needs --exec/);
  });
});
