/**
 * Which terminal a process is attached to (Linux): its controlling terminal from `/proc/<pid>/stat`
 * (readable for every process), else what its standard input is (`/proc/<pid>/fd/0`, our own user's
 * processes only). `top` uses it to find the tmux pane of a session, `notify` to leave out the session
 * in this very terminal. Undefined means "cannot tell", never "no terminal".
 */
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { ttyNrOfStatLine } from '../proc/tty.js';

export interface TerminalOf {
  /** The device number (st_rdev), when known. */
  device: number | undefined;
  /** The device's path (`/dev/pts/3`), when known. */
  path: string | undefined;
}

function deviceOf(path: string): number | undefined {
  try {
    const st = statSync(path);
    return st.isCharacterDevice() ? st.rdev : undefined;
  } catch {
    return undefined;
  }
}

/** The terminal of `pid` ('self' for this process), or undefined when none can be found. */
export function terminalOf(pid: number | 'self'): TerminalOf | undefined {
  if (process.platform !== 'linux') return undefined;
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
export function isTerminal(path: string, terminal: TerminalOf): boolean {
  if (terminal.path !== undefined && path === terminal.path) return true;
  return terminal.device !== undefined && deviceOf(path) === terminal.device;
}
