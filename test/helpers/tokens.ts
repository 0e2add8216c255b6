/**
 * Start tokens as Claude Code would have recorded them, per backend. Each backend stands for a
 * platform's probe: js and native read Linux's field 22 (clock ticks), ps stands for macOS, where Claude
 * Code records the text of `ps -o lstart=`. A registry suite that writes `recordedTokenFor(pid, name)`
 * therefore gets `alive` under every backend; a tick token under ps would only ever be `unverified`.
 *
 * The lstart text comes from running procps `ps` here, exactly as Claude Code runs it on macOS — never
 * through the code under test.
 */
import { spawnSync } from 'node:child_process';
import { formatLstart, parseLstart } from '../../lib/proc/lstart.js';
import { procStartTicks } from './processes.js';

/** The text of `ps -o lstart= -p PID` with LC_ALL=C TZ=UTC, trimmed; undefined when ps lists nothing. */
export function psLstart(pid: number): string | undefined {
  const run = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
    env: { LC_ALL: 'C', TZ: 'UTC', PATH: '/usr/bin:/bin' },
    encoding: 'latin1',
    timeout: 5000,
  });
  const text = (run.stdout ?? '').trim();
  return run.status === 0 && text !== '' ? text : undefined;
}

/** What Claude Code would record as `procStart` for this PID on the platform `backendName` stands for. */
export function recordedTokenFor(pid: number, backendName: string): string | undefined {
  return backendName === 'ps' ? psLstart(pid) : procStartTicks(pid);
}

/** Like recordedTokenFor, but throws when the PID has no token (the test's own process vanished). */
export function tokenOf(pid: number, backendName: string): string {
  const token = recordedTokenFor(pid, backendName);
  if (token === undefined) throw new Error(`no ${backendName} start token for PID ${pid}`);
  return token;
}

/**
 * Another token of the same form: what a different process that once held this PID would have
 * recorded. Ticks + 1, or the lstart text of an hour and a second earlier: a whole hour would read as
 * the same process written in another time zone (`unverified`, see token.ts), not as another process.
 */
export function anotherToken(token: string): string {
  if (/^[0-9]+$/.test(token)) return String(Number(token) + 1);
  const seconds = parseLstart(token);
  if (seconds === undefined) throw new Error(`not a ticks or lstart token: ${JSON.stringify(token)}`);
  return formatLstart(seconds - 3601);
}

/**
 * A well-formed token of a form the backend's platform does not produce (never comparable, so
 * `unverified`): lstart text where ticks are recorded, ticks where lstart text is.
 */
export function foreignFormToken(backendName: string): string {
  return backendName === 'ps' ? '654274470' : 'Sat Sep  5 05:21:48 2026';
}
