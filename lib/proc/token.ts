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
// 1e15 ticks at 100 Hz is 317,000 years of uptime; Windows FILETIMEs since 1990 exceed 1e16, i.e. have
// 17 digits or more. Counted in digits: Number('9999999999999999') rounds up to 1e16.
const WINDOWS_MIN_DIGITS = 17;
// .NET ticks count from year 1, FILETIME from 1601: .NET = FILETIME + 5.04e17. FILETIME stays below
// 5e17 until about year 3185, so the two Windows encodings never overlap and are told apart here.
const DOTNET_MIN = 5e17;

/**
 * Normalises a raw `procStart` / `procStartFt` value: a non-blank string, trimmed. Anything else
 * (a number, null, an empty or blank string) is absent: a missing token, never a mismatch.
 */
export function recordedToken(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The form of a token (see the top of this file). Blank text is `unknown`. */
export function classifyToken(token: string): TokenForm {
  const t = token.trim();
  if (DECIMAL.test(t)) {
    // Leading zeros are not a form any writer produces.
    if (t.length > 1 && t.charCodeAt(0) === 0x30) return 'unknown';
    return t.length >= WINDOWS_MIN_DIGITS ? 'windows' : 'ticks';
  }
  return isLstartText(t) ? 'lstart' : 'unknown';
}

/**
 * Compares a recorded token with the current one: true (same process), false (same form, different
 * value: another process), or undefined when the two are not comparable (different or unknown forms,
 * or a FILETIME against .NET ticks). Ticks compare exactly, lstart text after collapsing whitespace.
 */
export function compareTokens(recorded: string, current: string): boolean | undefined {
  const form = classifyToken(recorded);
  if (form === 'unknown' || form !== classifyToken(current)) return undefined;
  if (form === 'lstart') return normaliseLstart(recorded) === normaliseLstart(current);
  const a = recorded.trim();
  const b = current.trim();
  if (form === 'windows' && Number(a) >= DOTNET_MIN !== Number(b) >= DOTNET_MIN) return undefined;
  return a === b;
}
