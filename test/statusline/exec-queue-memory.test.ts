/**
 * `watch --exec`: what waits in the queue is the run's bounded environment, never the event's records.
 * The queue is bounded in events (MAX_QUEUED), and a record may be a 256 KiB document: behind a slow
 * command, 806 queued events of one 188 KB record that kept changing took the watcher from 48 MB to
 * 410 MB resident, and a larger one would take it past the heap limit. A real command holds the
 * queue (a sleep that outlives the test's pushes); the garbage collector shows what is kept.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach, until } from './helpers.js';
import { ExecRunner } from '../../lib/cli/statusline/exec.js';
import type { WatchEvent } from '../../lib/index.js';
import type { SessionRecord } from '../../lib/registry/types.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const cleanups = cleanupsAfterEach();

/** A `changed` event whose record carries a large document, as a hostile or busy session writes it. */
function bigEvent(i: number): WatchEvent {
  const raw: Record<string, unknown> = {};
  for (let k = 0; k < 2000; k++) raw[`key${k}`] = `${i}-${k}`;
  const record = { pid: 7, sessionId: `s-${i}`, status: 'busy', verdict: 'alive', kind: 'interactive', path: '/x/7.json', raw } as SessionRecord;
  return { type: 'changed', record, previous: { ...record, status: 'idle' }, fields: ['status'] };
}

describe('the exec runner queue', () => {
  it('keeps no record of a queued event, only the values its run will get', async () => {
    const lines: string[] = [];
    const runner = new ExecRunner({ command: { argv: ['sleep', '30'] }, report: (l) => lines.push(l) });
    cleanups.push(() => runner.close());
    const refs: WeakRef<object>[] = [];
    // Built in a function of its own: nothing on this stack keeps them.
    const pushAll = () => {
      for (let i = 0; i < 200; i++) {
        const e = bigEvent(i);
        if (i > 0) refs.push(new WeakRef(e.record.raw as object));
        runner.push(e);
      }
    };
    pushAll();
    expect(runner.queued).toBe(199);
    // WeakRefs hold their target until the current job ends.
    await new Promise((r) => setTimeout(r, 0));
    await until(() => {
      gc();
      return refs.every((r) => r.deref() === undefined);
    }, 'the queued records to be collected', 5000);
    expect(runner.queued).toBe(199);
    expect(lines).toEqual([]);
  });
});
