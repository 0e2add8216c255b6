/**
 * Which terminal a process is attached to. Linux: its controlling terminal from `/proc/<pid>/stat`
 * (readable for every process), else what its standard input is (`/proc/<pid>/fd/0`, our own user's
 * processes only). Elsewhere (macOS has no /proc): `ps -o tty= -p PID`, the controlling terminal's
 * name (`ttys003`, `??` for none), taken as `/dev/<name>` only when that is a terminal device.
 * `top` uses it to find the tmux pane of a session, `notify` to leave out the session in this very
 * terminal. Undefined means "cannot tell", never "no terminal".
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { ttyNrOfStatLine } from '../proc/tty.js';

export interface TerminalOf {
  /** The device number (st_rdev), when known. */
  device: number | undefined;
  /** The device's path (`/dev/pts/3`), when known. */
  path: string | undefined;
}

/** What the lookup reads; injected by tests for the darwin route, which this machine cannot run. */
export interface TerminalProbe {
  platform: NodeJS.Platform;
  /** `ps -o tty= -p PID`'s output; throws when ps fails or the PID is gone. */
  psTty(pid: number): string;
  /** The character device's number at `path`, or undefined when it is not one. */
  deviceOf(path: string): number | undefined;
}

function deviceOf(path: string): number | undefined {
  try {
    const st = statSync(path);
    return st.isCharacterDevice() ? st.rdev : undefined;
  } catch {
    return undefined;
  }
}

const SYSTEM: TerminalProbe = {
  platform: process.platform,
  psTty: (pid) => execFileSync('ps', ['-o', 'tty=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }),
  deviceOf,
};

// A terminal's name as ps prints it: `ttys003`, `pts/3`, `tty1`, `console`. `??` and `-` mean none.
const TTY_NAME = /^(ttys?[0-9A-Za-z]{1,8}|pts\/[0-9]{1,6}|console)$/;

/** The terminal from ps's answer (darwin and the other BSDs), or undefined. */
export function terminalOfPs(pid: number, probe: TerminalProbe): TerminalOf | undefined {
  let name: string;
  try {
    name = probe.psTty(pid).trim();
  } catch {
    return undefined; // ps failed or timed out: cannot tell
  }
  if (!TTY_NAME.test(name)) return undefined;
  const path = `/dev/${name}`;
  const device = probe.deviceOf(path);
  return device === undefined ? undefined : { device, path };
}

/** The terminal of `pid` ('self' for this process), or undefined when none can be found. */
export function terminalOf(pid: number | 'self', probe: TerminalProbe = SYSTEM): TerminalOf | undefined {
  if (probe.platform !== 'linux') return terminalOfPs(pid === 'self' ? process.pid : pid, probe);
  let device: number | undefined;
  try {
    const nr = ttyNrOfStatLine(readFileSync(`/proc/${pid}/stat`, 'latin1'));
    if (nr !== undefined && nr > 0) device = nr;
  } catch {
    // gone, or /proc unreadable: the fd link may still answer (or not)
  }
  let path: string | undefined;
  try {
    const link = readlinkSync(`/proc/${pid}/fd/0`);
    if (/^\/dev\/(pts\/[0-9]+|tty[A-Za-z0-9]*)$/.test(link)) {
      const linked = deviceOf(link);
      if (linked !== undefined && (device === undefined || linked === device)) {
        path = link;
        device ??= linked;
      }
    }
  } catch {
    // another user's process, or no such fd
  }
  return device === undefined && path === undefined ? undefined : { device, path };
}

/** Whether the terminal device at `path` is `terminal`. */
export function isTerminal(path: string, terminal: TerminalOf, devices: (path: string) => number | undefined = deviceOf): boolean {
  if (terminal.path !== undefined && path === terminal.path) return true;
  return terminal.device !== undefined && devices(path) === terminal.device;
}
