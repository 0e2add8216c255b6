/**
 * Nothing a folder holds and nothing a listener does stops the watcher or costs another record its
 * events: values nested thousands of levels deep, listeners that throw (with and without an `error`
 * listener), a listener that closes the watcher.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { readRecords } from '../../../lib/registry/read/scan.js';
import type { WatchEvent } from '../../../lib/registry/watch/diff.js';
import { changedFields } from '../../../lib/registry/watch/diff.js';
import { procStartTicks, spawnSleep } from '../../helpers/processes.js';
import { brief, cleanUpEachTest, collect, deepText, runScript, tempRegistry, watch } from './helpers.js';

cleanUpEachTest();

/** A record's text with `extra` spliced in as raw JSON (JSON.stringify itself overflows on deep values). */
function recordText(pid: number, status: string, extra: string): string {
  const head = JSON.stringify({ pid, sessionId: `s-${pid}`, procStart: procStartTicks(pid), pidDomain: ourPidDomain(), status });
  return `${head.slice(0, -1)},"deep":${extra}}`;
}

describe('deeply nested documents', () => {
  it('a value 20,000 levels deep neither stops its own changes nor its neighbours', async () => {
    const reg = tempRegistry();
    const a = spawnSleep();
    const b = spawnSleep();
    const deep = deepText(20_000); // 140 KB: under the 256 KiB cap
    expect(() => JSON.stringify(JSON.parse(deep))).toThrow(RangeError); // what the old diff did
    writeFileSync(reg.path(a.pid), recordText(a.pid, 'idle', deep));
    reg.write(b.pid);
    const w = watch(reg.configDir, { interval: 100 });
    const c = collect(w);
    // The two `added` events come in either order (one scan, two files): wait for both, whichever is first.
    const first = await c.next((e) => e.type === 'added' && (e.record.pid === a.pid || e.record.pid === b.pid), 'the first added');
    const second = first.record.pid === a.pid ? b.pid : a.pid;
    await c.next((e) => e.type === 'added' && e.record.pid === second, second === b.pid ? 'added for its neighbour' : 'added for the deep record');

    // The same bytes again (an OS event, a forced re-read): equal, so no event.
    writeFileSync(reg.path(a.pid), recordText(a.pid, 'idle', deep));
    await c.quiet(300);
    expect(c.events.filter((e) => e.type === 'changed')).toEqual([]);

    // Both files change in one batch: both events arrive, with the right fields.
    writeFileSync(reg.path(a.pid), recordText(a.pid, 'busy', deep));
    reg.write(b.pid, { status: 'busy' });
    const ca = await c.next((e) => e.type === 'changed' && e.record.pid === a.pid, 'changed for the deep record');
    expect(ca.type === 'changed' && ca.fields).toEqual(['status']);
    await c.next((e) => e.type === 'changed' && e.record.pid === b.pid, 'changed for the neighbour');

    // A change at the innermost level is found too.
    writeFileSync(reg.path(a.pid), recordText(a.pid, 'busy', deepText(20_000, '2')));
    const inner = await c.next((e) => e.type === 'changed' && e.record.pid === a.pid, 'changed deep inside');
    expect(inner.type === 'changed' && inner.fields).toEqual(['deep']);
    expect(w.records().find((r) => r.pid === a.pid)!.status).toBe(readRecords(reg.configDir).find((r) => r.pid === a.pid)!.status);
    await a.end();
    await b.end();
  });

  it('compares by value whatever the key order, arrays by position', () => {
    const rec = (raw: Record<string, unknown>) => ({ path: '/x/1.json', pid: 1, raw }) as never;
    expect(changedFields(rec({ v: { a: 1, b: [1, { c: 2 }] } }), rec({ v: { b: [1, { c: 2 }], a: 1 } }))).toEqual([]);
    expect(changedFields(rec({ v: [1, 2] }), rec({ v: [2, 1] }))).toEqual(['v']);
    expect(changedFields(rec({ v: { a: undefined } }), rec({ v: {} }))).toEqual(['v']);
    expect(changedFields(rec({ v: [] }), rec({ v: {} }))).toEqual(['v']);
  });
});

/** A registry with records for two live processes of our own. */
function twoSessions() {
  const reg = tempRegistry();
  const a = spawnSleep();
  const b = spawnSleep();
  reg.write(a.pid);
  reg.write(b.pid);
  return { reg, a, b };
}

describe('listeners that throw', () => {
  it('with an error listener: every event still arrives, the view is updated, each throw is an error event', async () => {
    const { reg, a, b } = twoSessions();
    const w = watch(reg.configDir, { interval: 100 });
    const errors: unknown[] = [];
    w.on('error', (e) => errors.push(e));
    w.on('changed', (e: WatchEvent) => {
      throw new Error(`listener failed on ${e.record.pid}`);
    });
    const c = collect(w);
    await c.next((e) => e.type === 'added' && e.record.pid === b.pid, 'the initial records');
    reg.write(a.pid, { status: 'busy' });
    reg.write(b.pid, { status: 'busy' });
    await c.next((e) => e.type === 'changed' && e.record.pid === a.pid, 'changed a');
    await c.next((e) => e.type === 'changed' && e.record.pid === b.pid, 'changed b');
    expect(errors.map((e) => (e as Error).message).sort()).toEqual([`listener failed on ${a.pid}`, `listener failed on ${b.pid}`].sort());
    expect(w.records().map((r) => r.status)).toEqual(['busy', 'busy']);
    // Still watching: the next change arrives as well.
    reg.write(a.pid, { status: 'waiting' });
    await c.next((e) => e.type === 'changed' && e.record.status === 'waiting', 'a later change');
    await a.end();
    await b.end();
  });

  it('without one: thrown as an EventEmitter would (uncaught), after the whole batch and the view', async () => {
    const { reg, a, b } = twoSessions();
    const run = await runScript(
      `import { watch } from './lib/registry/watch/watch.ts';
       const seen = [], uncaught = [];
       process.on('uncaughtException', (e) => {
         uncaught.push(e.message);
         if (uncaught.length === 2) {
           // Both records' events were delivered before the first throw surfaced, and the view holds both.
           console.log(JSON.stringify({ seen, uncaught, records: w.records().length }));
           w.close();
         }
       });
       const w = watch(process.argv[2], { interval: 50 });
       w.on('added', (e) => { throw new Error('boom ' + e.record.pid); });
       w.on('change', (e) => seen.push(e.type + ':' + e.record.pid));`,
      [reg.configDir],
    );
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.seen.sort()).toEqual([`added:${a.pid}`, `added:${b.pid}`].sort());
    expect(out.uncaught.sort()).toEqual([`boom ${a.pid}`, `boom ${b.pid}`].sort());
    expect(out.records).toBe(2);
    await a.end();
    await b.end();
  });

  it('a listener that closes the watcher ends delivery there', async () => {
    const { reg, a, b } = twoSessions();
    const w = watch(reg.configDir, { interval: 100 });
    const seen: string[] = [];
    w.on('added', (e: WatchEvent) => {
      seen.push(brief(e));
      w.close();
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toHaveLength(1);
    expect(w.isClosed).toBe(true);
    await a.end();
    await b.end();
  });
});
