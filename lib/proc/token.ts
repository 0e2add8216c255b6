/**
 * Start tokens as Claude Code records them, classified by form (never by field name):
 * - `ticks`: Linux clock ticks since boot, a decimal integer (e.g. "654274470");
 * - `lstart`: macOS `ps -o lstart=` text, meant to be UTC (e.g. "Sat Sep  5 05:21:48 2026");
 * - `windows`: a creation FILETIME (~1.3e17) or .NET ticks (~6.4e17), decimal;
 * - `unknown`: anything else.
 * Only tokens of the same form are comparable; anything else is "not comparable", never a mismatch.
 * lstart and Windows tokens are compared as instants, with the time-zone rule below (docs/macos.md).
 */
import { isLstartText, parseLstart } from './lstart.js';

export type TokenForm = 'ticks' | 'lstart' | 'windows' | 'unknown';

// 1e15 ticks at 100 Hz is 317,000 years of uptime; Windows FILETIMEs since 1990 exceed 1e16, i.e. have
// 17 digits or more. Counted in digits: Number('9999999999999999') rounds up to 1e16.
const WINDOWS_MIN_DIGITS = 17;
// Both Windows encodings fit in 63 bits (.NET's largest tick, year 9999, has 19 digits): longer decimal
// text is no writer's token, and is never handed to BigInt (whose parsing grows with the length).
const WINDOWS_MAX_DIGITS = 19;
// .NET ticks count from year 1, FILETIME from 1601: .NET = FILETIME + 5.04e17. FILETIME stays below
// 5e17 until about year 3185, so the two Windows encodings never overlap and are told apart here.
const DOTNET_MIN = 5e17;
// The ticks between 0001-01-01 and 1601-01-01 (.NET's DateTime.FileTimeOffset), in 100 ns units.
const DOTNET_TO_FILETIME = 504911232000000000n;

/** Every UTC offset in use is a whole number of quarter hours (+5:45, +8:45, +12:45 included)… */
const QUARTER_HOUR_S = 900;
/** …between UTC−12 and UTC+14. */
const MAX_ZONE_OFFSET_S = 14 * 3600;
const FILETIME_PER_S = 10_000_000n;
const FILETIME_PER_US = 10n;

/**
 * Normalises a raw `procStart` / `procStartFt` value: a non-blank string, trimmed. Anything else
 * (a number, null, an empty or blank string) is absent: a missing token, never a mismatch.
 */
export function recordedToken(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * True for one or more ASCII digits and nothing else. A loop, not /^[0-9]+$/: every record's token
 * goes through here, and a cold process (a statusline's, a guard's) would compile the pattern twice,
 * once more to machine code on its second use, for a handful of tokens.
 */
export function isDecimal(t: string): boolean {
  if (t.length === 0) return false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The form of a decimal token, or undefined when the text is not decimal. */
function decimalForm(t: string): TokenForm | undefined {
  if (!isDecimal(t)) return undefined;
  // Leading zeros are not a form any writer produces.
  if (t.length > 1 && t.charCodeAt(0) === 0x30) return 'unknown';
  if (t.length > WINDOWS_MAX_DIGITS) return 'unknown';
  return t.length >= WINDOWS_MIN_DIGITS ? 'windows' : 'ticks';
}

function checkToken(fn: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') throw new TypeError(`${fn}: a token must be a string (got ${typeof value})`);
}

/** The form of a token (see the top of this file). Blank text is `unknown`. */
export function classifyToken(token: string): TokenForm {
  checkToken('classifyToken(token)', token);
  const t = token.trim();
  return decimalForm(t) ?? (isLstartText(t) ? 'lstart' : 'unknown');
}

/**
 * True when two readings of one instant differ by `seconds` the way a clock in another time zone
 * would: a non-zero whole number of quarter hours, at most 14 h either way. That is what a writer that
 * printed local time instead of UTC leaves behind, so it says "not comparable", never "another process".
 */
export function isZoneOffset(seconds: number): boolean {
  return seconds !== 0 && Math.abs(seconds) <= MAX_ZONE_OFFSET_S && seconds % QUARTER_HOUR_S === 0;
}

/** True for .NET ticks, false for a FILETIME (the two ranges never overlap: see DOTNET_MIN). */
function isDotnetTicks(t: string): boolean {
  return Number(t) >= DOTNET_MIN;
}

/** A Windows token as a FILETIME (100 ns since 1601, UTC or local as written), exact: past 2^53. */
function windowsFiletime(t: string): bigint {
  const value = BigInt(t);
  return isDotnetTicks(t) ? value - DOTNET_TO_FILETIME : value;
}

/**
 * The difference of two Windows tokens, in the finest unit both can hold: 100 ns within one encoding;
 * whole microseconds across the two, because .NET ticks come from Claude Code's PowerShell fallback,
 * `Win32_Process.CreationDate`, a CIM datetime with six fractional digits (the FILETIME cut to the
 * microsecond). Compared exactly at 100 ns, a live session recorded that way would read recycled nine
 * times in ten. Returns [difference, units per second].
 */
function windowsDifference(a: string, b: string): [bigint, bigint] {
  const fa = windowsFiletime(a);
  const fb = windowsFiletime(b);
  if (isDotnetTicks(a) === isDotnetTicks(b)) return [fa - fb, FILETIME_PER_S];
  return [fa / FILETIME_PER_US - fb / FILETIME_PER_US, FILETIME_PER_S / FILETIME_PER_US];
}

/** Two readings `seconds` apart: the same instant (true), a time-zone offset (undefined), or not (false). */
function byInstant(seconds: number): boolean | undefined {
  if (seconds === 0) return true;
  return isZoneOffset(seconds) ? undefined : false;
}

/**
 * Compares a recorded token with the current one: true (same process), false (same form, different
 * value: another process), or undefined when the two are not comparable (different or unknown forms).
 * Ticks compare exactly. lstart text and Windows tokens (FILETIME and .NET ticks alike) compare as
 * instants (a FILETIME against .NET ticks to the microsecond, the precision of .NET ticks' source); two instants a time-zone offset apart (isZoneOffset) are undefined, not false: the same
 * process written in local time must stay live and never be pruned.
 */
export function compareTokens(recorded: string, current: string): boolean | undefined {
  checkToken('compareTokens(recorded, current)', recorded);
  checkToken('compareTokens(recorded, current)', current);
  const a = recorded.trim();
  const b = current.trim();
  const form = decimalForm(a);
  if (form !== undefined) {
    if (form === 'unknown' || form !== decimalForm(b)) return undefined;
    if (form === 'ticks') return a === b;
    const [difference, perSecond] = windowsDifference(a, b);
    // A fraction of a second apart is no time zone: another process (or another clock), compared exactly.
    if (difference % perSecond !== 0n) return false;
    return byInstant(Number(difference / perSecond));
  }
  const startA = parseLstart(a);
  if (startA === undefined) return undefined;
  const startB = parseLstart(b);
  if (startB === undefined) return undefined;
  return byInstant(startA - startB);
}
