/**
 * The pure verdict rule, for the probe answers this Linux machine cannot produce (macOS lstart tokens,
 * Windows tokens against either form). The real-process cases are in verdict.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ProbeState } from '../../lib/backend/types.js';
import { decideVerdict } from '../../lib/registry/verdict.js';

const LSTART = 'Sat Sep  5 05:21:48 2026';

describe('decideVerdict', () => {
  const cases: [string | undefined, ProbeState, string | undefined, string][] = [
    // macOS: lstart text compared after collapsing whitespace
    [LSTART, 'alive', 'Sat Sep 5 05:21:48 2026', 'alive'],
    [LSTART, 'alive', 'Sat Sep  5 05:21:49 2026', 'recycled'],
    ['654274470', 'alive', LSTART, 'unverified'], // a Linux token on macOS: another form
    ['133822222222222222', 'alive', LSTART, 'unverified'], // Windows FILETIME
    [LSTART, 'alive', '654274470', 'unverified'],
    // a token this backend could not read (hidepid, EPERM) or none recorded
    ['654274470', 'unverified', undefined, 'unverified'],
    [undefined, 'alive', '654274470', 'unverified'],
    // provably dead, whatever the tokens
    ['654274470', 'gone', undefined, 'gone'],
    [undefined, 'gone', undefined, 'gone'],
    [undefined, 'zombie', '654274470', 'zombie'],
    ['654274470', 'zombie', '654274471', 'zombie'],
    ['654274470', 'alive', '654274470', 'alive'],
    ['654274470', 'alive', '654274471', 'recycled'],
  ];
  it.each(cases)('recorded %j, probe %s with %j → %s', (recorded, state, current, expected) => {
    expect(decideVerdict(recorded, state, current)).toBe(expected);
  });
});
