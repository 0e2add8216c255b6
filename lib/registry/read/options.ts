/**
 * ReadOptions, checked once at the start of every read: a wrong type is a programmer error and throws
 * a TypeError that names the option, before any file is touched (never a silent default).
 */
import type { ReadOptions } from '../types.js';

/** Claude Code's own reader pauses 25 ms before its one re-read. */
export const DEFAULT_RETRY_DELAY_MS = 25;

/** setTimeout's largest delay: above it Node waits 1 ms instead, so the async twin would not pause. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export interface CheckedReadOptions {
  retryDelayMs: number;
  /** undefined: process.env. */
  env: NodeJS.ProcessEnv | undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'number') return String(value);
  return `a ${typeof value}`;
}

export function checkReadOptions(options: unknown): CheckedReadOptions {
  if (options === undefined) return { retryDelayMs: DEFAULT_RETRY_DELAY_MS, env: undefined };
  if (!isPlainObject(options)) throw new TypeError(`options must be an object or undefined, got ${describe(options)}`);
  const { retryDelayMs = DEFAULT_RETRY_DELAY_MS, env } = options as ReadOptions & Record<string, unknown>;
  if (typeof retryDelayMs !== 'number' || !Number.isFinite(retryDelayMs) || retryDelayMs < 0 || retryDelayMs > MAX_DELAY_MS) {
    throw new TypeError(`options.retryDelayMs must be a number of milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(retryDelayMs)}`);
  }
  if (env !== undefined) {
    if (!isPlainObject(env)) throw new TypeError(`options.env must be an object (like process.env) or undefined, got ${describe(env)}`);
    const dir: unknown = env.CLAUDE_CONFIG_DIR;
    if (dir !== undefined && typeof dir !== 'string') {
      throw new TypeError(`options.env.CLAUDE_CONFIG_DIR must be a string or undefined, got ${describe(dir)}`);
    }
  }
  return { retryDelayMs, env };
}
