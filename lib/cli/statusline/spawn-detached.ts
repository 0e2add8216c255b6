/**
 * Starting the autostarted watcher from a render (autostart.ts) without loading node:child_process:
 * that module pulls in node:net and the streams, ~7 ms of a ~40 ms first render (a --cpu-prof of
 * it; docs/statusline.md, "Cost of a render"). Node's own `process_wrap` binding, the one
 * child_process.spawn calls, starts the same detached process in ~0.1 ms of loading. The public
 * module is the fallback wherever that binding is missing, throws, or would print a deprecation
 * warning (--pending-deprecation), so a change in Node costs speed, never the watcher.
 */
import { lazyBuiltin } from '../../runtime.js';

const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');

export interface DetachedOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A descriptor for the child's stderr, or 'ignore'. stdin and stdout are /dev/null. */
  stderr: number | 'ignore';
}

interface ProcessHandle {
  pid?: number;
  onexit?: (code: number, signal: string) => void;
  spawn(options: object): number;
  unref(): void;
  close(): void;
}

function pendingDeprecation(): boolean {
  return (
    process.execArgv.includes('--pending-deprecation') ||
    /--pending-deprecation/.test(process.env.NODE_OPTIONS ?? '') ||
    process.env.NODE_PENDING_DEPRECATION === '1'
  );
}

function processWrap(): (new () => ProcessHandle) | undefined {
  if (pendingDeprecation()) return undefined;
  try {
    const binding = (process as unknown as { binding?: (name: string) => { Process?: new () => ProcessHandle } }).binding?.('process_wrap');
    return typeof binding?.Process === 'function' ? binding.Process : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `file args…` in a session of its own, not waited for; resolves to its PID (undefined: it did not start). */
export function spawnDetached(file: string, args: readonly string[], options: DetachedOptions, via: 'binding' | 'module' = 'binding'): number | undefined {
  const Process = via === 'binding' ? processWrap() : undefined;
  if (Process !== undefined) {
    const handle = new Process();
    handle.onexit = () => handle.close();
    const envPairs = Object.entries(options.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
    const error = handle.spawn({
      file,
      args: [file, ...args],
      cwd: options.cwd,
      envPairs,
      stdio: [{ type: 'ignore' }, { type: 'ignore' }, options.stderr === 'ignore' ? { type: 'ignore' } : { type: 'fd', fd: options.stderr }],
      detached: true,
      windowsHide: false,
      windowsVerbatimArguments: false,
    });
    if (error !== 0) {
      handle.close();
      return undefined;
    }
    handle.unref();
    return handle.pid;
  }
  const child = childProcess().spawn(file, [...args], { detached: true, cwd: options.cwd, stdio: ['ignore', 'ignore', options.stderr], env: options.env });
  child.on('error', () => {});
  child.unref();
  return child.pid;
}
