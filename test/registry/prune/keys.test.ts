/**
 * Key files `<pid>.<64 hex>.key` (docs/prune.md): removed with a record this call pruned, only names
 * of exactly that shape, never through a symlink, and only while the key's own procStart/pidDomain
 * still name the dead process. Once per backend (the verdicts are the backend's).
 */
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prune, readRecords, type SessionRecord } from '../../../lib/index.js';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';

const keyName = (pid: number, c = 'a') => `${pid}.${c.repeat(64)}.key`;

describe.each(BACKENDS)('key files (%s backend)', (backendName) => {
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

  const live = () => tokenOf(sleep.pid, backendName);
  const dead = () => anotherToken(live());
  const body = (procStart: string, pidDomain: string | undefined = ourPidDomain()) =>
    JSON.stringify({ peerToken: 'f'.repeat(32), procStart, pidDomain });

  /** A record of the sleep's PID with `token` (dead unless it is the sleep's own), and its record. */
  function claim(token: string): SessionRecord {
    reg.write(sleep.pid, sessionRecord(sleep.pid, { procStart: token, pidDomain: ourPidDomain() }));
    return readRecords(reg.configDir)[0]!;
  }

  it('are pruned with their record, and reported on it (dryRun lists them first)', () => {
    reg = makeRegistry();
    const record = claim(dead());
    const keys = [keyName(sleep.pid, 'a'), keyName(sleep.pid, 'b')];
    for (const k of keys) writeFileSync(reg.path(k), body(dead()), { mode: 0o600 });
    const dry = prune([record], { dryRun: true });
    expect(dry.map((r) => [...r.keys].sort())).toEqual([keys.map((k) => reg.path(k)).sort()]);
    expect(readdirSync(reg.sessions).length).toBe(3);
    const [removed] = prune([record]);
    expect([...removed!.keys].sort()).toEqual(keys.map((k) => reg.path(k)).sort());
    expect(readdirSync(reg.sessions)).toEqual([]);
  });

  it('are kept for live records', () => {
    reg = makeRegistry();
    const record = claim(live());
    writeFileSync(reg.path(keyName(sleep.pid)), body(live()));
    expect(prune([record])).toEqual([]);
    expect(readdirSync(reg.sessions).sort()).toEqual([`${sleep.pid}.json`, keyName(sleep.pid)].sort());
  });

  it('are kept when the key names another start token or another pidDomain than the dead record', () => {
    reg = makeRegistry();
    const record = claim(dead());
    const other = keyName(sleep.pid, 'b');
    const foreign = keyName(sleep.pid, 'c');
    const noDomain = keyName(sleep.pid, 'd');
    writeFileSync(reg.path(other), body(live())); // the live process's key: never removed
    writeFileSync(reg.path(foreign), body(dead(), 'linux:0123456789abcdef0123456789abcdef:pid:[4026531836]'));
    writeFileSync(reg.path(noDomain), JSON.stringify({ peerToken: 'x', procStart: dead() }));
    const [removed] = prune([record]);
    expect(removed!.keys).toEqual([]);
    expect(readdirSync(reg.sessions).sort()).toEqual([other, foreign, noDomain].sort());
  });

  it('are never followed through a symlink, and only names of exactly the key shape go', () => {
    reg = makeRegistry();
    const record = claim(dead());
    const target = reg.path('elsewhere.json');
    writeFileSync(target, body(dead()));
    symlinkSync(target, reg.path(keyName(sleep.pid, 'a')));
    const odd = [
      `${sleep.pid}.${'a'.repeat(63)}.key`,
      `${sleep.pid}.${'A'.repeat(64)}.key`,
      `${sleep.pid}.${'a'.repeat(64)}.key.tmp.1`,
      `0${sleep.pid}.${'a'.repeat(64)}.key`,
      `${sleep.pid + 1}.${'a'.repeat(64)}.key`,
    ];
    for (const name of odd) writeFileSync(reg.path(name), body(dead()));
    const [removed] = prune([record]);
    expect(removed!.keys).toEqual([]);
    expect(readdirSync(reg.sessions).sort()).toEqual([keyName(sleep.pid, 'a'), 'elsewhere.json', ...odd].sort());
    expect(readFileSync(target, 'utf8')).toBe(body(dead()));
  });

  it('are kept when this call did not remove the record (its file was rewritten by a live session)', () => {
    reg = makeRegistry();
    const record = claim(dead());
    writeFileSync(reg.path(keyName(sleep.pid)), body(dead()));
    reg.write(sleep.pid, sessionRecord(sleep.pid, { procStart: live(), pidDomain: ourPidDomain() }));
    expect(prune([record])).toEqual([]);
    expect(existsSync(reg.path(keyName(sleep.pid)))).toBe(true);
  });
});
