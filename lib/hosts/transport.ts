/**
 * The ssh transport: the user's own `ssh` (their config, keys, agent, jump hosts), never a client of
 * ours. One read is one `ssh HOST sh -s` with the reader on stdin; connections are shared through
 * OpenSSH multiplexing, so a warm read skips the handshake. Every way it can fail becomes one named
 * state (docs/hosts.md); none of them reads as "no sessions".
 */
import type { ChildProcess } from 'node:child_process';
import { lazyBuiltin } from '../runtime.js';
import { controlDir } from './control-dir.js';
import { setAsideSilentMaster } from './stale-master.js';

const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');

/** Why a host gave no registry. `unreadable`: it answered, but a sessions folder could not be listed. */
export type HostFailure = 'unreachable' | 'timeout' | 'auth failed' | 'bad answer';

export const DEFAULT_CONNECT_TIMEOUT_S = 5;
export const DEFAULT_TIMEOUT_MS = 15_000;
/** setTimeout's own limit (2^31 - 1 ms, about 24.8 days): past it Node warns and fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647; // 2 ** 31 - 1, written out: a literal the CLI's core copies (scripts/lazy-parts.mjs)
/** How long a shared connection outlives its last use. */
export const CONTROL_PERSIST_S = 60;

export interface TransportOptions {
  /** Environment: CLAUDE_PS_SSH, XDG_RUNTIME_DIR, and what ssh itself reads. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The whole read, from spawn to the answer's last byte; the ssh child is then killed. */
  timeoutMs?: number;
  /** Bytes of answer accepted before the ssh child is killed and the answer is `bad answer`. */
  maxBytes: number;
}

export type SshOutcome =
  | { ok: true; stdout: string; stderr: string; status: number | null; measuredAt: number; roundTripMs: number }
  | { ok: false; failure: HostFailure; detail: string; roundTripMs: number };

/**
 * Splits CLAUDE_PS_SSH into words as a shell would for a plain command line: blanks separate words,
 * '…' and "…" quote, a backslash escapes the next character. No expansion of any kind.
 */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word = (word ?? '') + c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) word = (word ?? '') + text[++i];
      else word = (word ?? '') + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote !== undefined) throw new TypeError(`CLAUDE_PS_SSH has an unclosed ${quote}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** The ssh command line before our options: CLAUDE_PS_SSH's words, else `ssh`. */
export function sshCommand(env: NodeJS.ProcessEnv): string[] {
  const words = splitCommand(env.CLAUDE_PS_SSH ?? '');
  return words.length > 0 ? words : ['ssh'];
}

/**
 * A host NAME as ssh takes it (an alias, host, user@host): never an option (`-oProxyCommand=…`
 * would run a command here) and never blank or with control characters.
 */
export function checkHostName(name: unknown): string {
  if (typeof name !== 'string' || name === '' || name.startsWith('-') || /[\s\x00-\x1f\x7f]/.test(name)) {
    throw new TypeError(`a host must be a name ssh accepts (an alias, host or user@host), got ${JSON.stringify(name)}`);
  }
  return name;
}

/** A per-host timeout option: undefined (the default) or a number of ms in 1..MAX_TIMEOUT_MS. */
export function checkTimeoutMs(value: unknown, who: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw new TypeError(`${who}: options.timeoutMs must be a positive number of milliseconds, at most ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

/**
 * The full argument list for one run of `remoteCommand` (default: the reader's `sh -s`) on `host`,
 * sharing connections through `control` (default: controlDir's folder; undefined there: none).
 */
export function sshArguments(host: string, env: NodeJS.ProcessEnv, remoteCommand = 'sh -s', control = controlDir(env)): string[] {
  const [command, ...given] = sshCommand(env);
  const mux = control
    ? ['-o', 'ControlMaster=auto', '-o', `ControlPath=${control}/%C`, '-o', `ControlPersist=${CONTROL_PERSIST_S}`]
    : ['-o', 'ControlMaster=no'];
  return [
    command!,
    ...given,
    '-o', 'BatchMode=yes',
    '-o', `ConnectTimeout=${DEFAULT_CONNECT_TIMEOUT_S}`,
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=2',
    ...mux,
    '-T',
    '--',
    host,
    remoteCommand,
  ];
}

/** ssh's own failures (exit 255), by what its message says. */
export function classifySshError(stderr: string): HostFailure {
  if (/Permission denied|Too many authentication failures|Host key verification failed|HOST IDENTIFICATION HAS CHANGED|no matching host key/i.test(stderr)) {
    return 'auth failed';
  }
  if (/timed out|Timeout, server|not responding/i.test(stderr)) return 'timeout';
  return 'unreachable';
}

/** The last non-blank line of ssh's stderr, bounded: the detail a person reads (untrusted text). */
export function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const line = lines.at(-1) ?? '';
  return line.length > 200 ? line.slice(0, 200) + '…' : line;
}

/**
 * SIGKILL to our own ssh child, only while it is one: a spawn that failed (EMFILE) leaves a child
 * without a PID, and a kill through it could reach PID 0, i.e. our whole process group.
 */
