/**
 * The watcher renders every session's line from one view builder (viewsOver) that counts once and
 * subtracts each session's own records. It must give exactly the view of the plain definition
 * below (every record but the session's own, counted and filtered again), for any records and any
 * choice of "own" records, including records that are not in the list at all.
 */
import fc from 'fast-check';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countRecords } from '../../lib/cli/commands/summary.js';
import { sanitise, viewFor, viewsOver } from '../../lib/cli/statusline/view.js';
import type { SessionRecord, Verdict } from '../../lib/registry/types.js';

const VERDICTS: Verdict[] = ['alive', 'unverified', 'foreign', 'gone', 'recycled', 'zombie'];

const recordArb = fc
  .record({
    pid: fc.integer({ min: 1, max: 40 }),
    status: fc.constantFrom(undefined, 'busy', 'idle', 'waiting', 'shell', 'odd'),
    verdict: fc.constantFrom(...VERDICTS),
    interactive: fc.boolean(),
    statusUpdatedAt: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    name: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
    waitingFor: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  })
  .map(
    (r) =>
      ({
        ...r,
        path: `/s/${r.pid}.json`,
        sessionId: `s${r.pid}`,
        live: !['gone', 'recycled', 'zombie'].includes(r.verdict),
        kind: r.interactive ? 'interactive' : 'bg',
        cwd: '/home/dev/project',
      }) as unknown as SessionRecord,
  );

/** The definition: the others are every listed record but the session's own. */
function plainView(records: readonly SessionRecord[], self: readonly SessionRecord[]) {
  const mine = new Set(self);
  const others = records.filter((r) => !mine.has(r));
  const waiting = others
    .filter((r) => r.live && r.status === 'waiting')
    .sort((a, b) => (a.statusUpdatedAt ?? Infinity) - (b.statusUpdatedAt ?? Infinity) || a.pid - b.pid);
  return {
    all: countRecords(records, false),
    others: countRecords(others, false),
    waiters: waiting.map((r) => ({
      pid: r.pid,
      label: sanitise(r.name, 24) || sanitise(r.cwd === undefined ? undefined : basename(r.cwd), 24) || `pid ${r.pid}`,
      waitingFor: sanitise(r.waitingFor, 32),
    })),
    self: self.find((r) => r.live) ?? self[0],
    hosts: [], // other hosts are passed in (hosts-line.test.ts), never derived from the records
  };
}

describe('statusline views over one list of records', () => {
  it('equal the plain definition for every session of a list, and for own records not in it', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 40 }), fc.array(recordArb, { maxLength: 3 }), (records, strangers) => {
        const viewOf = viewsOver(records);
        for (const pid of new Set(records.map((r) => r.pid))) {
          const self = records.filter((r) => r.pid === pid && r.verdict !== 'foreign');
          expect(viewOf(self)).toEqual(plainView(records, self));
          expect(viewOf([...self, ...strangers])).toEqual(plainView(records, [...self, ...strangers]));
        }
        expect(viewOf([])).toEqual(plainView(records, []));
        expect(viewFor(records, strangers)).toEqual(plainView(records, strangers));
      }),
      { numRuns: 300 },
    );
  });
});
