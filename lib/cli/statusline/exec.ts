/**
 * `watch --exec CMD` (docs/statusline.md): CMD runs once per event, with the event in its environment,
 * one at a time in event order, so a user can wire notify-send, osascript or ntfy to "a session is
 * waiting for you". The watcher never waits for it: events queue (at most MAX_QUEUED; on overflow the
 * oldest queued ones are dropped, counted in the next run's CLAUDE_PS_DROPPED, and one stderr line
 * says so). A command that fails, cannot start or runs past the timeout (SIGTERM, then SIGKILL, to its
 * process group, but only while its first process is unreaped: after that the group's ID may be
 * another's) is reported on stderr and the next event runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { WatchEvent } from '../../index.js';
import { sanitise } from './view.js';

export const MAX_QUEUED = 1000;
export const EXEC_TIMEOUT_MS = 60_000;

export interface ExecOptions {
  /** The program and its arguments, or a script for `/bin/sh -c` (`--exec-shell`). */
  command: { argv: readonly string[] } | { shell: string };
  env?: NodeJS.ProcessEnv;
  maxQueued?: number;
  timeoutMs?: number;
  /** One line for stderr (a failure, an overflow). */
  report: (line: string) => void;
}

/** Bounds of the values: a run's environment stays far below the kernel's (128 KiB a string). */
export const MAX_VALUE = 1024;
export const MAX_FIELD_NAME = 64;
export const MAX_FIELDS = 4096;

/**
 * One line of sanitised text (sanitise() in view.ts: no controls, no bidi or invisible characters,
 * no NUL, which would make every spawn fail), at most `max` columns and 4 × `max` UTF-16 units (a
 * column may carry combining marks).
 */
function envText(value: string | undefined, max: number): string {
  // What is read at all is bounded too: a record's string may be megabytes.
  const text = sanitise(value?.slice(0, 16 * max), max);
  return text.length <= 4 * max ? text : sanitise(text.slice(0, 4 * max - 1), 4 * max);
}

/**
 * The changed fields, comma-separated. Their names are the document's own keys, so each is made one
 * word (a comma or blank inside becomes `_`) of at most MAX_FIELD_NAME columns; past MAX_FIELDS
 * characters the list ends with `,…`.
 */
export function fieldList(fields: readonly string[]): string {
  let list = '';
  for (const field of fields) {
    const name = envText(field, MAX_FIELD_NAME).replace(/[\s,]/g, '_');
    if (name === '') continue;
    const longer = list === '' ? name : `${list},${name}`;
    if (longer.length > MAX_FIELDS - 2) return `${list},…`;
    list = longer;
  }
  return list;
}

/** The variables one run gets, besides the watcher's own environment. Values are one-line text. */
export function eventEnv(event: WatchEvent): Record<string, string> {
  const r = event.record;
  const previous = 'previous' in event ? event.previous : undefined;
  const text = (v: string | undefined) => envText(v, MAX_VALUE);
  return {
    CLAUDE_PS_EVENT: event.type,
    CLAUDE_PS_PID: String(r.pid),
    CLAUDE_PS_SESSION_ID: text(r.sessionId),
    CLAUDE_PS_NAME: text(r.name),
    CLAUDE_PS_STATUS: text(r.status),
    CLAUDE_PS_PREVIOUS_STATUS: text(previous?.status),
    CLAUDE_PS_WAITING_FOR: text(r.waitingFor),
    CLAUDE_PS_CWD: text(r.cwd),
    CLAUDE_PS_KIND: text(r.kind),
    CLAUDE_PS_VERDICT: r.verdict,
    CLAUDE_PS_FIELDS: 'fields' in event ? fieldList(event.fields) : '',
  };
}

/** A run waiting its turn: what it will get and how reports name it, never the event's records. */
interface Job {
  env: Record<string, string>;
  what: string;
}

