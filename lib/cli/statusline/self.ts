/**
 * Which records are this statusline's own session (docs/statusline.md): Claude Code starts a
 * statusLine command with `CLAUDE_PID`, the claude process whose record is `sessions/$CLAUDE_PID.json`.
 * It is trusted only when it is a positive decimal integer and a local record with that PID exists;
 * else the session id (the stdin document's `session_id`, then `CLAUDE_CODE_SESSION_ID`); else none,
 * and every session counts as another.
 */
import type { SessionRecord } from '../../registry/types.js';
import { isDecimal } from '../../proc/token.js';

export type SelfSource = 'CLAUDE_PID' | 'session_id' | 'CLAUDE_CODE_SESSION_ID' | 'none';

export interface SelfMatch {
  records: SessionRecord[];
  by: SelfSource;
  /** A problem worth one stderr line (a CLAUDE_PID that is not a PID), or undefined. */
  problem?: string;
}

/** A PID as text: 1 to 16 decimal digits, no leading zero (no pattern: a render would compile one for one test). */
function isPidText(text: string): boolean {
  return text.length <= 16 && text.charCodeAt(0) !== 48 && isDecimal(text);
}

export function findSelf(
  records: readonly SessionRecord[],
  env: NodeJS.ProcessEnv,
  stdinSessionId: string | undefined,
): SelfMatch {
  let problem: string | undefined;
  const pidText = env.CLAUDE_PID;
  if (pidText !== undefined && pidText !== '') {
    const pid = isPidText(pidText) ? Number(pidText) : NaN;
    if (Number.isSafeInteger(pid)) {
      // A foreign record's PID belongs to another PID space: the same number is not this process.
      const own = records.filter((r) => r.pid === pid && r.verdict !== 'foreign');
      if (own.length > 0) return { records: own, by: 'CLAUDE_PID' };
    } else {
      problem = `CLAUDE_PID is not a PID (${JSON.stringify(pidText.slice(0, 24))}); ignored`;
    }
  }
  for (const [id, by] of [
    [stdinSessionId, 'session_id'],
    [env.CLAUDE_CODE_SESSION_ID, 'CLAUDE_CODE_SESSION_ID'],
  ] as const) {
    if (id === undefined || id === '') continue;
    const own = records.filter((r) => r.sessionId === id);
    if (own.length > 0) return { records: own, by, problem };
  }
  return { records: [], by: 'none', problem };
}
