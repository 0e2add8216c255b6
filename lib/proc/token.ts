/**
 * Start tokens as Claude Code records them, classified by form (never by field name):
 * - `ticks`: Linux clock ticks since boot, a decimal integer (e.g. "654274470");
 * - `lstart`: macOS `ps -o lstart=` text in UTC (e.g. "Sat Sep  5 05:21:48 2026");
 * - `windows`: a creation FILETIME (~1.3e17) or .NET ticks (~6.4e17), decimal;
 * - `unknown`: anything else.
 * Only tokens of the same form are comparable; anything else is "not comparable", never a mismatch.
 */
import { isLstartText, normaliseLstart } from './lstart.js';

export type TokenForm = 'ticks' | 'lstart' | 'windows' | 'unknown';

const DECIMAL = /^[0-9]+$/;
// 1e15 ticks at 100 Hz is 317,000 years of uptime; Windows FILETIMEs since 1990 exceed 1e16.
const WINDOWS_MIN = 1e16;

/**
 * Normalises a raw `procStart` / `procStartFt` value: a non-blank string, trimmed. Anything else
 * (a number, null, an empty or blank string) is absent: a missing token, never a mismatch.
 */
export function recordedToken(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export function classifyToken(token: string): TokenForm {
  const t = token.trim();
  if (DECIMAL.test(t)) {
    // Leading zeros are not a form any writer produces.
    if (t.length > 1 && t.charCodeAt(0) === 0x30) return 'unknown';
    return Number(t) >= WINDOWS_MIN ? 'windows' : 'ticks';
  }
  return isLstartText(t) ? 'lstart' : 'unknown';
}

/**
 * Compares a recorded token with the current one: true (same process), false (same form, different
 * value: another process), or undefined when the two are not comparable (different or unknown forms).
 */
export function compareTokens(recorded: string, current: string): boolean | undefined {
  const form = classifyToken(recorded);
  if (form === 'unknown' || form !== classifyToken(current)) return undefined;
  if (form === 'lstart') return normaliseLstart(recorded) === normaliseLstart(current);
  return recorded.trim() === current.trim();
}
