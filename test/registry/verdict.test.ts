/**
 * Verdicts on real processes, through the whole read path, on every backend. Records carry the token
 * form the backend's platform records (ticks for js/native, lstart text for ps), so the verdicts match.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  hasLiveInteractive,
  hasLiveInteractiveAsync,
  isLive,
  liveInteractiveRecords,
  liveInteractiveRecordsAsync,
  liveRecords,
  liveRecordsAsync,
  readRecords,
  readRecordsAsync,
  scanRegistryAsync,
  verdict,
  type SessionRecord,
} from '../../lib/index.js';
import { ourPidDomain } from '../../lib/registry/domain.js';
import { BACKENDS, selectBackendForSuite } from '../helpers/backends.js';
import { endAll, reapedPid, spawnSleep, spawnZombie, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { anotherToken, foreignFormToken, tokenOf } from '../helpers/tokens.js';

const FAST = { retryDelayMs: 1 };

describe.each(BACKENDS)('verdicts (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let reg: RegistryFixture;
  let live: Spawned;
  let other: Spawned;
  let zombie: Spawned & { zombiePid: number };
  let token: string;
  let dead: number;

  beforeAll(async () => {
    live = spawnSleep();
    other = spawnSleep();
    zombie = await spawnZombie();
    token = tokenOf(live.pid, backendName);
    dead = reapedPid();
  });
  afterAll(async () => {
    await Promise.all([live.end(), other.end(), zombie.end()]);
    await endAll();
  });
  beforeEach(() => {
    reg = makeRegistry();
  });
  afterEach(() => reg.remove());

  const byPid = (records: SessionRecord[]) => new Map(records.map((r) => [r.pid, r]));

  it('resolves every verdict of docs/liveness.md from one scan', () => {
    reg.write(live.pid, sessionRecord(live.pid, { procStart: token, pidDomain: ourPidDomain() }));
    reg.write(dead, sessionRecord(dead, { procStart: anotherToken(token) }));
    reg.write(other.pid, sessionRecord(other.pid, { procStart: anotherToken(tokenOf(other.pid, backendName)) }));
    reg.write(zombie.zombiePid, sessionRecord(zombie.zombiePid, { procStart: tokenOf(zombie.zombiePid, backendName) }));
    const records = readRecords(reg.configDir, FAST);
    expect(records.map((r) => r.pid)).toEqual([...records.map((r) => r.pid)].sort((a, b) => a - b));
    const m = byPid(records);
    expect(m.get(live.pid)).toMatchObject({ verdict: 'alive', live: true, token });
    expect(m.get(dead)).toMatchObject({ verdict: 'gone', live: false });
    expect(m.get(other.pid)).toMatchObject({ verdict: 'recycled', live: false });
    expect(m.get(zombie.zombiePid)).toMatchObject({ verdict: 'zombie', live: false });
  });

  it('a blank, absent, mistyped or other-form token is unverified, never recycled', () => {
    const cases: Record<string, unknown>[] = [
      {},
      { procStart: '' },
      { procStart: '   ' },
      { procStart: 654274470 },
      { procStart: null, procStartFt: '  ' },
      { procStart: '133822222222222222' }, // Windows FILETIME
      { procStartFt: '638800000000000000' }, // .NET ticks
      { procStart: foreignFormToken(backendName) }, // lstart text on Linux, ticks on macOS
      { procStart: 'garbage' },
      { procStart: '0123' },
    ];
    const dir = reg.configDir;
    for (const fields of cases) {
      reg.write(live.pid, sessionRecord(live.pid, fields));
      const [r] = readRecords(dir, FAST);
      expect(r?.verdict, JSON.stringify(fields)).toBe('unverified');
      expect(r?.live).toBe(true);
    }
  });

  it('takes procStart, else procStartFt', () => {
    reg.write(live.pid, sessionRecord(live.pid, { procStart: ' ', procStartFt: token }));
    expect(readRecords(reg.configDir, FAST)[0]).toMatchObject({ verdict: 'alive', token });
    reg.write(live.pid, sessionRecord(live.pid, { procStart: token, procStartFt: '1' }));
    expect(readRecords(reg.configDir, FAST)[0]).toMatchObject({ verdict: 'alive', token });
  });

  it('never probes a foreign record: another pidDomain, or no pidDomain and a Windows cwd', () => {
    reg.write(dead, sessionRecord(dead, { procStart: '1', pidDomain: 'linux:other-machine:pid:[1]' }));
    reg.write(other.pid, sessionRecord(other.pid, { procStart: '1', cwd: 'C:\\Users\\me\\project' }));
    const m = byPid(readRecords(reg.configDir, FAST));
    expect(m.get(dead)).toMatchObject({ verdict: 'foreign', live: true });
    expect(m.get(other.pid)).toMatchObject({ verdict: 'foreign', live: true });
  });

  it('a PID above 2^31-1 is gone without a probe', () => {
    const pid = 2 ** 31;
    reg.write(pid, sessionRecord(pid, { procStart: '1' }));
    expect(readRecords(reg.configDir, FAST)[0]).toMatchObject({ pid, verdict: 'gone' });
  });

  it('kind policy: missing, unknown and mistyped kinds are interactive; bg, daemon, daemon-worker are not', () => {
    const kinds: [number, unknown, string, boolean][] = [
      [1_000_001, undefined, 'interactive', true],
      [1_000_002, 'future-kind', 'future-kind', true],
      [1_000_003, 42, 'interactive', true],
      [1_000_004, 'bg', 'bg', false],
      [1_000_005, 'daemon', 'daemon', false],
      [1_000_006, 'daemon-worker', 'daemon-worker', false],
    ];
    for (const [pid, kind] of kinds) {
      const rec = sessionRecord(pid, { pidDomain: 'elsewhere' });
      if (kind === undefined) delete rec.kind;
      else rec.kind = kind;
      reg.write(pid, rec);
    }
    const records = readRecords(reg.configDir, FAST);
    expect(records.map((r) => [r.pid, r.kind, r.interactive])).toEqual(kinds.map(([p, , k, i]) => [p, k, i]));
  });

  it('live and interactive filters, and the guard, sync and async agree', async () => {
    reg.write(live.pid, sessionRecord(live.pid, { procStart: token, kind: 'bg' }));
    reg.write(dead, sessionRecord(dead, { procStart: '1' }));
    expect(liveRecords(reg.configDir, FAST).map((r) => r.pid)).toEqual([live.pid]);
    expect((await liveRecordsAsync(reg.configDir, FAST)).map((r) => r.pid)).toEqual([live.pid]);
    expect(liveInteractiveRecords(reg.configDir, FAST)).toEqual([]);
    expect(await liveInteractiveRecordsAsync(reg.configDir, FAST)).toEqual([]);
    expect(hasLiveInteractive(reg.configDir, FAST)).toBe(false);
    expect(await hasLiveInteractiveAsync(reg.configDir, FAST)).toBe(false);
    reg.write(other.pid, sessionRecord(other.pid));
    expect(hasLiveInteractive(reg.configDir, FAST)).toBe(true);
    expect(await hasLiveInteractiveAsync(reg.configDir, FAST)).toBe(true);
    expect(await readRecordsAsync(reg.configDir, FAST)).toEqual(readRecords(reg.configDir, FAST));
  });

  it('the guard ignores an unreadable candidate whose PID is gone', async () => {
    reg.write(dead, '{"pid":');
    expect(hasLiveInteractive(reg.configDir, FAST)).toBe(false);
    expect((await scanRegistryAsync(reg.configDir, FAST)).skipped).toEqual([
      { path: reg.path(`${dead}.json`), pid: dead, reason: 'unparseable' },
    ]);
  });

  it('merges several config dirs and reads a shared sessions folder once', () => {
    const second = makeRegistry();
    try {
      reg.write(live.pid, sessionRecord(live.pid, { procStart: token }));
      second.write(dead, sessionRecord(dead));
      const alias = join(second.configDir, 'alias');
      mkdirSync(alias);
      symlinkSync(reg.sessions, join(alias, 'sessions'));
      const records = readRecords([reg.configDir, second.configDir, alias, join(reg.configDir, 'missing')], FAST);
      expect(records.map((r) => r.pid)).toEqual([live.pid, dead].sort((a, b) => a - b));
    } finally {
      second.remove();
    }
  });

  it('verdict() and isLive() answer for one claim', async () => {
    expect(verdict(live.pid, token)).toBe('alive');
    expect(verdict(live.pid)).toBe('unverified');
    expect(verdict(live.pid, '  ')).toBe('unverified');
    expect(verdict(live.pid, anotherToken(token))).toBe('recycled');
    expect(verdict(dead, token)).toBe('gone');
    expect(verdict(zombie.zombiePid)).toBe('zombie');
    expect(verdict(dead, '1', 'another-domain')).toBe('foreign');
    expect(verdict(live.pid, token, ourPidDomain())).toBe('alive');
    expect(verdict(2 ** 31 + 5)).toBe('gone');
    expect(isLive(live.pid)).toBe(true);
    expect(isLive(dead)).toBe(false);
    for (const bad of [0, -1, 1.5, NaN, '1']) expect(() => verdict(bad as number)).toThrow(TypeError);
  });

  it('records are frozen and keep raw', () => {
    reg.write(live.pid, sessionRecord(live.pid, { procStart: token, status: 7, extra: { nested: [1] } }));
    const [r] = readRecords(reg.configDir, FAST);
    expect(r!.status).toBeUndefined();
    expect(r!.raw.status).toBe(7);
    expect(r!.raw.extra).toEqual({ nested: [1] });
    expect(Object.isFrozen(r)).toBe(true);
    expect(() => {
      (r as { verdict: string }).verdict = 'gone';
    }).toThrow();
  });
});
