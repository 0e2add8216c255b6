/**
 * A claim's raw document is frozen all the way down (lib/registry/read/schema.ts, deepFreeze), for
 * every shape JSON can take: objects in arrays in objects, arrays of arrays, empty ones, and keys that
 * are array indexes. Nothing outside the document is frozen, even what a polluted Object.prototype
 * would show a for-in loop (Object.values and for-in differ there).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseClaimText } from '../../../lib/registry/read/schema.js';

/** Every object and array in a value, itself included. */
function containers(value: unknown, out: object[] = []): object[] {
  if (typeof value !== 'object' || value === null) return out;
  out.push(value);
  for (const v of Object.values(value)) containers(v, out);
  return out;
}

const claimOf = (extra: unknown) => {
  const claim = parseClaimText(JSON.stringify({ pid: 4242, sessionId: 's', procStart: '1', extra, peerFeatures: ['a', ['b', { c: [] }]] }), '/x/4242.json', 4242);
  if (typeof claim !== 'object') throw new Error(`not a claim: ${claim}`);
  return claim;
};

describe('a claim\'s raw document', () => {
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>).polluted;
  });

  it('is frozen at every level, whatever JSON it holds', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (extra) => {
        const { raw } = claimOf(extra);
        const all = containers(raw);
        expect(all.length).toBeGreaterThanOrEqual(4);
        for (const c of all) expect(Object.isFrozen(c)).toBe(true);
        expect(raw.extra).toEqual(JSON.parse(JSON.stringify(extra)));
      }),
      { numRuns: 500 },
    );
    const { raw } = claimOf({ '0': { deep: [1, [{ x: {} }]] }, '7': [] });
    for (const c of containers(raw)) expect(Object.isFrozen(c)).toBe(true);
  });

  it('freezes nothing an enumerable property of Object.prototype holds', () => {
    const outside = { mine: true };
    Object.defineProperty(Object.prototype, 'polluted', { value: outside, enumerable: true, configurable: true, writable: true });
    const { raw } = claimOf({ a: { b: 1 } });
    expect(Object.isFrozen(raw.extra)).toBe(true);
    expect(Object.isFrozen(outside)).toBe(false);
  });
});
