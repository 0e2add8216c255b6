/**
 * The watcher counts claims as the registry read does (docs/prune.md): a copy an interrupted prune
 * left aside of a missing `<pid>.json` is a live session's claim, so a watch started over such a
 * folder reports it, and a prune that puts it back shows the record at its own name again.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prune, pruneWithReport, readRecords } from '../../../lib/index.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { spawnSleep } from '../../helpers/processes.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';
import { cleanUpEachTest, collect, tempRegistry, watch } from './helpers.js';

cleanUpEachTest();

describe.each(BACKENDS)('watch and stranded prune copies (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);

  it('reports a stranded live copy as added, and its return under <pid>.json after the next prune', async () => {
    const reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid, { status: 'busy' });
    const aside = join(reg.sessions, `.${p.pid}.json.prune-0123456789abcdef`);
    renameSync(reg.path(p.pid), aside); // what a prune killed between its move and its verdict leaves

    const w = watch(reg.configDir, { interval: 100 });
    const c = collect(w);
    const added = await c.next((e) => e.type === 'added', 'added for the stranded copy');
    expect(added.record).toMatchObject({ pid: p.pid, path: aside, status: 'busy', live: true });
    expect(w.records().map((r) => r.pid)).toEqual([p.pid]);

    expect(prune(readRecords(reg.configDir))).toEqual([]); // live: put back, never removed
    const back = await c.next((e) => e.type === 'added' && e.record.path === reg.path(p.pid), 'added at <pid>.json');
    expect(back.record).toMatchObject({ pid: p.pid, status: 'busy', live: true });
    await c.next((e) => e.type === 'removed' && e.record.path === aside, 'removed for the copy');
    expect(w.records().map((r) => r.path)).toEqual([reg.path(p.pid)]);
    await p.end();
  });

  it('a copy beside its own <pid>.json is not a claim: one record, at <pid>.json', async () => {
    const reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid, { status: 'idle' });
    renameSync(reg.path(p.pid), join(reg.sessions, `.${p.pid}.json.prune-fedcba9876543210`));
    reg.write(p.pid, { status: 'busy' }); // the session wrote its file again after the move
    const w = watch(reg.configDir, { interval: 100 });
    const c = collect(w);
    await c.next((e) => e.type === 'added', 'added');
    await c.quiet(300);
    expect(w.records().map((r) => [r.path, r.status])).toEqual([[reg.path(p.pid), 'busy']]);
    await p.end();
  });
  it('a live copy whose <pid>.json holds another process is a claim too, until prune puts it back', async () => {
    const reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid, { status: 'busy' });
    const aside = join(reg.sessions, `.${p.pid}.json.prune-0123456789abcdef`);
    renameSync(reg.path(p.pid), aside);
    reg.write(p.pid, { procStart: anotherToken(tokenOf(p.pid, backendName)), status: 'idle' }); // another process's record
    const w = watch(reg.configDir, { interval: 100 });
    const c = collect(w);
    await c.next((e) => e.type === 'added' && e.record.path === aside, 'added for the copy');
    await c.quiet(300);
    expect(w.records().map((r) => [r.path, r.live])).toEqual([
      [aside, true],
      [reg.path(p.pid), false],
    ]);
    expect(pruneWithReport([], { configDirs: reg.configDir }).recovered.map((x) => x.action)).toEqual(['kept']);
    w.rescanNow();
    await c.quiet(300);
    expect(w.records().map((r) => r.path)).toEqual([aside, reg.path(p.pid)]);

    prune(readRecords(reg.configDir)); // removes the other process's record, then puts the copy back
    await c.next((e) => e.type === 'removed' && e.record.path === aside, 'removed for the copy');
    await c.quiet(300);
    expect(w.records().map((r) => [r.path, r.status, r.live])).toEqual([[reg.path(p.pid), 'busy', true]]);
    await p.end();
  });
  it('a reported stranded copy whose session writes <pid>.json again is removed: one record, at <pid>.json', async () => {
    const reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    reg.write(p.pid, { status: 'idle' });
    const aside = join(reg.sessions, `.${p.pid}.json.prune-0123456789abcdef`);
    renameSync(reg.path(p.pid), aside);
    const w = watch(reg.configDir, { interval: 100 });
    const c = collect(w);
    await c.next((e) => e.type === 'added' && e.record.path === aside, 'added for the copy');
    await new Promise((r) => setTimeout(r, 2500)); // past the racy window: the copy's stamp now proves it unchanged
    reg.write(p.pid, { status: 'busy' });
    await c.next((e) => e.type === 'added' && e.record.path === reg.path(p.pid), 'added at <pid>.json');
    w.rescanNow();
    await c.next((e) => e.type === 'removed' && e.record.path === aside, 'removed for the copy');
    expect(w.records().map((r) => [r.path, r.status])).toEqual([[reg.path(p.pid), 'busy']]);
    await p.end();
  });
});
