/**
 * The `ps` backend: macOS's fallback where the addon is missing, selectable anywhere with
 * CLAUDE_PS_BACKEND=ps (procps on Linux prints the same columns). kill(pid, 0) first, in-process;
 * then ONE `ps -o pid=,stat=,lstart= -p a,b,c` for the PIDs that exist (chunked when the list is long),
 * with LC_ALL=C TZ=UTC so the text is what Claude Code records. spawnSync reaps the child on every path,
 * including the timeout, so no zombie `ps` is ever left behind.
 *
 * Tokens are epoch seconds (tokenForm `lstart`): the facade formats them back with formatLstart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readPsRun, type PsAnswer } from '../proc/ps-output.js';
import {
  STATE_ALIVE,
  STATE_GONE,
  STATE_INVALID,
  STATE_UNVERIFIED,
  STATE_ZOMBIE,
  type ProbeBackend,
} from './types.js';
import { lazyBuiltin } from '../runtime.js';
import { checkProbeArrays, killZero } from './kill.js';

const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');

export interface PsOptions {
  /** The ps executable. Default: /bin/ps or /usr/bin/ps, whichever exists (never a PATH lookup). */
  command: string;
  /** Per spawn; the child is then SIGKILLed and reaped. */
  timeoutMs: number;
  /** PIDs per spawn. */
  chunkSize: number;
  /** The largest PID this system can have; larger ones are `gone` and never passed to ps. */
  pidMax: number;
}

// macOS (and the BSDs): PID_MAX is 99999, and one PID above it makes macOS ps fail the whole run.
export const BSD_PID_MAX = 99999;
// Linux's PID_MAX_LIMIT (2^22): the ceiling when /proc/sys/kernel/pid_max cannot be read.
export const LINUX_PID_MAX_LIMIT = 4194304;

function systemPidMax(): number {
  if (process.platform !== 'linux') return BSD_PID_MAX;
  try {
    const value = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1').trim());
    return Number.isSafeInteger(value) && value > 0 ? value : LINUX_PID_MAX_LIMIT;
  } catch {
    return LINUX_PID_MAX_LIMIT;
  }
}

function systemPs(): string {
  // An absolute path: a `ps` earlier on the user's PATH must not decide what is alive.
  return ['/bin/ps', '/usr/bin/ps'].find((p) => existsSync(p)) ?? '/bin/ps';
}

let defaults: PsOptions | undefined;

/** The options the default psBackend uses (computed once). */
export function defaultPsOptions(): PsOptions {
  return (defaults ??= { command: systemPs(), timeoutMs: 3000, chunkSize: 512, pidMax: systemPidMax() });
}

// A fixed environment: LC_ALL=C TZ=UTC for the recorded text, and nothing like procps's PS_FORMAT or
// PS_PERSONALITY from the caller's environment that could change the columns.
const PS_ENV = { LC_ALL: 'C', TZ: 'UTC', PATH: '/usr/bin:/bin:/usr/sbin:/sbin' };

/** One ps run for these PIDs (all in 1..pidMax), read as a PsAnswer. */
export function runPs(pids: readonly number[], options: PsOptions): PsAnswer & { spawnFailed: boolean } {
  const run = childProcess().spawnSync(options.command, ['-o', 'pid=,stat=,lstart=', '-p', pids.join(',')], {
    env: PS_ENV,
    encoding: 'latin1',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 1024 * 1024,
    windowsHide: true,
  });
  const answer = readPsRun({ status: run.status, stdout: run.stdout ?? '', stderr: run.stderr ?? '', error: run.error });
  // ENOENT or a timeout will repeat for the next chunk: the caller stops spawning.
  return { ...answer, spawnFailed: run.error !== undefined };
}

/** The two things the ps probe asks: this machine's, or what another host measured (lib/hosts/judge.ts). */
export interface PsCalls {
  killZero(pid: number): boolean;
  runPs(pids: readonly number[], options: PsOptions): PsAnswer & { spawnFailed: boolean };
}

const SYSTEM_PS: PsCalls = { killZero, runPs };

/** probeInto with explicit options (the seam tests use to point at a missing or slow `ps`). */
export function psProbeInto(
  pids: Int32Array,
  states: Uint8Array,
  tokens: Float64Array,
  options: PsOptions,
  calls: PsCalls = SYSTEM_PS,
): void {
  checkProbeArrays(pids, states, tokens);
  const existing: number[] = [];
  const queued = new Set<number>();
  for (let k = 0; k < pids.length; k++) {
    const pid = pids[k]!;
    tokens[k] = NaN;
    if (pid <= 0) {
      states[k] = STATE_INVALID;
    } else if (pid > options.pidMax || !calls.killZero(pid)) {
      states[k] = STATE_GONE;
    } else {
      // Exists (kill succeeded or said EPERM); unverified until ps says more.
      states[k] = STATE_UNVERIFIED;
      if (!queued.has(pid)) {
        queued.add(pid);
        existing.push(pid);
      }
    }
  }
  if (existing.length === 0) return;

  const found = new Map<number, { state: number; token: number }>();
  const notFound = new Set<number>();
  let broken = false;
  for (let at = 0; at < existing.length && !broken; at += options.chunkSize) {
    const chunk = existing.slice(at, at + options.chunkSize);
    const answer = calls.runPs(chunk, options);
    broken = answer.spawnFailed;
    for (const pid of chunk) {
      const row = answer.rows.get(pid);
      if (row !== undefined) {
        const token = row.start ?? NaN;
        // A zombie is known from STAT alone; a live process without a readable start is unverified.
        const state = row.exited ? STATE_ZOMBIE : Number.isNaN(token) ? STATE_UNVERIFIED : STATE_ALIVE;
        found.set(pid, { state, token });
      } else if (answer.complete) {
        notFound.add(pid);
      }
      // ps failed and did not list it: it stays unverified, never gone (kill said it exists).
    }
  }

  for (let k = 0; k < pids.length; k++) {
    if (states[k] !== STATE_UNVERIFIED) continue;
    const pid = pids[k]!;
    const hit = found.get(pid);
    if (hit !== undefined) {
      states[k] = hit.state;
      tokens[k] = hit.token;
    } else if (notFound.has(pid) && !calls.killZero(pid)) {
      // Not listed, and kill now says ESRCH: it exited after the first kill.
      states[k] = STATE_GONE;
    }
    // Not listed but kill still answers (e.g. a Linux thread ID, which ps does not list by -p, or a
    // PID reused in between): it exists, so it stays unverified.
  }
}

export const psBackend: ProbeBackend = {
  name: 'ps',
  tokenForm: 'lstart',
  probeInto(pids, states, tokens) {
    psProbeInto(pids, states, tokens, defaultPsOptions());
  },
};
