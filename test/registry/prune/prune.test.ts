/**
 * prune / pruneAsync against real processes and real files, once per backend (records carry the
 * token form of the backend's platform: ticks for js/native, lstart text for ps): what is removed, what is
 * never touched, identity at the moment of removal, dryRun, and leftovers of an interrupted prune.
 */
import { existsSync, readdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prune, pruneAsync, readRecords, type SessionRecord } from '../../../lib/index.js';
import { BACKENDS } from '../../helpers/backends.js';
import { suiteWithSleepAndRegistry } from './helpers.js';
import { reapedPid, spawnSleep, spawnZombie } from '../../helpers/processes.js';
import { sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';

const FOREIGN_DOMAIN = 'linux:0123456789abcdef0123456789abcdef:pid:[4026531836]';

/** What prune returns for a record: the record, plus the key files removed with it. */
const pruned = (record: SessionRecord, keys: string[] = []) => ({ ...record, keys });

function recordAt(reg: RegistryFixture, path: string): SessionRecord {
  const record = readRecords(reg.configDir).find((r) => r.path === path);
  if (record === undefined) throw new Error(`no record at ${path}`);
  return record;
}

describe.each(BACKENDS)('prune (%s backend)', (backendName) => {
  const t = suiteWithSleepAndRegistry(backendName);

  /** A stale record of the live sleep's PID (another start token): recycled. */
  function recycled(): { path: string; record: SessionRecord } {
    const token = anotherToken(tokenOf(t.sleep.pid, backendName));
    const path = t.reg.write(t.sleep.pid, sessionRecord(t.sleep.pid, { procStart: token }));
    return { path, record: recordAt(t.reg, path) };
  }

  it('removes exactly the provably dead records, re-probed now, and returns them', async () => {
    const zombie = await spawnZombie();
    const other = spawnSleep();
    const diesLater = spawnSleep();
    try {
      const gonePid = reapedPid();
      const dead = [
        t.reg.write(gonePid, sessionRecord(gonePid, { procStart: '4242' })),
        t.reg.write(zombie.zombiePid, sessionRecord(zombie.zombiePid, { procStart: tokenOf(zombie.zombiePid, backendName) })),
        t.reg.write(diesLater.pid, sessionRecord(diesLater.pid, { procStart: tokenOf(diesLater.pid, backendName) })),
        t.reg.write(t.sleep.pid, sessionRecord(t.sleep.pid, { procStart: anotherToken(tokenOf(t.sleep.pid, backendName)) })),
      ];
      const kept = [
        t.reg.write(other.pid, sessionRecord(other.pid, { procStart: tokenOf(other.pid, backendName) })), // alive
        t.reg.write(process.pid, sessionRecord(process.pid)), // no token: unverified
        t.reg.write(zombie.pid, sessionRecord(zombie.pid, { procStart: '1', pidDomain: FOREIGN_DOMAIN })), // foreign
      ];
      const records = readRecords(t.reg.configDir);
      expect(records.find((r) => r.pid === diesLater.pid)?.verdict).toBe('alive');
      await diesLater.end(); // the record's stored verdict is now stale: prune must probe again

      // A live record dressed up as dead is still live: the stored verdict is never trusted.
      const disguised = records.map((r) => (r.pid === other.pid ? Object.freeze({ ...r, verdict: 'gone' as const, live: false }) : r));
      const removed = prune(disguised);

      expect(removed.map((r) => r.path).sort()).toEqual([...dead].sort());
      for (const r of removed) expect(disguised).toContainEqual({ ...r, keys: undefined }); // the caller's records, plus keys
      for (const r of removed) expect(r.keys).toEqual([]);
      for (const path of dead) expect(existsSync(path)).toBe(false);
      for (const path of kept) expect(existsSync(path)).toBe(true);
      expect(readdirSync(t.reg.sessions).length).toBe(kept.length); // nothing left aside
    } finally {
      await other.end();
      await zombie.end();
    }
  });

  it('dryRun removes nothing and reports what would go', () => {
    const { path, record } = recycled();
    const alivePath = t.reg.write(process.pid, sessionRecord(process.pid));
    const all = readRecords(t.reg.configDir);
    expect(prune(all, { dryRun: true })).toEqual([pruned(record)]);
    expect(existsSync(path)).toBe(true);
    expect(existsSync(alivePath)).toBe(true);
    expect(readdirSync(t.reg.sessions).length).toBe(2);
    expect(prune(all)).toEqual([pruned(record)]);
    expect(prune(all)).toEqual([]); // already gone: not reported twice
  });

  it('identity is PID and start token: status, name, sessionId and clocks may change', () => {
    const { path, record } = recycled();
    writeFileSync(path, JSON.stringify({ ...record.raw, status: 'busy', name: 'renamed', sessionId: 'switched', updatedAt: 1 }));
    expect(prune([record])).toEqual([pruned(record)]);
    expect(existsSync(path)).toBe(false);
  });

  it('leaves a file rewritten by a new session (same PID, its own token) and does not report it', () => {
    const { path, record } = recycled();
    const live = JSON.stringify(sessionRecord(t.sleep.pid, { procStart: tokenOf(t.sleep.pid, backendName), sessionId: 'new' }));
    writeFileSync(path, live);
    expect(prune([record])).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(live);
  });

  it('leaves a file made unparseable or half-written between read and prune', () => {
    const { path, record } = recycled();
    for (const text of ['', '{"pid": ', 'not json', '[1,2]']) {
      writeFileSync(path, text);
      expect(prune([record])).toEqual([]);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
    expect(readdirSync(t.reg.sessions)).toEqual([`${t.sleep.pid}.json`]);
  });

  it('leaves a file replaced by a symlink (and the file it points to)', () => {
    const { path, record } = recycled();
    const target = t.reg.path('elsewhere.txt');
    renameSync(path, target); // same dead content, now behind a link
    symlinkSync(target, path);
    expect(prune([record])).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(readFileSync(target, 'utf8'));
    expect(readdirSync(t.reg.sessions).sort()).toEqual([`${t.sleep.pid}.json`, 'elsewhere.txt'].sort());
  });

  it('a file already gone is not reported and does not throw', async () => {
    const { path, record } = recycled();
    unlinkSync(path);
    expect(prune([record])).toEqual([]);
    await expect(pruneAsync([record])).resolves.toEqual([]);
  });

  it('never touches a non-candidate or a .key file, even holding a dead claim', () => {
    const { path, record } = recycled();
    const text = readFileSync(path, 'utf8');
    const names = [`0${t.sleep.pid}.json`, `${t.sleep.pid}.json.tmp`, `${t.sleep.pid}.${'a'.repeat(64)}.key`, 'notes.json'];
    for (const name of names) writeFileSync(t.reg.path(name), text);
    const pointed = names.map((name) => Object.freeze({ ...record, path: t.reg.path(name) }));
    const otherPid = Object.freeze({ ...record, path: t.reg.path(`${t.sleep.pid + 1}.json`) }); // name ≠ record.pid
    writeFileSync(otherPid.path, text);
    expect(prune([...pointed, otherPid])).toEqual([]);
    for (const name of names) expect(readFileSync(t.reg.path(name), 'utf8')).toBe(text);
    expect(existsSync(otherPid.path)).toBe(true);
  });

  it('pruneAsync is the Promise twin; bad arguments are programmer errors', async () => {
    const { record } = recycled();
    await expect(pruneAsync([record], { dryRun: true })).resolves.toEqual([pruned(record)]);
    await expect(pruneAsync([record])).resolves.toEqual([pruned(record)]);
    expect(() => prune('x' as never)).toThrow(TypeError);
    // A mistyped or misspelt option must never turn a dry run into a deletion (issue 11, item 4).
    const again = recycled();
    for (const bad of [{ dryRun: 'yes' }, { dryRun: 1 }, { dryrun: true }, { configDirs: 5 }, { env: 'x' }, [], 'x', null]) {
      expect(() => prune([again.record], bad as never), JSON.stringify(bad)).toThrow(TypeError);
    }
    expect(existsSync(again.path)).toBe(true);
    expect(() => prune([{ pid: 1 }] as never)).toThrow(TypeError);
    await expect(pruneAsync(null as never)).rejects.toThrow(TypeError);
  });
});