function killOwn(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 0) return;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
}

/** Spawn failures that say nothing of the host: this process is short of descriptors or memory for now. */
const STARVED = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM']);

/** A spawn that failed for want of descriptors (or memory): tried again, not a verdict on the host. */
interface Starved {
  starved: string;
}

/**
 * Runs `remoteCommand` (default the reader's `sh -s`, `input` on its stdin) on `host` over ssh;
 * resolves (never rejects) with its output or a named failure.
 */
export async function runOverSsh(host: string, input: string, options: TransportOptions, remoteCommand?: string): Promise<SshOutcome> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  const startedAt = Date.now();
  const elapsed = () => Math.round(performance.now() - started);
  let args: string[];
  let control: string | undefined;
  try {
    control = controlDir(env);
    args = sshArguments(checkHostName(host), env, remoteCommand, control);
  } catch (error) {
    return { ok: false, failure: 'unreachable', detail: (error as Error).message, roundTripMs: 0 };
  }
  // Out of descriptors, the spawn is tried again (20 ms, 40 ms, … 500 ms apart) while the budget
  // lasts: other reads' pipes close. Only a budget spent waiting for them is a failure.
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const outcome = await attempt(args, env, input, options.maxBytes, { timeoutMs, started });
    if (!('starved' in outcome)) {
      if (outcome.ok || outcome.failure !== 'timeout' || control === undefined) return outcome;
      // Over a shared connection, the silence may be its master's (stopped, wedged): that master
      // would time out every later read too, so its socket is set aside (docs/hosts.md).
      const aside = await setAsideSilentMaster(args, env, control, startedAt);
      return aside === undefined ? outcome : { ...outcome, detail: `${outcome.detail}; ${aside}`, roundTripMs: elapsed() };
    }
    if (elapsed() + pause >= timeoutMs) {
      return { ok: false, failure: 'unreachable', detail: `cannot run ${args[0]}: ${outcome.starved}`, roundTripMs: elapsed() };
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** One ssh child: its answer, a named failure, or a spawn starved of descriptors. */
function attempt(
  args: string[],
  env: NodeJS.ProcessEnv,
  input: string,
  maxBytes: number,
  budget: { timeoutMs: number; started: number },
): Promise<SshOutcome | Starved> {
  const { timeoutMs, started } = budget;
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let child: ChildProcess;
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let stdoutEnded = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let measuredAt = 0;
    const finish = (outcome: SshOutcome | Starved) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    // Our own child, by its handle. A multiplexed ssh handed its pipes to the shared connection's
    // master, which keeps them open while the remote side runs: our ends are closed too, or this
    // process would wait for a hung remote however long it hangs.
    const abandon = (failure: HostFailure, detail: string) => {
      killOwn(child);
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish({ ok: false, failure, detail, roundTripMs: elapsed() });
    };
    const settle = () => {
      if (!stdoutEnded || exit === undefined) return;
      if (settled) return;
      if (exit.code === 255) {
        return finish({ ok: false, failure: classifySshError(err), detail: lastLine(err) || 'ssh exited 255', roundTripMs: elapsed() });
      }
      const stdout = Buffer.concat(out).toString('latin1');
      finish({ ok: true, stdout, stderr: err, status: exit.code, measuredAt, roundTripMs: elapsed() });
    };
    try {
      child = childProcess().spawn(args[0]!, args.slice(1), {
        env: { ...env, LC_ALL: 'C' },
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== undefined && STARVED.has(code)) return finish({ starved: code });
      return finish({ ok: false, failure: 'unreachable', detail: `cannot run ${args[0]}: ${(error as Error).message}`, roundTripMs: elapsed() });
    }
    child.on('error', (error: NodeJS.ErrnoException) => {
      // The spawn failed (ENOENT, EMFILE…): no exit event follows.
      if (error.code !== undefined && STARVED.has(error.code)) return finish({ starved: error.code });
      finish({ ok: false, failure: 'unreachable', detail: `cannot run ${args[0]}: ${error.code ?? error.message}`, roundTripMs: elapsed() });
    });
    // Out of descriptors (EMFILE), Node gives a child without pipes (and without a process) and
    // reports the error next tick.
    if (!child.stdout || !child.stderr || !child.stdin) {
      killOwn(child);
      return;
    }
    timer = setTimeout(() => abandon('timeout', `no complete answer within ${timeoutMs} ms`), Math.max(1, timeoutMs - elapsed()));
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxBytes) return abandon('bad answer', `the answer is over ${maxBytes} bytes`);
      out.push(chunk);
    });
    child.stdout!.on('end', () => {
      stdoutEnded = true;
      measuredAt = Date.now();
      settle();
    });
    child.stderr!.setEncoding('latin1');
    child.stderr!.on('data', (chunk: string) => {
      if (err.length < 64 * 1024) err += chunk;
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      settle();
    });
    // ssh may exit before reading its stdin (a refused connection): that EPIPE is no error of ours.
    child.stdin!.on('error', () => {});
    child.stdin!.end(input);
  });
}
