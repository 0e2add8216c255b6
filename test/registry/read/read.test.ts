/** Safe reads of a folder that belongs to another program: every bad input is skipped with its reason. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readFiles } from '../../../lib/backend/index.js';
import { READ_OK, READ_TOO_LARGE } from '../../../lib/backend/types.js';
import { readCandidateFile } from '../../../lib/registry/read/candidates.js';
import { hasLiveInteractive, readRecords, scanRegistry, scanRegistryAsync } from '../../../lib/index.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { sessionRecord } from '../../helpers/registry-fixture.js';
import { liveAndRegistryPerTest } from '../../helpers/suite.js';
import { tokenOf } from '../../helpers/tokens.js';

const FAST = { retryDelayMs: 1 };

describe.each(BACKENDS)('safe reads (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  const fx = liveAndRegistryPerTest();

  const reasons = () => Object.fromEntries(scanRegistry(fx.reg.configDir, FAST).skipped.map((s) => [s.path, s.reason]));

  it('reads a valid record of a live process', () => {
    const path = fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName) }));
    const { records, skipped } = scanRegistry(fx.reg.configDir, FAST);
    expect(skipped).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ path, pid: fx.live.pid, verdict: 'alive', live: true, interactive: true });
    expect(Object.isFrozen(records[0])).toBe(true);
  });

  it('does not follow a symlink to a valid record', () => {
    const target = fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid), 'elsewhere.txt');
    symlinkSync(target, fx.reg.path(`${fx.live.pid}.json`));
    expect(readRecords(fx.reg.configDir, FAST)).toEqual([]);
    expect(reasons()).toEqual({ [fx.reg.path(`${fx.live.pid}.json`)]: 'symlink' });
  });

  it('does not block on a FIFO', () => {
    execFileSync('mkfifo', [fx.reg.path('4242.json')]);
    expect(reasons()).toEqual({ [fx.reg.path('4242.json')]: 'not-regular' });
  });

  it('skips a directory named like a record', () => {
    mkdirSync(fx.reg.path('123.json'));
    expect(reasons()).toEqual({ [fx.reg.path('123.json')]: 'not-regular' });
  });

  it('skips a file over 256 KiB without parsing it', () => {
    const big = JSON.stringify(sessionRecord(fx.live.pid, { name: 'x'.repeat(300 * 1024) }));
    fx.reg.write(fx.live.pid, big);
    expect(reasons()).toEqual({ [fx.reg.path(`${fx.live.pid}.json`)]: 'too-large' });
  });

  it('accepts a record of exactly 256 KiB', () => {
    const base = JSON.stringify(sessionRecord(fx.live.pid, { name: '' }));
    const padded = base.replace('"name":""', `"name":"${'y'.repeat(256 * 1024 - base.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(256 * 1024);
    fx.reg.write(fx.live.pid, padded);
    expect(readRecords(fx.reg.configDir, FAST)).toHaveLength(1);
  });

  it('skips binary garbage and deeply nested JSON as unparseable or not-object', () => {
    fx.reg.write(11, Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x7b, 0x22]));
    fx.reg.write(12, '['.repeat(100_000) + ']'.repeat(100_000));
    fx.reg.write(13, '{"a":'.repeat(40_000) + '1' + '}'.repeat(40_000));
    fx.reg.write(14, '');
    fx.reg.write(15, '   ');
    fx.reg.write(16, '{"pid": 16, "sessionId": "s"'); // torn
    expect(reasons()).toEqual({
      [fx.reg.path('11.json')]: 'unparseable',
      [fx.reg.path('12.json')]: 'not-object',
      [fx.reg.path('13.json')]: 'pid-mismatch',
      [fx.reg.path('14.json')]: 'unparseable',
      [fx.reg.path('15.json')]: 'unparseable',
      [fx.reg.path('16.json')]: 'unparseable',
    });
  });

  it('requires pid to be a safe integer ≥ 1 equal to the file-name pid', () => {
    const bad: unknown[] = [0, -1, 1.5, '123', true, null, 124, 2 ** 53];
    bad.forEach((pid, i) => fx.reg.write(100 + i, { pid, sessionId: 's' }));
    fx.reg.write(120, { sessionId: 's' });
    const skipped = scanRegistry(fx.reg.configDir, FAST).skipped;
    expect(skipped.map((s) => s.reason)).toEqual(Array(bad.length + 1).fill('pid-mismatch'));
    expect(skipped.map((s) => s.pid)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 120]);
  });

  it('requires a JSON object and a non-empty string sessionId', () => {
    fx.reg.write(21, '[1,2]');
    fx.reg.write(22, 'null');
    fx.reg.write(23, '"text"');
    fx.reg.write(24, { pid: 24 });
    fx.reg.write(25, { pid: 25, sessionId: '' });
    fx.reg.write(26, { pid: 26, sessionId: 7 });
    expect(scanRegistry(fx.reg.configDir, FAST).skipped.map((s) => [s.pid, s.reason])).toEqual([
      [21, 'not-object'],
      [22, 'not-object'],
      [23, 'not-object'],
      [24, 'no-session-id'],
      [25, 'no-session-id'],
      [26, 'no-session-id'],
    ]);
  });

  it('ignores every non-candidate name', () => {
    const rec = sessionRecord(fx.live.pid);
    for (const name of ['0123.json', 'notes.json', `${fx.live.pid}.${'ab'.repeat(32)}.key`, '12.json.tmp', '.fleetview-heartbeat', '-1.json', '1.5.json', '2026-03-14_notes.md', `pid-${fx.live.pid}.json`]) {
      fx.reg.write(fx.live.pid, rec, name);
    }
    expect(scanRegistry(fx.reg.configDir, FAST)).toEqual({ records: [], skipped: [] });
  });

  it('treats a missing folder as an empty registry, and a config dir that is a file as unreadable', () => {
    expect(scanRegistry(fx.reg.path('nope'), FAST)).toEqual({ records: [], skipped: [] });
    writeFileSync(fx.reg.path('file'), 'x');
    // Not a folder at all: what it holds is unknown, not nothing (test/registry/guard/ covers the rest).
    expect(() => scanRegistry(fx.reg.path('file'), FAST)).toThrow(expect.objectContaining({ code: 'ERR_REGISTRY_UNREADABLE', reason: 'ENOTDIR' }));
  });

  it('guards: an unreadable candidate of a live PID counts as a possible human', () => {
    fx.reg.write(fx.live.pid, '{"pid":');
    expect(readRecords(fx.reg.configDir, FAST)).toEqual([]);
    expect(hasLiveInteractive(fx.reg.configDir, FAST)).toBe(true);
  });

  it('bounds the read even where fstat understates the size (procfs files say 0 bytes)', () => {
    const small = readFiles('/proc/self', ['status'], 64);
    expect(Array.from(small.status)).toEqual([READ_TOO_LARGE]);
    const whole = readFiles('/proc/self', ['status'], 256 * 1024);
    expect(Array.from(whole.status)).toEqual([READ_OK]);
    expect(whole.bytes.toString()).toMatch(/^Name:/);
  });

  it("a batch's bytes are its own: the next read (into the same scratch buffer) does not change them", () => {
    fx.reg.write(0, { pid: 11, sessionId: 'first' }, '11.json');
    fx.reg.write(0, { pid: 12, sessionId: 'second-and-longer' }, '12.json');
    const first = readFiles(fx.reg.sessions, ['11.json'], 256 * 1024);
    const text = first.bytes.toString();
    const second = readFiles(fx.reg.sessions, ['12.json', '11.json'], 256 * 1024);
    expect(first.bytes.toString()).toBe(text);
    expect(JSON.parse(text).sessionId).toBe('first');
    expect(second.bytes.toString()).toContain('second-and-longer');
  });

  it('a name beyond a safe integer is a candidate that no record can match', () => {
    const name = '99999999999999999999.json';
    fx.reg.write(0, { pid: 99999999999999999999, sessionId: 's' }, name);
    expect(scanRegistry(fx.reg.configDir, FAST)).toEqual({
      records: [],
      skipped: [{ path: fx.reg.path(name), pid: 1e20, reason: 'pid-mismatch' }],
    });
    expect(hasLiveInteractive(fx.reg.configDir, FAST)).toBe(false);
  });

  it('records carry the path under the config dir the caller named, even through a symlink', () => {
    fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid));
    const alias = fx.reg.path('alias-config');
    symlinkSync(fx.reg.configDir, alias);
    expect(readRecords(alias, FAST).map((r) => r.path)).toEqual([`${alias}/sessions/${fx.live.pid}.json`]);
    // Named twice (directly and through the link): read once, under the first name given.
    expect(readRecords([fx.reg.configDir, alias], FAST).map((r) => r.path)).toEqual([fx.reg.path(`${fx.live.pid}.json`)]);
  });

  it('sync and async agree on a folder larger than one async slice', async () => {
    fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName) }));
    for (let i = 0; i < 600; i++) fx.reg.write(4_300_000 + i, i % 7 ? sessionRecord(4_300_000 + i) : 'junk');
    const sync = scanRegistry(fx.reg.configDir, FAST);
    expect(sync.records).toHaveLength(1 + 600 - 86);
    expect(sync.skipped).toHaveLength(86);
    expect(await scanRegistryAsync(fx.reg.configDir, FAST)).toEqual(sync);
  });

  it('readCandidateFile reports the reason, and inode, size and mtime for a regular file', () => {
    const path = fx.reg.write(fx.live.pid, '{"pid":1}');
    const ok = readCandidateFile(path);
    expect(ok.ok && ok.bytes.toString()).toBe('{"pid":1}');
    expect(ok.ok && ok.size).toBe(9);
    expect(ok.ok && ok.ino > 0 && ok.mtimeMs > 0).toBe(true);
    expect(readCandidateFile(fx.reg.path('999.json'))).toEqual({ ok: false, reason: 'missing' });
    symlinkSync(path, fx.reg.path('7.json'));
    expect(readCandidateFile(fx.reg.path('7.json'))).toEqual({ ok: false, reason: 'symlink' });
  });
});
