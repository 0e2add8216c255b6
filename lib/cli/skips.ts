/**
 * Nothing disappears without a word: what the human-facing commands say on stderr, in one line, about
 * the candidates they could not read, and the `skipped` list their `--json` carries. A `<pid>.json`
 * that cannot be read (a 0600 record of another user, a torn write) may be a live session, so a count
 * or a table without it must say so.
 */
import { closeSync, constants, openSync } from 'node:fs';
import type { SkippedCandidate, SkipReason } from '../registry/types.js';
import { systemErrorPhrase } from '../registry/system-error.js';

/** One skipped candidate in `--json` output: the library's fields, and the system's code when unreadable. */
export interface SkipJson {
  path: string;
  pid: number;
  reason: SkipReason;
  /** For `unreadable`: why the open failed now (`EACCES`, …), else null. */
  error: string | null;
}

const WHY: Readonly<Record<SkipReason, string>> = {
  symlink: 'a symbolic link',
  'not-regular': 'not a regular file',
  'too-large': 'larger than 256 KiB',
  unparseable: 'not JSON',
  'not-object': 'not a JSON object',
  'pid-mismatch': 'a pid other than its name',
  'no-session-id': 'no sessionId',
  unreadable: 'unreadable',
};

/** Why an unreadable file cannot be opened now (never following a link, never blocking on a FIFO). */
function openError(path: string): NodeJS.ErrnoException | undefined {
  try {
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
    return undefined;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

export function skipsJson(skipped: readonly SkippedCandidate[]): SkipJson[] {
  return skipped.map((s) => ({
    path: s.path,
    pid: s.pid,
    reason: s.reason,
    error: s.reason === 'unreadable' ? (openError(s.path)?.code ?? null) : null,
  }));
}

/** What each skip is, for a person: `permission denied (EACCES)`, `not JSON`, … */
function why(s: SkipJson): string {
  if (s.reason !== 'unreadable') return WHY[s.reason];
  return s.error ? `${systemErrorPhrase(s.error) ?? 'unreadable'}, ${s.error}` : 'unreadable';
}

/**
 * `3 candidate records (<pid>.json) could not be read (permission denied, EACCES): sessions may be missing; …`,
 * or undefined when nothing was skipped. One line, whatever the count.
 */
export function skipNote(skipped: readonly SkippedCandidate[] | readonly SkipJson[]): string | undefined {
  if (skipped.length === 0) return undefined;
  const rows = skipped.map((s) => ('error' in s ? s : skipsJson([s])[0]!));
  const tally = new Map<string, number>();
  for (const s of rows) tally.set(why(s), (tally.get(why(s)) ?? 0) + 1);
  const reasons =
    tally.size === 1 ? [...tally.keys()][0]! : [...tally].map(([text, n]) => `${n} ${text}`).join(', ');
  const noun = skipped.length === 1 ? 'candidate record' : 'candidate records';
  return `${skipped.length} ${noun} (<pid>.json) could not be read (${reasons}): sessions may be missing; \`claude-ps doctor\` lists them`;
}
