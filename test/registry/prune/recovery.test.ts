/**
 * What an interrupted prune leaves, state by state (docs/prune.md), planted by hand with real
 * processes: the reader reads a stranded copy as the claim it is, without writing anything, and every
 * prune call — whatever records it is given — settles what it finds in the folders it works in.
 * Once per backend.
 */
import { existsSync, readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
import { BACKENDS } from '../../helpers/backends.js';
import { suiteWithSleepAndRegistry } from './helpers.js';
import { reapedPid } from '../../helpers/processes.js';
import { sessionRecord } from '../../helpers/registry-fixture.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';

const HEX = '0123456789abcdef';
const aside = (pid: number, hex = HEX) => `.${pid}.json.prune-${hex}`;

describe.each(BACKENDS)('recovery of an interrupted prune (%s backend)', (backendName) => {
  const t = suiteWithSleepAndRegistry(backendName);

  const liveText = (sessionId = 'live') =>
    JSON.stringify(sessionRecord(t.sleep.pid, { procStart: tokenOf(t.sleep.pid, backendName), sessionId }));
  const deadText = () => JSON.stringify(sessionRecord(t.sleep.pid, { procStart: anotherToken(tokenOf(t.sleep.pid, backendName)) }));

  function age(path: string, ms: number): void {
    const t = (Date.now() - ms) / 1000;
    utimesSync(path, t, t);
  }

  /** A journal of this version, as a prune with PID `owner` (and that start token) writes it. */
  function journal(copy: string, owner: number, token: string | null = '42', body?: string): string {
    const name = `${copy}.journal-${owner}`;
    writeFileSync(t.reg.path(name), body ?? JSON.stringify({ pid: owner, procStart: token, pidDomain: ourPidDomain() }) + '\n');
    return name;
  }

  it('the issue 11 reproduction: a live copy left aside with a 0.1 journal is seen, and prune(readRecords) puts it back', async () => {
    const text = liveText();
    writeFileSync(t.reg.path(aside(t.sleep.pid)), text);
    writeFileSync(t.reg.path(`.${t.sleep.pid}.json.prune-journal-0`), `${aside(t.sleep.pid)}\n`);
    age(t.reg.path(`.${t.sleep.pid}.json.prune-journal-0`), 60_000);
    const before = readdirSync(t.reg.sessions).sort();

    const records = readRecords(t.reg.configDir);
    expect(records.map((r) => [r.pid, r.verdict, r.path])).toEqual([[t.sleep.pid, 'alive', t.reg.path(aside(t.sleep.pid))]]);
    expect(liveRecords(t.reg.configDir).map((r) => r.sessionId)).toEqual(['live']);
    expect(hasLiveInteractive(t.reg.configDir)).toBe(true);
    expect((await readRecordsAsync(t.reg.configDir)).map((r) => r.path)).toEqual([t.reg.path(aside(t.sleep.pid))]);
    expect(readdirSync(t.reg.sessions).sort()).toEqual(before); // the reader wrote nothing

    expect(prune(records)).toEqual([]); // put back, not removed
    expect(readFileSync(t.reg.path(`${t.sleep.pid}.json`), 'utf8')).toBe(text);
    expect(readdirSync(t.reg.sessions)).toEqual([`${t.sleep.pid}.json`]);
    expect(readRecords(t.reg.configDir).map((r) => r.path)).toEqual([t.reg.path(`${t.sleep.pid}.json`)]);
  });

  it('moved aside, owner dead: a dead copy is removed with its journal and its record reported', () => {
    writeFileSync(t.reg.path(aside(t.sleep.pid)), deadText());
    const j = journal(aside(t.sleep.pid), reapedPid());
    const records = readRecords(t.reg.configDir);
    expect(records.map((r) => r.verdict)).toEqual(['recycled']);
    const dry = pruneWithReport(records, { dryRun: true });
    expect(dry.removed.map((r) => r.path)).toEqual([t.reg.path(aside(t.sleep.pid))]);
    expect(dry.recovered.map((c) => c.action)).toEqual(['removed']);
    expect(readdirSync(t.reg.sessions).sort()).toEqual([aside(t.sleep.pid), j].sort()); // dry: nothing written

    const report = pruneWithReport(records);
    expect(report.removed.map((r) => r.path)).toEqual([t.reg.path(aside(t.sleep.pid))]);
    expect(report.recovered).toEqual([
      { path: t.reg.path(aside(t.sleep.pid)), originalPath: t.reg.path(`${t.sleep.pid}.json`), pid: t.sleep.pid, kind: 'record', action: 'removed' },
    ]);
    expect(readdirSync(t.reg.sessions)).toEqual([]);
  });

  it('claimed, owner dead: a journal without a copy is removed, whatever records the call is given', () => {
    journal(aside(t.sleep.pid), reapedPid());
    journal(aside(t.sleep.pid, 'fedcba9876543210'), reapedPid(), null, ''); // torn: created, never written
    expect(prune([], { configDirs: t.reg.configDir })).toEqual([]);
    expect(readdirSync(t.reg.sessions)).toEqual([]);
  });

  it('a journal whose owner still runs is left to it, copy and all; the reader still sees the copy', () => {
    const text = liveText();
    writeFileSync(t.reg.path(aside(t.sleep.pid)), text);
    const j = journal(aside(t.sleep.pid), t.sleep.pid, tokenOf(t.sleep.pid, backendName));
    const torn = journal(aside(t.sleep.pid, 'fedcba9876543210'), process.pid, null, ''); // torn, owner alive
    expect(prune(readRecords(t.reg.configDir), { configDirs: t.reg.configDir })).toEqual([]);
    expect(readdirSync(t.reg.sessions).sort()).toEqual([aside(t.sleep.pid), j, torn].sort());
    expect(liveRecords(t.reg.configDir).map((r) => r.path)).toEqual([t.reg.path(aside(t.sleep.pid))]);
    // The same PID with another start token is another process: that owner is dead.
    writeFileSync(t.reg.path(j), JSON.stringify({ pid: t.sleep.pid, procStart: anotherToken(tokenOf(t.sleep.pid, backendName)), pidDomain: ourPidDomain() }));
    expect(prune([], { configDirs: t.reg.configDir })).toEqual([]);
    expect(readdirSync(t.reg.sessions).sort()).toEqual([`${t.sleep.pid}.json`, torn].sort());
    expect(readFileSync(t.reg.path(`${t.sleep.pid}.json`), 'utf8')).toBe(text);
  });

  it('a copy whose name a newer file of the same process holds is dropped; the newer file stays', () => {
    writeFileSync(t.reg.path(aside(t.sleep.pid)), liveText('older'));
    const newer = liveText('newer');
    writeFileSync(t.reg.path(`${t.sleep.pid}.json`), newer);
    // Not a claim for the reader: its <pid>.json exists.
    expect(readRecords(t.reg.configDir).map((r) => r.sessionId)).toEqual(['newer']);
    const report = pruneWithReport([], { configDirs: t.reg.configDir });
    expect(report.recovered.map((c) => c.action)).toEqual(['dropped']);
    expect(readdirSync(t.reg.sessions)).toEqual([`${t.sleep.pid}.json`]);
    expect(readFileSync(t.reg.path(`${t.sleep.pid}.json`), 'utf8')).toBe(newer);
  });

  it('a live copy whose name a dead record holds goes back once this call has pruned that record', () => {
    const text = liveText();
    writeFileSync(t.reg.path(aside(t.sleep.pid)), text);
    writeFileSync(t.reg.path(`${t.sleep.pid}.json`), deadText());
    const records = readRecords(t.reg.configDir);
    expect(records.map((r) => r.verdict)).toEqual(['alive', 'recycled']); // the copy is the live session's record
    expect(prune(records).map((r) => r.path)).toEqual([t.reg.path(`${t.sleep.pid}.json`)]);
    expect(readFileSync(t.reg.path(`${t.sleep.pid}.json`), 'utf8')).toBe(text);
    expect(readdirSync(t.reg.sessions)).toEqual([`${t.sleep.pid}.json`]);
  });

  it('a live copy whose name a claim of another process holds is still a claim: no reader hides the session', async () => {
    // A stranded copy of the running session, and at its name a record of the same PID with another
    // start token (another process). Before any prune the live session must be seen: the guard's "no"
    // here would be a guess, made while the folder holds the live record.
    const text = liveText('live');
    writeFileSync(t.reg.path(aside(t.sleep.pid)), text);
    writeFileSync(t.reg.path(`${t.sleep.pid}.json`), deadText());
    const before = readdirSync(t.reg.sessions).sort();
    expect(readRecords(t.reg.configDir).map((r) => [r.verdict, r.path])).toEqual([
      ['alive', t.reg.path(aside(t.sleep.pid))],
      ['recycled', t.reg.path(`${t.sleep.pid}.json`)],
    ]);
    expect((await readRecordsAsync(t.reg.configDir)).map((r) => r.verdict)).toEqual(['alive', 'recycled']);
    expect(liveRecords(t.reg.configDir).map((r) => r.sessionId)).toEqual(['live']);
    expect(hasLiveInteractive(t.reg.configDir)).toBe(true);
    expect(readdirSync(t.reg.sessions).sort()).toEqual(before); // the reader wrote nothing
    // A prune that is not given the dead record keeps the copy aside: it must stay visible.
    expect(pruneWithReport([], { configDirs: t.reg.configDir }).recovered.map((c) => c.action)).toEqual(['kept']);
    expect(hasLiveInteractive(t.reg.configDir)).toBe(true);
    // A torn copy may be the live session's too: a skip of a live PID, which the guard counts.
    writeFileSync(t.reg.path(aside(t.sleep.pid)), text.slice(0, 20));
    const scan = scanRegistry(t.reg.configDir, { retryDelayMs: 0 });
    expect(scan.records.map((r) => r.verdict)).toEqual(['recycled']);
    expect(scan.skipped.map((s) => [s.path, s.reason])).toEqual([[t.reg.path(aside(t.sleep.pid)), 'unparseable']]);
    expect(hasLiveInteractive(t.reg.configDir, { retryDelayMs: 0 })).toBe(true);
  });

  it('two stranded copies of one name: the newest goes back, the older one is dropped', () => {
    writeFileSync(t.reg.path(aside(t.sleep.pid, 'aaaaaaaaaaaaaaaa')), liveText('older'));
    age(t.reg.path(aside(t.sleep.pid, 'aaaaaaaaaaaaaaaa')), 10_000);
    writeFileSync(t.reg.path(aside(t.sleep.pid, 'bbbbbbbbbbbbbbbb')), liveText('newest'));
    writeFileSync(t.reg.path(aside(t.sleep.pid, '0000000000000000')), liveText('oldest'));
    age(t.reg.path(aside(t.sleep.pid, '0000000000000000')), 20_000);
    expect(readRecords(t.reg.configDir).length).toBe(3); // each is a claim until one holds the name
    prune(readRecords(t.reg.configDir));
    expect(readdirSync(t.reg.sessions)).toEqual([`${t.sleep.pid}.json`]);
    expect(JSON.parse(readFileSync(t.reg.path(`${t.sleep.pid}.json`), 'utf8')).sessionId).toBe('newest');
  });

  it('a torn copy stranded aside is a skipped candidate the guard counts while its PID lives, and goes back', () => {
    writeFileSync(t.reg.path(aside(t.sleep.pid)), '{"pid": ');
    const scan = scanRegistry(t.reg.configDir, { retryDelayMs: 0 });
    expect(scan.records).toEqual([]);
    expect(scan.skipped).toEqual([{ path: t.reg.path(aside(t.sleep.pid)), pid: t.sleep.pid, reason: 'unparseable' }]);
    expect(hasLiveInteractive(t.reg.configDir, { retryDelayMs: 0 })).toBe(true);
    prune([], { configDirs: t.reg.configDir });
    expect(readdirSync(t.reg.sessions)).toEqual([`${t.sleep.pid}.json`]);
    expect(readFileSync(t.reg.path(`${t.sleep.pid}.json`), 'utf8')).toBe('{"pid": ');
  });

  it('names that only look like prune leftovers are neither read nor touched', () => {
    const text = liveText();
    const lookalikes = [`.${t.sleep.pid}.json.prune-${HEX.toUpperCase()}`, `.0${t.sleep.pid}.json.prune-${HEX}`, `${t.sleep.pid}.json.prune-${HEX}`, `.${t.sleep.pid}.json.prune-${HEX}x`];
    for (const name of lookalikes) writeFileSync(t.reg.path(name), text);
    expect(readRecords(t.reg.configDir)).toEqual([]);
    prune([], { configDirs: t.reg.configDir });
    expect(readdirSync(t.reg.sessions).sort()).toEqual(lookalikes.sort());
  });

  it('a record read from a stranded copy that has since gone back is not removed by a prune of it', () => {
    const text = liveText();
    writeFileSync(t.reg.path(aside(t.sleep.pid)), text);
    const [stranded] = readRecords(t.reg.configDir) as [SessionRecord];
    renameSync(t.reg.path(aside(t.sleep.pid)), t.reg.path(`${t.sleep.pid}.json`)); // put back by someone else
    expect(prune([stranded])).toEqual([]);
    expect(readFileSync(t.reg.path(`${t.sleep.pid}.json`), 'utf8')).toBe(text);
    expect(existsSync(t.reg.path(aside(t.sleep.pid)))).toBe(false);
  });
});
