/**
 * The lab's processes, found by the marker in their environment and ended by PID or by the process
 * group they lead: nothing here ever signals a process whose /proc/<pid>/environ lacks the marker.
 * Also the run-wide sweep the suite's global teardown calls.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Neither marker may start with CLAUDE: the lab drops CLAUDE* variables from what its processes inherit.
/** The marker variable; its value is unique per lab. */
export const LAB_MARKER = 'CPS_LAB';
/** Every lab's temp folder starts with this (the global teardown removes its own run's leftovers). */
export const LAB_PREFIX = 'cps-claude-';
/** Set by the suite's global setup, inherited by every lab process: the whole run's marker. */
export const RUN_MARKER = 'CPS_LAB_RUN';
/** The file in a lab's temp folder that names the run it belongs to. */
export const RUN_FILE = '.run';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function environ(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return '';
  }
}

export function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export function exists(pid: number): boolean {
  try {
    process.kill(pid, 0); // existence only: signal 0 is never delivered
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PIDs whose environment carries `KEY=value` (an exact entry). */
export function markedProcesses(key: string, value: string): number[] {
  const entry = `${key}=${value}\0`;
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const env = environ(pid);
    if (env.startsWith(entry) || env.includes(`\0${entry}`)) found.push(pid);
  }
  return found;
}

async function untilGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = pids.filter(exists);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(50);
    left = left.filter(exists);
  }
  return left;
}

/** Sends claude processes carrying `KEY=value` SIGCONT + SIGTERM (a stopped one can then exit, and each removes its own record). */
export async function endMarkedClaudes(key: string, value: string): Promise<void> {
  const claudes = markedProcesses(key, value).filter((p) => comm(p) === 'claude');
  for (const pid of claudes) {
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGTERM');
    } catch {
      // exited meanwhile
    }
  }
  await untilGone(claudes, 10_000);
}

/** The process group of `pid` (field 5 of /proc/<pid>/stat, counted after the last `)`), or undefined. */
function processGroup(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(line.slice(line.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/**
 * Ends every process carrying `KEY=value`: claude first, politely, then SIGKILL for whatever is left,
 * by its own process group where it leads one (a pane shell, the mock), else by PID. Used by
 * `lab.close()` and by the suite's global teardown (a worker that crashed never ran its afterAll).
 */
export async function endMarked(key: string, value: string): Promise<void> {
  await endMarkedClaudes(key, value);
  for (let round = 0; round < 3; round++) {
    const left = markedProcesses(key, value);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(processGroup(pid) === pid ? -pid : pid, 'SIGKILL');
      } catch {
        // exited meanwhile
      }
    }
    await untilGone(left, 3_000);
  }
}

/**
 * Claude Code's daemon (for `claude --bg`) keeps its sockets outside the config dir, in
 * /tmp/cc-daemon-<uid>/<sha256(config dir)[:8]>: removes that folder, and the parent once it is empty.
 * `started`: this lab started a daemon (so it may have made the parent too).
 */
export function removeDaemonFolder(configDir: string, started: boolean): void {
  const daemons = join('/tmp', `cc-daemon-${process.getuid?.() ?? 0}`);
  const ours = join(daemons, createHash('sha256').update(configDir).digest('hex').slice(0, 8));
  // `daemon stop` removes its own folder but not the parent. Where no daemon of ours is known to have
  // run, leave the shared parent alone.
  if (!started && !existsSync(ours)) return;
  rmSync(ours, { recursive: true, force: true });
  try {
    rmdirSync(daemons);
  } catch {
    // another config dir's daemon still uses it, or it is gone
  }
}

/**
 * Cleans up after every lab of one run (`RUN_MARKER=run`), also labs whose test process died without
 * closing them: ends the run's processes, then removes the temp folders that name this run.
 */
export async function sweepRun(run: string): Promise<void> {
  if (!run) return;
  await endMarked(RUN_MARKER, run);
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(LAB_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let owner = '';
    try {
      owner = readFileSync(join(dir, RUN_FILE), 'utf8');
    } catch {
      continue; // not a lab folder, or gone meanwhile
    }
    if (owner !== run) continue;
    rmSync(dir, { recursive: true, force: true });
    removeDaemonFolder(join(dir, 'cfg'), false);
  }
}

