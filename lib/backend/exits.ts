/**
 * Kernel notification (docs/watch.md): a descriptor per watched process that turns readable when it
 * exits (Linux pidfd_open(2), macOS kqueue EVFILT_PROC / NOTE_EXIT), and one for stdout's reader
 * going away, polled by the addon on Node's own event loop. On Windows the "descriptor" is the addon's
 * key for a process handle, waited on with RegisterWaitForSingleObject (docs/windows.md). Served only
 * by the native backend; with the JS or ps backend, or a kernel without the call,
 * `exitNotification()` says why and callers fall back to probing every interval. This file only
 * measures; lib/registry/watch decides what an exit means.
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { servingAddon } from './index.js';
import { lazyBuiltin } from '../runtime.js';

// Loaded when an exit is watched or an errno named, not by every process that bundles this file.
const os = lazyBuiltin<typeof import('node:os')>('node:os');

interface RawPoller {
  add(fd: number): number;
  remove(fd: number): boolean;
  close(): void;
  readonly size: number;
}

interface ExitAddon {
  FdPoller: new (onReady: (fd: number, status: number) => void) => RawPoller;
  exitHandle(pid: number): number;
  /** Windows only: closes a handle exitHandle opened that no poller took (elsewhere: closeSync). */
  closeExitHandle?(key: number): boolean;
  hangupHandle(fd: number): number;
  exitMechanism: ExitMechanism;
  openFileLimit?(): [number, number] | number;
}

export type ExitMechanism = 'pidfd' | 'kqueue' | 'RegisterWaitForSingleObject';

export interface ExitNotificationInfo {
  /** `kernel`: exits are reported as they happen; `interval`: found by the periodic probe. */
  mode: 'kernel' | 'interval';
  mechanism?: ExitMechanism;
  /** Why not the kernel (absent when it is). */
  reason?: string;
}

let errnoNames: Map<number, string> | undefined;

/** A negative errno from the addon → its name (`ESRCH`, `ENOSYS`, ...). */
export function errnoName(code: number): string {
  errnoNames ??= new Map(Object.entries(os().constants.errno).map(([name, n]) => [n, name]));
  return errnoNames.get(-code) ?? `errno ${-code}`;
}

/** Set once the kernel refused the call itself: no process gets a handle after that. */
let unsupported: string | undefined;

/** The exit watcher's part of each addon, made once per addon object (see exitAddon). */
const exitParts = new WeakMap<object, Partial<ExitAddon>>();

/**
 * The serving addon's exit watcher: the object its `exitWatch()` makes on first need (native/addon.cc:
 * defining the poller class at every load cost each cold start ~0.2 ms), kept for the addon's life; an
 * addon of an older build holds the same exports itself.
 */
function exitAddon(): ExitAddon | undefined {
  const served = servingAddon() as (Partial<ExitAddon> & { exitWatch?: () => Partial<ExitAddon> } & object) | undefined;
  if (served === undefined) return undefined;
  let addon: Partial<ExitAddon> = served;
  if (typeof served.exitWatch === 'function') {
    let parts = exitParts.get(served);
    if (parts === undefined) exitParts.set(served, (parts = served.exitWatch()));
    addon = parts;
  }
  if (typeof addon.exitHandle !== 'function' || typeof addon.FdPoller !== 'function') return undefined;
  return addon as ExitAddon;
}

/** Whether exits will come from the kernel here, and why not. Checked with a handle on our own PID. */
export function exitNotification(): ExitNotificationInfo {
  if (servingAddon() === undefined) return { mode: 'interval', reason: 'the native backend does not serve' };
  const addon = exitAddon();
  if (addon === undefined) return { mode: 'interval', reason: 'the addon is out of date (no exit handles)' };
  if (unsupported === undefined) {
    const fd = addon.exitHandle(process.pid);
    if (fd >= 0) {
      if (addon.closeExitHandle) addon.closeExitHandle(fd);
      else closeSync(fd);
    } else if (fd === -os().constants.errno.ENOSYS || fd === -os().constants.errno.EPERM) {
      unsupported = `${addon.exitMechanism}: ${errnoName(fd)}`;
    }
  }
  if (unsupported !== undefined) return { mode: 'interval', mechanism: addon.exitMechanism, reason: unsupported };
  return { mode: 'kernel', mechanism: addon.exitMechanism };
}

