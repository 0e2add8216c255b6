/**
 * The watcher's options, checked in one pure function that the library and the CLI share, so that a
 * value one accepts the other cannot reject (docs/watch.md). A wrong type is a TypeError, a number
 * out of range a RangeError; nothing is coerced or clamped silently.
 */
import type { ReadOptions } from '../types.js';

export interface WatchOptions extends ReadOptions {
  /** Liveness re-probe period in ms, WATCH_INTERVAL_MIN_MS..TIMER_MAX_MS (default 1000). */
  interval?: number;
  /** A full rescan every this many intervals, as a safety net under OS file events (default 10). */
  rescanEvery?: number;
  /** Report the records present at the start as `added` (default true). */
  initial?: boolean;
  /** Keep this snapshot file up to date: written at the start, then on every change, at most once per interval. */
  snapshotFile?: string;
  /**
   * At most this many kernel exit handles (a pidfd on Linux, a kqueue on macOS) at once (default
   * 1024; 0 turns kernel notification off), and never more than half of what the soft RLIMIT_NOFILE
   * leaves after a reserve (docs/watch.md). Records beyond it are re-probed every interval.
   */
  exitHandles?: number;
}

/** Timers hold a signed 32-bit count of ms: a longer delay turns into 1 ms (Node's TimeoutOverflowWarning). */
export const TIMER_MAX_MS = 2 ** 31 - 1;
/** A shorter interval is a busy loop, not a poll. */
export const WATCH_INTERVAL_MIN_MS = 10;
export const DEFAULT_INTERVAL_MS = 1000;
export const DEFAULT_RESCAN_EVERY = 10;
export const DEFAULT_EXIT_HANDLES = 1024;
const DEFAULT_RETRY_DELAY_MS = 25;

export interface WatchSettings {
  interval: number;
  rescanEvery: number;
  retryDelayMs: number;
  initial: boolean;
  snapshotFile: string | undefined;
  exitHandles: number;
  env: NodeJS.ProcessEnv | undefined;
}

function numberIn(value: unknown, name: string, fallback: number, min: number, max: number, integer: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`watch: options.${name} must be a number (got ${typeof value === 'number' ? 'NaN' : typeof value})`);
  }
  if (value < min || value > max || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    const what = integer ? 'an integer' : 'a number';
    throw new RangeError(`watch: options.${name} must be ${what} from ${min} to ${max} (got ${value})`);
  }
  return value;
}

/** Checks and completes watch options. Throws TypeError / RangeError with the option's name. */
export function watchSettings(options: unknown): WatchSettings {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object') throw new TypeError('watch: options must be an object or undefined');
  const o = options as WatchOptions;
  if (o.initial !== undefined && typeof o.initial !== 'boolean') throw new TypeError('watch: options.initial must be a boolean');
  if (o.snapshotFile !== undefined && (typeof o.snapshotFile !== 'string' || o.snapshotFile === '')) {
    throw new TypeError('watch: options.snapshotFile must be a non-empty string');
  }
  if (o.env !== undefined && (o.env === null || typeof o.env !== 'object')) throw new TypeError('watch: options.env must be an object');
  return {
    interval: numberIn(o.interval, 'interval', DEFAULT_INTERVAL_MS, WATCH_INTERVAL_MIN_MS, TIMER_MAX_MS, false),
    // Counted in intervals, never handed to a timer: any positive safe integer holds.
    rescanEvery: numberIn(o.rescanEvery, 'rescanEvery', DEFAULT_RESCAN_EVERY, 1, Number.MAX_SAFE_INTEGER, true),
    retryDelayMs: numberIn(o.retryDelayMs, 'retryDelayMs', DEFAULT_RETRY_DELAY_MS, 0, TIMER_MAX_MS, false),
    initial: o.initial !== false,
    snapshotFile: o.snapshotFile,
    exitHandles: numberIn(o.exitHandles, 'exitHandles', DEFAULT_EXIT_HANDLES, 0, 1_048_576, true),
    env: o.env,
  };
}
