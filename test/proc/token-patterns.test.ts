/**
 * The checks that stand in for regular expressions on the cold read path (each pattern a cold process
 * runs is compiled on every run): a record token's decimal form (lib/proc/token.ts), a statusline's
 * CLAUDE_PID (lib/cli/statusline/self.ts) and the ES entry's policy flags (lib/library-entry.ts). Each
 * must answer as the pattern it replaces, on text made of the characters that could tell them apart.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSelf } from '../../lib/cli/statusline/self.js';
import { namesPolicy } from '../../lib/library-entry.js';
import { isLstartText } from '../../lib/proc/lstart.js';
import { classifyToken } from '../../lib/proc/token.js';

const textOf = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((c) => c.join(''));
// ASCII digits, other digits (Arabic-Indic, fullwidth), signs, a dot, spaces, a letter, a NUL.
const tokenish = textOf(['0', '1', '7', '9', '\u0663', '\uff11', '+', '-', '.', ' ', '\t', 'e', '\0'], 24);

/** classifyToken with /^[0-9]+$/, as it was written. */
function classifyByPattern(token: string): string {
  const t = token.trim();
  if (/^[0-9]+$/.test(t)) {
    if (t.length > 1 && t.charCodeAt(0) === 0x30) return 'unknown';
    if (t.length > 19) return 'unknown';
    return t.length >= 17 ? 'windows' : 'ticks';
  }
  return isLstartText(t) ? 'lstart' : 'unknown';
}

describe('checks spelled out instead of patterns', () => {
  it('a token is decimal exactly when /^[0-9]+$/ says so', () => {
    fc.assert(
      fc.property(tokenish, (token) => {
        expect(classifyToken(token)).toBe(classifyByPattern(token));
      }),
      { numRuns: 5000 },
    );
    expect(classifyToken('\u0663\u0663')).toBe('unknown');
    expect(classifyToken('')).toBe('unknown');
  });

  it('CLAUDE_PID is a PID exactly when /^[1-9][0-9]{0,15}$/ says so', () => {
    const pidish = textOf(['0', '1', '5', '9', '\u0663', '+', '-', ' ', 'x'], 20);
    fc.assert(
      fc.property(pidish, (text) => {
        fc.pre(text !== '');
        const rejected = findSelf([], { CLAUDE_PID: text }, undefined).problem !== undefined;
        const pid = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
        expect(rejected).toBe(!Number.isSafeInteger(pid));
      }),
      { numRuns: 5000 },
    );
    expect(findSelf([], { CLAUDE_PID: '9'.repeat(16) }, undefined).problem).toMatch(/not a PID/); // past 2^53
    expect(findSelf([], { CLAUDE_PID: '9007199254740991' }, undefined).problem).toBeUndefined();
  });

  it('the policy flags are found as whole words, as /--(experimental-policy|policy-integrity)\\b/ finds them', () => {
    const parts = fc.constantFrom('--experimental-policy', '--policy-integrity', '=', 'x', '_', '-', ' ', '1', 'Z', '.', '\u00e9', 'policy');
    const options = fc.array(parts, { maxLength: 6 }).map((p) => p.join(''));
    fc.assert(
      fc.property(options, (text) => {
        expect(namesPolicy(text)).toBe(/--(experimental-policy|policy-integrity)\b/.test(text));
      }),
      { numRuns: 5000 },
    );
    expect(namesPolicy('--no-warnings --experimental-policy=p.json ')).toBe(true);
    expect(namesPolicy('--experimental-policyx --policy-integrity_')).toBe(false);
  });
});
