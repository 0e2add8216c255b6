/** The event rules, on records built by the real parser and verdict code (no files, no processes). */
import { describe, expect, it } from 'vitest';
import { parseClaim } from '../../../lib/registry/read/schema.js';
import type { SessionRecord, Verdict } from '../../../lib/registry/types.js';
import { DEAD_VERDICTS } from '../../../lib/registry/types.js';
import { changedFields, transition } from '../../../lib/registry/watch/diff.js';

function record(doc: Record<string, unknown>, verdict: Verdict = 'alive'): SessionRecord {
  const claim = parseClaim(Buffer.from(JSON.stringify({ pid: 42, sessionId: 's', ...doc })), '/x/42.json', 42);
  if (typeof claim === 'string') throw new Error(claim);
  return Object.freeze({ ...claim, interactive: true, verdict, live: !DEAD_VERDICTS.has(verdict) });
}

describe('changedFields', () => {
  it('lists typed fields and untyped document keys that differ, sorted, never raw', () => {
    const a = record({ status: 'idle', nameSince: 1, peerFeatures: ['a'] });
    const b = record({ status: 'busy', nameSince: 2, peerFeatures: ['a'] });
    expect(changedFields(a, b)).toEqual(['nameSince', 'status']);
  });

  it('sees a mistyped field change that reads as absent on both sides', () => {
    expect(changedFields(record({ status: 1 }), record({ status: 2 }))).toEqual(['status']);
  });

  it('is empty for the same content read twice', () => {
    expect(changedFields(record({ tmux: 's:@1.%2', formerNames: ['x'] }), record({ tmux: 's:@1.%2', formerNames: ['x'] }))).toEqual([]);
  });
});

describe('transition', () => {
  it('is added without a previous record, and nothing for an equal one', () => {
    const a = record({});
    expect(transition(undefined, a)).toEqual({ type: 'added', record: a });
    expect(transition(a, record({}))).toBeUndefined();
  });

  it('is died only when the verdict turns provably dead from one that was not', () => {
    for (const from of ['alive', 'unverified', 'foreign'] as Verdict[]) {
      for (const to of ['gone', 'recycled', 'zombie'] as Verdict[]) {
        expect(transition(record({}, from), record({}, to))?.type).toBe('died');
      }
    }
    // Dead to dead (a zombie reaped, a PID reused) is a change, not a second death; and back to live too.
    expect(transition(record({}, 'zombie'), record({}, 'gone'))).toMatchObject({ type: 'changed', fields: ['verdict'] });
    expect(transition(record({}, 'gone'), record({}, 'unverified'))).toMatchObject({ type: 'changed', fields: ['live', 'verdict'] });
    expect(transition(record({}, 'alive'), record({}, 'unverified'))).toMatchObject({ type: 'changed', fields: ['verdict'] });
  });
});
