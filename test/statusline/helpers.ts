/** Shared by the statusline suites: waiting for a condition, cleanups run after each test, and the processes keeping a line-file folder. */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach } from 'vitest';
import { procState } from '../helpers/processes.js';

/** Polls `check` every 20 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A file's text, or '' while it does not exist. */
export function textOf(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Cleanups registered by a test run after it, last first (processes before the folders they use). */
export function cleanupsAfterEach(): Array<() => void | Promise<void>> {
  const cleanups: Array<() => void | Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });
  return cleanups;
}

/** A process that has not exited (a zombie has). */
export function running(pid: number): boolean {
  const state = procState(pid);
  return state !== undefined && state !== 'Z';
}

/** Every running process whose command line is `… --statusline-dir DIR …`: its PID, DIR and argv. */
export function lineDirKeepers(): { pid: number; dir: string; argv: string[] }[] {
  const found: { pid: number; dir: string; argv: string[] }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('--statusline-dir');
      if (at > 0 && at + 1 < argv.length && running(Number(name))) found.push({ pid: Number(name), dir: argv[at + 1]!, argv });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
