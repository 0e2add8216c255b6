/**
 * Real processes for tests: every helper spawns its own child and ends it by PID. Nothing here ever
 * signals a process the test did not start.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Spawned {
  pid: number;
  /** Ends the process (SIGKILL) and waits until it has been reaped. Safe to call twice. */
  end(): Promise<void>;
}

const started = new Set<ChildProcess>();

function track(child: ChildProcess, cleanup?: () => void): Spawned {
  if (child.pid === undefined) throw new Error('spawn failed');
  started.add(child);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    pid: child.pid,
    async end() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      started.delete(child);
      cleanup?.();
    },
  };
}

/** A live `sleep` of our own. */
export function spawnSleep(seconds = 120): Spawned {
  return track(spawn('sleep', [String(seconds)], { stdio: 'ignore' }));
}

/** A `sleep` whose command name (comm) is `name`: used for `)`, spaces and newlines in /proc/<pid>/stat. */
export function spawnNamed(name: string, seconds = 120): Spawned {
  const dir = mkdtempSync(join(tmpdir(), 'cps-comm-'));
  const exe = join(dir, name);
  copyFileSync('/bin/sleep', exe);
  chmodSync(exe, 0o755);
  return track(spawn(exe, [String(seconds)], { stdio: 'ignore' }), () => rmSync(dir, { recursive: true, force: true }));
}

/** The state letter of /proc/<pid>/stat, or undefined when unreadable. */
export function procState(pid: number): string | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return line.slice(line.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat as text: the token Claude Code records on Linux. */
export function procStartTicks(pid: number): string | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return line.slice(line.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A zombie: a shell starts a short child, then execs into a long sleep that never reaps it
 * (the recipe in docs/registry.md). Resolves once the child's state is Z. end() ends the parent, after which
 * init reaps the zombie.
 */
export async function spawnZombie(): Promise<Spawned & { zombiePid: number }> {
  const child = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 120'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const parent = track(child);
  const zombiePid = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line) resolve(Number(line));
    });
    child.once('exit', () => reject(new Error('zombie parent exited early')));
  });
  await until(() => procState(zombiePid) === 'Z', `PID ${zombiePid} to become a zombie`);
  return { ...parent, zombiePid };
}

/** A PID that existed and has been reaped (checked to be free now). */
export function reapedPid(): number {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { pid } = spawnSync('true');
    if (pid && procState(pid) === undefined) {
      try {
        process.kill(pid, 0);
      } catch {
        return pid;
      }
    }
  }
  throw new Error('could not find a reaped PID');
}

/** A thread ID of this process that is not the main thread (answers kill and has a stat, not in /proc). */
export function ownThreadId(): number {
  const tid = readdirSync('/proc/self/task')
    .map(Number)
    .find((t) => t !== process.pid);
  if (tid === undefined) throw new Error('this process has no other thread');
  return tid;
}

/** Ends every process these helpers started and that is still running (for afterAll). */
export async function endAll(): Promise<void> {
  for (const child of [...started]) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    started.delete(child);
  }
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
export const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;
/** Whether this machine lets us make a private PID and mount namespace (root, no seccomp veto). */
export const hasUnshare = spawnSync('unshare', ['--mount', '--pid', '--fork', 'true']).status === 0;