export class ExecRunner {
  // Jobs, not events: a queued event would keep its records' whole documents (up to 256 KiB each,
  // several times that once parsed) for as long as a slow command holds the queue.
  private readonly queue: Job[] = [];
  private running: ChildProcess | undefined;
  private dropped = 0;
  private overflowing = false;
  private closed = false;
  private readonly maxQueued: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: ExecOptions) {
    this.maxQueued = options.maxQueued ?? MAX_QUEUED;
    this.timeoutMs = options.timeoutMs ?? EXEC_TIMEOUT_MS;
  }

  push(event: WatchEvent): void {
    if (this.closed) return;
    if (this.queue.length >= this.maxQueued) {
      this.queue.shift();
      this.dropped++;
      if (!this.overflowing) {
        this.overflowing = true;
        this.options.report(`--exec is ${this.maxQueued} events behind: dropping the oldest until it catches up`);
      }
    }
    this.queue.push({ env: eventEnv(event), what: `${event.type} ${event.record.pid}` });
    this.next();
  }

  /** Events waiting to run (the running one not included). */
  get queued(): number {
    return this.queue.length;
  }

  private next(): void {
    if (this.running || this.closed) return;
    const job = this.queue.shift();
    if (job === undefined) {
      this.overflowing = false;
      return;
    }
    const env = { ...(this.options.env ?? process.env), ...job.env, CLAUDE_PS_DROPPED: String(this.dropped) };
    this.dropped = 0;
    const what = job.what;
    const cmd = this.options.command;
    const [file, args] = 'shell' in cmd ? ['/bin/sh', ['-c', cmd.shell]] : [cmd.argv[0]!, cmd.argv.slice(1)];
    // Its output goes to our stderr: stdout is the NDJSON stream.
    let child: ChildProcess;
    try {
      // A process group of its own (detached), so that stopping it stops what it started too: a
      // script's curl or sleep would otherwise outlive the timeout and the watch.
      child = spawn(file, args, { env, stdio: ['ignore', 2, 2], detached: true });
    } catch (error) {
      this.options.report(`--exec could not start for ${what}: ${(error as Error).message}`);
      setImmediate(() => this.next());
      return;
    }
    this.running = child;
    let timedOut = false;
    let kill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child, 'SIGTERM');
      // Still unreaped 2 s later (it ignores SIGTERM): SIGKILL. Cleared at its exit, when the group ID
      // may be freed and taken by an unrelated process (docs/statusline.md, "--exec").
      kill = setTimeout(() => signalGroup(child, 'SIGKILL'), 2000);
      kill.unref();
    }, this.timeoutMs);
    let failed = false;
    child.once('error', (error) => {
      failed = true;
      this.options.report(`--exec could not start for ${what}: ${error.message}`);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      clearTimeout(kill);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(kill);
      this.running = undefined;
      if (timedOut) this.options.report(`--exec ran over ${this.timeoutMs} ms for ${what}: stopped`);
      else if (!failed && signal) this.options.report(`--exec was ended by ${signal} for ${what}`);
      else if (!failed && code !== 0) this.options.report(`--exec exited ${code} for ${what}`);
      this.next();
    });
  }

  /** No new runs; a running command is asked to stop (SIGTERM to its group, ours: started by this watcher), then made to. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    const child = this.running;
    if (child === undefined || !unreaped(child)) return;
    signalGroup(child, 'SIGTERM');
    // A command that ignores SIGTERM would keep the watch from ending (its process holds the loop)
    // until the run's timeout: it gets SIGKILL 2 s later, unless it has exited by then.
    const kill = setTimeout(() => signalGroup(child, 'SIGKILL'), 2000);
    child.once('exit', () => clearTimeout(kill));
  }
}

/** True until Node has reaped the run's first process (then it sets one of the two and emits 'exit'). */
function unreaped(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * Signals the process group a run leads (spawned detached: its PID is the group's ID), only while
 * that process is unreaped: alive or a zombie, it holds the PID, so no other process can have it and
 * no other group that ID. Once reaped, the ID is free when the last member ends, and a new process
 * (`setsid sleep`, or our own next run) may lead a group of that number: it is not signalled. What the
 * run started and left behind after its first process exited is therefore not signalled either.
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || !unreaped(child)) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the whole group has ended
  }
}
