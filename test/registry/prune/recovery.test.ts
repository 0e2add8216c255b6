/**
 * What an interrupted prune leaves, state by state (docs/prune.md), planted by hand with real
 * processes: the reader reads a stranded copy as the claim it is, without writing anything, and every
 * prune call — whatever records it is given — settles what it finds in the folders it works in.
 * Once per backend.
 */
import { existsSync, readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  hasLiveInteractive,
  liveRecords,
  prune,
  pruneWithReport,
  readRecords,
  readRecordsAsync,
  scanRegistry,
  type SessionRecord,
} from '../../../lib/index.js';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, reapedPid, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';

const HEX = '0123456789abcdef';
const aside = (pid: number, hex = HEX) => `.${pid}.json.prune-${hex}`;

describe.each(BACKENDS)('recovery of an interrupted prune (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let sleep: Spawned;
  let reg: RegistryFixture;

  beforeAll(() => {
    sleep = spawnSleep();
  });
  afterEach(() => reg?.remove());
  afterAll(async () => {
    await sleep.end();
    await endAll();
  });

  const liveText = (sessionId = 'live') =>
    JSON.stringify(sessionRecord(sleep.pid, { procStart: tokenOf(sleep.pid, backendName), sessionId }));
  const deadText = () => JSON.stringify(sessionRecord(sleep.pid, { procStart: anotherToken(tokenOf(sleep.pid, backendName)) }));

  function age(path: string, ms: number): void {
    const t = (Date.now() - ms) / 1000;
    utimesSync(path, t, t);
  }

  /** A journal of this version, as a prune with PID `owner` (and that start token) writes it. */
  function journal(copy: string, owner: number, token: string | null = '42', body?: string): string {
    const name = `${copy}.journal-${owner}`;
    writeFileSync(reg.path(name), body ?? JSON.stringify({ pid: owner, procStart: token, pidDomain: ourPidDomain() }) + '\n');
    return name;
  }

  it('the issue 11 reproduction: a live copy left aside with a 0.1 journal is seen, and prune(readRecords) puts it back', async () => {
    reg = makeRegistry();
    const text = liveText();
    writeFileSync(reg.path(aside(sleep.pid)), text);
    writeFileSync(reg.path(`.${sleep.pid}.json.prune-journal-0`), `${aside(sleep.pid)}\n`);
    age(reg.path(`.${sleep.pid}.json.prune-journal-0`), 60_000);
    const before = readdirSync(reg.sessions).sort();

    const records = readRecords(reg.configDir);
    expect(records.map((r) => [r.pid, r.verdict, r.path])).toEqual([[sleep.pid, 'alive', reg.path(aside(sleep.pid))]]);
    expect(liveRecords(reg.configDir).map((r) => r.sessionId)).toEqual(['live']);
    expect(hasLiveInteractive(reg.configDir)).toBe(true);
    expect((await readRecordsAsync(reg.configDir)).map((r) => r.path)).toEqual([reg.path(aside(sleep.pid))]);
    expect(readdirSync(reg.sessions).sort()).toEqual(before); // the reader wrote nothing

    expect(prune(records)).toEqual([]); // put back, not removed
    expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe(text);
    expect(readdirSync(reg.sessions)).toEqual([`${sleep.pid}.json`]);
    expect(readRecords(reg.configDir).map((r) => r.path)).toEqual([reg.path(`${sleep.pid}.json`)]);
  });

  it('moved aside, owner dead: a dead copy is removed with its journal and its record reported', () => {
    reg = makeRegistry();
    writeFileSync(reg.path(aside(sleep.pid)), deadText());
    const j = journal(aside(sleep.pid), reapedPid());
    const records = readRecords(reg.configDir);
    expect(records.map((r) => r.verdict)).toEqual(['recycled']);
    const dry = pruneWithReport(records, { dryRun: true });
    expect(dry.removed.map((r) => r.path)).toEqual([reg.path(aside(sleep.pid))]);
    expect(dry.recovered.map((c) => c.action)).toEqual(['removed']);
    expect(readdirSync(reg.sessions).sort()).toEqual([aside(sleep.pid), j].sort()); // dry: nothing written

    const report = pruneWithReport(records);
    expect(report.removed.map((r) => r.path)).toEqual([reg.path(aside(sleep.pid))]);
    expect(report.recovered).toEqual([
      { path: reg.path(aside(sleep.pid)), originalPath: reg.path(`${sleep.pid}.json`), pid: sleep.pid, kind: 'record', action: 'removed' },
    ]);
    expect(readdirSync(reg.sessions)).toEqual([]);
  });

  it('claimed, owner dead: a journal without a copy is removed, whatever records the call is given', () => {
    reg = makeRegistry();
    journal(aside(sleep.pid), reapedPid());
    journal(aside(sleep.pid, 'fedcba9876543210'), reapedPid(), null, ''); // torn: created, never written
    expect(prune([], { configDirs: reg.configDir })).toEqual([]);
    expect(readdirSync(reg.sessions)).toEqual([]);
  });

  it('a journal whose owner still runs is left to it, copy and all; the reader still sees the copy', () => {
    reg = makeRegistry();
    const text = liveText();
    writeFileSync(reg.path(aside(sleep.pid)), text);
    const j = journal(aside(sleep.pid), sleep.pid, tokenOf(sleep.pid, backendName));
    const torn = journal(aside(sleep.pid, 'fedcba9876543210'), process.pid, null, ''); // torn, owner alive
    expect(prune(readRecords(reg.configDir), { configDirs: reg.configDir })).toEqual([]);
    expect(readdirSync(reg.sessions).sort()).toEqual([aside(sleep.pid), j, torn].sort());
    expect(liveRecords(reg.configDir).map((r) => r.path)).toEqual([reg.path(aside(sleep.pid))]);
    // The same PID with another start token is another process: that owner is dead.
    writeFileSync(reg.path(j), JSON.stringify({ pid: sleep.pid, procStart: anotherToken(tokenOf(sleep.pid, backendName)), pidDomain: ourPidDomain() }));
    expect(prune([], { configDirs: reg.configDir })).toEqual([]);
    expect(readdirSync(reg.sessions).sort()).toEqual([`${sleep.pid}.json`, torn].sort());
    expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe(text);
  });

  it('a copy whose name a newer file of the same process holds is dropped; the newer file stays', () => {
    reg = makeRegistry();
    writeFileSync(reg.path(aside(sleep.pid)), liveText('older'));
    const newer = liveText('newer');
    writeFileSync(reg.path(`${sleep.pid}.json`), newer);
    // Not a claim for the reader: its <pid>.json exists.
    expect(readRecords(reg.configDir).map((r) => r.sessionId)).toEqual(['newer']);
    const report = pruneWithReport([], { configDirs: reg.configDir });
    expect(report.recovered.map((c) => c.action)).toEqual(['dropped']);
    expect(readdirSync(reg.sessions)).toEqual([`${sleep.pid}.json`]);
    expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe(newer);
  });

  it('a live copy whose name a dead record holds goes back once this call has pruned that record', () => {
    reg = makeRegistry();
    const text = liveText();
    writeFileSync(reg.path(aside(sleep.pid)), text);
    writeFileSync(reg.path(`${sleep.pid}.json`), deadText());
    const records = readRecords(reg.configDir);
    expect(records.map((r) => r.verdict)).toEqual(['recycled']);
    expect(prune(records).map((r) => r.path)).toEqual([reg.path(`${sleep.pid}.json`)]);
    expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe(text);
    expect(readdirSync(reg.sessions)).toEqual([`${sleep.pid}.json`]);
  });

  it('two stranded copies of one name: the newest goes back, the older one is dropped', () => {
    reg = makeRegistry();
    writeFileSync(reg.path(aside(sleep.pid, 'aaaaaaaaaaaaaaaa')), liveText('older'));
    age(reg.path(aside(sleep.pid, 'aaaaaaaaaaaaaaaa')), 10_000);
    writeFileSync(reg.path(aside(sleep.pid, 'bbbbbbbbbbbbbbbb')), liveText('newest'));
    writeFileSync(reg.path(aside(sleep.pid, '0000000000000000')), liveText('oldest'));
    age(reg.path(aside(sleep.pid, '0000000000000000')), 20_000);
    expect(readRecords(reg.configDir).length).toBe(3); // each is a claim until one holds the name
    prune(readRecords(reg.configDir));
    expect(readdirSync(reg.sessions)).toEqual([`${sleep.pid}.json`]);
    expect(JSON.parse(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).sessionId).toBe('newest');
  });

  it('a torn copy stranded aside is a skipped candidate the guard counts while its PID lives, and goes back', () => {
    reg = makeRegistry();
    writeFileSync(reg.path(aside(sleep.pid)), '{"pid": ');
    const scan = scanRegistry(reg.configDir, { retryDelayMs: 0 });
    expect(scan.records).toEqual([]);
    expect(scan.skipped).toEqual([{ path: reg.path(aside(sleep.pid)), pid: sleep.pid, reason: 'unparseable' }]);
    expect(hasLiveInteractive(reg.configDir, { retryDelayMs: 0 })).toBe(true);
    prune([], { configDirs: reg.configDir });
    expect(readdirSync(reg.sessions)).toEqual([`${sleep.pid}.json`]);
    expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe('{"pid": ');
  });

  it('names that only look like prune leftovers are neither read nor touched', () => {
    reg = makeRegistry();
    const text = liveText();
    const lookalikes = [`.${sleep.pid}.json.prune-${HEX.toUpperCase()}`, `.0${sleep.pid}.json.prune-${HEX}`, `${sleep.pid}.json.prune-${HEX}`, `.${sleep.pid}.json.prune-${HEX}x`];
    for (const name of lookalikes) writeFileSync(reg.path(name), text);
    expect(readRecords(reg.configDir)).toEqual([]);
    prune([], { configDirs: reg.configDir });
    expect(readdirSync(reg.sessions).sort()).toEqual(lookalikes.sort());
  });

  it('a record read from a stranded copy that has since gone back is not removed by a prune of it', () => {
    reg = makeRegistry();
    const text = liveText();
    writeFileSync(reg.path(aside(sleep.pid)), text);
    const [stranded] = readRecords(reg.configDir) as [SessionRecord];
    renameSync(reg.path(aside(sleep.pid)), reg.path(`${sleep.pid}.json`)); // put back by someone else
    expect(prune([stranded])).toEqual([]);
    expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe(text);
    expect(existsSync(reg.path(aside(sleep.pid)))).toBe(false);
  });
});
