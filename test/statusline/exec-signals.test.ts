/**
 * `watch --exec`: a run's process group is signalled only while it is provably the run's (issue 20,
 * point 5). The timeout's SIGKILL used to stay armed after the run exited: a process that took the
 * freed PID as its group 2 s later was killed. Both cases use real processes that a stray signal
 * would end: one that takes the very PID (root: /proc/sys/kernel/ns_last_pid picks it), and one the
 * run left behind in its group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupsAfterEach, textOf, until } from './helpers.js';
import { ExecRunner } from '../../lib/cli/statusline/exec.js';
import type { WatchEvent } from '../../lib/index.js';
import type { SessionRecord } from '../../lib/registry/types.js';
import { isRoot, procState } from '../helpers/processes.js';

const LAST_PID = '/proc/sys/kernel/ns_last_pid';
let work: string;
const cleanups = cleanupsAfterEach();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cps-exec-signals-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function event(pid: number): WatchEvent {
  const record = { pid, sessionId: `s-${pid}`, status: 'busy', verdict: 'alive', kind: 'interactive', path: `/x/${pid}.json`, raw: {} } as SessionRecord;
  return { type: 'added', record };
}

const running = (pid: number) => {
  const state = procState(pid);
  return state !== undefined && state !== 'Z';
};

function canPickPids(): boolean {
  if (!isRoot) return false;
  try {
    writeFileSync(LAST_PID, textOf(LAST_PID));
    return true;
  } catch {
    return false;
  }
}

/** Ends a process this test started (by its PID) and waits for it to be reaped. */
function endOwn(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  return exited;
}

/** A run that outlives the 300 ms timeout and exits at its SIGTERM; resolves with its PID once reaped. */
async function timedOutRun(shell: string): Promise<{ pid: number; lines: string[] }> {
  const lines: string[] = [];
  const pidFile = join(work, `leader-${Date.now()}-${Math.random()}.pid`);
  const runner = new ExecRunner({ command: { shell: `echo $$ > '${pidFile}'; ${shell}` }, timeoutMs: 300, report: (l) => lines.push(l) });
  cleanups.push(() => runner.close());
  runner.push(event(1));
  await until(() => lines.length === 1, 'the timeout report');
  return { pid: Number(textOf(pidFile)), lines };
}

describe('the exec runner signals only a group that is still its run', () => {
  it.skipIf(!canPickPids())('leaves alone a new process group that took the PID of a run that exited at SIGTERM', async () => {
    let victim: ChildProcess | undefined;
    for (let attempt = 0; attempt < 5 && victim === undefined; attempt++) {
      // `exec`: the run is one process, so the group is empty (and its ID free) once it is reaped.
      const { pid, lines } = await timedOutRun('exec sleep 30');
      expect(lines).toEqual(['--exec ran over 300 ms for added 1: stopped']);
      // The next PID the kernel gives is the run's: `setsid` makes it the leader of a group of that ID.
      writeFileSync(LAST_PID, String(pid - 1));
      const child = spawn('setsid', ['sleep', '30'], { stdio: 'ignore' });
      cleanups.push(() => endOwn(child));
      if (child.pid === pid) victim = child; // else another process on the machine took it first: again
    }
    if (victim === undefined) throw new Error('the freed PID was taken by another process five times');
    await until(() => textOf(`/proc/${victim!.pid}/stat`).includes('sleep'), 'the new group to run sleep');
    // The old runner armed SIGKILL for 2 s after the SIGTERM: wait past it.
    await new Promise((r) => setTimeout(r, 3000));
    expect(running(victim.pid!)).toBe(true);
  });

  it('sends nothing after the run exited, even to what the run left in its group', async () => {
    const stray = join(work, 'stray.pid');
    // The child ignores SIGTERM (an ignored signal stays ignored across exec); the shell does not.
    const { lines } = await timedOutRun(`trap '' TERM; sh -c 'echo $$ > "$0"; exec sleep 30' '${stray}' & trap - TERM; wait`);
    expect(lines).toEqual(['--exec ran over 300 ms for added 1: stopped']);
    await until(() => textOf(stray).endsWith('\n'), 'the stray process');
    const pid = Number(textOf(stray));
    cleanups.push(() => {
      if (running(pid)) process.kill(pid, 'SIGKILL'); // ours: started by this test's command
    });
    await new Promise((r) => setTimeout(r, 3000));
    expect(running(pid)).toBe(true);
  });

  it('still ends a run that ignores SIGTERM, with SIGKILL while it has not exited', async () => {
    const { pid, lines } = await timedOutRun(`trap '' TERM; sleep 30 & wait; sleep 30`);
    expect(lines).toEqual(['--exec ran over 300 ms for added 1: stopped']);
    expect(running(pid)).toBe(false);
  });
});