export interface ExitWatch {
  /** A handle on `pid`: its key (used by `onExit` and `release`), or the errno name why there is none. */
  open(pid: number): number | string;
  release(key: number): void;
  /** Handles held now (including ones libuv is still closing). */
  readonly size: number;
  close(): void;
}

/**
 * Handles on processes; `onExit(key)` runs (once per handle) when the process exits. Undefined when
 * the native backend does not serve or the kernel lacks the call: the caller probes instead.
 */
export function exitWatch(onExit: (key: number) => void): ExitWatch | undefined {
  const addon = exitAddon();
  if (addon === undefined || unsupported !== undefined) return undefined;
  const poller = new addon.FdPoller((fd) => onExit(fd));
  return {
    open(pid) {
      const fd = addon.exitHandle(pid);
      if (fd < 0) {
        if (fd === -os().constants.errno.ENOSYS) unsupported = `${addon.exitMechanism}: ENOSYS`;
        return errnoName(fd);
      }
      const rc = poller.add(fd);
      return rc === 0 ? fd : errnoName(rc);
    },
    release(key) {
      poller.remove(key);
    },
    get size() {
      return poller.size;
    },
    close() {
      poller.close();
    },
  };
}

/**
 * Calls `onHangup` once when the reader of `fd` (a pipe or socket) goes away, even if nothing is ever
 * written. Returns a function that stops watching, or undefined where this cannot be watched (no
 * addon; `fd` a file or terminal, which have no reader to lose).
 */
export function watchHangup(fd: number, onHangup: () => void): (() => void) | undefined {
  const addon = exitAddon();
  if (addon === undefined || typeof addon.hangupHandle !== 'function') return undefined;
  const handle = addon.hangupHandle(fd);
  if (handle < 0) return undefined;
  const poller = new addon.FdPoller(() => {
    poller.close();
    onHangup();
  });
  if (poller.add(handle) !== 0) return undefined;
  return () => poller.close();
}

/** RLIMIT_NOFILE: how many descriptors this process may hold (Infinity: unlimited). */
export interface FileLimit {
  soft: number;
  hard: number;
}

/** `Max open files` of /proc/self/limits: the JS path's getrlimit (Linux). */
export function parseProcLimits(text: string): FileLimit | undefined {
  const m = /^Max open files +(\d+|unlimited) +(\d+|unlimited) /m.exec(text);
  if (!m) return undefined;
  const value = (s: string): number => (s === 'unlimited' ? Infinity : Number(s));
  return { soft: value(m[1]!), hard: value(m[2]!) };
}

/**
 * This process's descriptor limit, from getrlimit(2) through the addon, else /proc/self/limits;
 * undefined where neither can tell (the caller then keeps its own bound).
 */
export function openFileLimit(): FileLimit | undefined {
  const addon = exitAddon();
  if (addon !== undefined && typeof addon.openFileLimit === 'function') {
    const got = addon.openFileLimit();
    if (Array.isArray(got)) {
      const [soft, hard] = got.map((n) => (n < 0 ? Infinity : n));
      return { soft: soft!, hard: hard! };
    }
  }
  if (process.platform !== 'linux') return undefined;
  try {
    return parseProcLimits(readFileSync('/proc/self/limits', 'latin1'));
  } catch {
    return undefined; // no /proc (a sandbox), or no descriptor left to read it with
  }
}

/** Whether `count` more descriptors can be opened now (each opened on the null device and closed at once). */
export function descriptorsFree(count: number): boolean {
  const fds: number[] = [];
  try {
    while (fds.length < count) fds.push(openSync(os().devNull, 'r')); // \\.\nul on Windows
    return true;
  } catch {
    return false; // EMFILE, ENFILE: not now
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}
