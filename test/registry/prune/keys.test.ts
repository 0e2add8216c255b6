/**
 * Key files `<pid>.<64 hex>.key` (docs/prune.md): removed with a record this call pruned, only names
 * of exactly that shape, never through a symlink, and only while the key's own procStart/pidDomain
 * still name the dead process. Once per backend (the verdicts are the backend's).
 */
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prune, readRecords, type SessionRecord } from '../../../lib/index.js';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { BACKENDS } from '../../helpers/backends.js';
import { suiteWithSleepAndRegistry } from './helpers.js';
import { sessionRecord } from '../../helpers/registry-fixture.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';

const keyName = (pid: number, c = 'a') => `${pid}.${c.repeat(64)}.key`;

describe.each(BACKENDS)('key files (%s backend)', (backendName) => {
  const t = suiteWithSleepAndRegistry(backendName);

  const live = () => tokenOf(t.sleep.pid, backendName);
  const dead = () => anotherToken(live());
  const body = (procStart: string, pidDomain: string | undefined = ourPidDomain()) =>
    JSON.stringify({ peerToken: 'f'.repeat(32), procStart, pidDomain });

  /** A record of the sleep's PID with `token` (dead unless it is the sleep's own), and its record. */
  function claim(token: string): SessionRecord {
    t.reg.write(t.sleep.pid, sessionRecord(t.sleep.pid, { procStart: token, pidDomain: ourPidDomain() }));
    return readRecords(t.reg.configDir)[0]!;
  }

  it('are pruned with their record, and reported on it (dryRun lists them first)', () => {
    const record = claim(dead());
    const keys = [keyName(t.sleep.pid, 'a'), keyName(t.sleep.pid, 'b')];
    for (const k of keys) writeFileSync(t.reg.path(k), body(dead()), { mode: 0o600 });
    const dry = prune([record], { dryRun: true });
    expect(dry.map((r) => [...r.keys].sort())).toEqual([keys.map((k) => t.reg.path(k)).sort()]);
    expect(readdirSync(t.reg.sessions).length).toBe(3);
    const [removed] = prune([record]);
    expect([...removed!.keys].sort()).toEqual(keys.map((k) => t.reg.path(k)).sort());
    expect(readdirSync(t.reg.sessions)).toEqual([]);
  });

  it('are kept for live records', () => {
    const record = claim(live());
    writeFileSync(t.reg.path(keyName(t.sleep.pid)), body(live()));
    expect(prune([record])).toEqual([]);
    expect(readdirSync(t.reg.sessions).sort()).toEqual([`${t.sleep.pid}.json`, keyName(t.sleep.pid)].sort());
  });

  it('are kept when the key names another start token or another pidDomain than the dead record', () => {
    const record = claim(dead());
    const other = keyName(t.sleep.pid, 'b');
    const foreign = keyName(t.sleep.pid, 'c');
    const noDomain = keyName(t.sleep.pid, 'd');
    writeFileSync(t.reg.path(other), body(live())); // the live process's key: never removed
    writeFileSync(t.reg.path(foreign), body(dead(), 'linux:0123456789abcdef0123456789abcdef:pid:[4026531836]'));
    writeFileSync(t.reg.path(noDomain), JSON.stringify({ peerToken: 'x', procStart: dead() }));
    const [removed] = prune([record]);
    expect(removed!.keys).toEqual([]);
    expect(readdirSync(t.reg.sessions).sort()).toEqual([other, foreign, noDomain].sort());
  });

  it('are never followed through a symlink, and only names of exactly the key shape go', () => {
    const record = claim(dead());
    const target = t.reg.path('elsewhere.json');
    writeFileSync(target, body(dead()));
    symlinkSync(target, t.reg.path(keyName(t.sleep.pid, 'a')));
    const odd = [
      `${t.sleep.pid}.${'a'.repeat(63)}.key`,
      `${t.sleep.pid}.${'A'.repeat(64)}.key`,
      `${t.sleep.pid}.${'a'.repeat(64)}.key.tmp.1`,
      `0${t.sleep.pid}.${'a'.repeat(64)}.key`,
      `${t.sleep.pid + 1}.${'a'.repeat(64)}.key`,
    ];
    for (const name of odd) writeFileSync(t.reg.path(name), body(dead()));
    const [removed] = prune([record]);
    expect(removed!.keys).toEqual([]);
    expect(readdirSync(t.reg.sessions).sort()).toEqual([keyName(t.sleep.pid, 'a'), 'elsewhere.json', ...odd].sort());
    expect(readFileSync(target, 'utf8')).toBe(body(dead()));
  });

  it('are kept when this call did not remove the record (its file was rewritten by a live session)', () => {
    const record = claim(dead());
    writeFileSync(t.reg.path(keyName(t.sleep.pid)), body(dead()));
    t.reg.write(t.sleep.pid, sessionRecord(t.sleep.pid, { procStart: live(), pidDomain: ourPidDomain() }));
    expect(prune([record])).toEqual([]);
    expect(existsSync(t.reg.path(keyName(t.sleep.pid)))).toBe(true);
  });
});
