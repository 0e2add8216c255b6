/**
 * The parse memo (lib/registry/read/parse-memo.ts): a text equal to last scan's gets last scan's
 * outcome, any other text is parsed again, and what is kept stays bounded whatever the folder holds.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveRecords, readRecords, scanRegistry } from '../../../lib/index.js';
import { MEMO_LIMITS, memoFootprint } from '../../../lib/registry/read/parse-memo.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { liveAndRegistryPerTest } from '../../helpers/suite.js';
import { tokenOf } from '../../helpers/tokens.js';

const FAST = { retryDelayMs: 1 };

describe.each(BACKENDS)('the parse memo (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  const fx = liveAndRegistryPerTest();

  it('keeps nothing at a process\'s first read of a folder; from the second read on, an unchanged text gives back its claim', () => {
    fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName) }));
    const [first] = readRecords(fx.reg.configDir, FAST);
    expect(memoFootprint(fx.reg.sessions)).toMatchObject({ entries: 0 });
    const [second] = readRecords(fx.reg.configDir, FAST);
    expect(memoFootprint(fx.reg.sessions)).toMatchObject({ entries: 1 });
    const [third] = readRecords(fx.reg.configDir, FAST);
    // Parsed at the first two reads (two documents), given back at the third (the same frozen document).
    expect(second!.raw).not.toBe(first!.raw);
    expect(third!.raw).toBe(second!.raw);
    expect(third).toEqual(first);
  });

  it('a record rewritten in place, same length, is read as its new text', () => {
    const record = (name: string) => sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName), name, sessionId: 's-1' });
    fx.reg.write(fx.live.pid, record('alpha'));
    expect(liveRecords(fx.reg.configDir, FAST).map((r) => r.name)).toEqual(['alpha']);
    expect(liveRecords(fx.reg.configDir, FAST).map((r) => r.name)).toEqual(['alpha']);
    fx.reg.write(fx.live.pid, record('omega'));
    expect(liveRecords(fx.reg.configDir, FAST).map((r) => r.name)).toEqual(['omega']);
    // A text that became a skip, and back: each scan says what the file holds now.
    fx.reg.write(fx.live.pid, JSON.stringify({ ...record('omega'), pid: fx.live.pid + 1 }));
    expect(scanRegistry(fx.reg.configDir, FAST).skipped.map((s) => s.reason)).toEqual(['pid-mismatch']);
    fx.reg.write(fx.live.pid, record('omega'));
    expect(readRecords(fx.reg.configDir, FAST).map((r) => r.name)).toEqual(['omega']);
  });

  it('an unchanged file gives an equal, fresh record (new verdict, same frozen raw)', () => {
    fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName) }));
    const [first] = readRecords(fx.reg.configDir, FAST);
    const [second] = readRecords(fx.reg.configDir, FAST);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(Object.isFrozen(second!.raw)).toBe(true);
    // The same file read through another config dir path is another folder: its records carry that path.
    const other = liveRecords(join(fx.reg.configDir, '.', ''), FAST);
    expect(other.map((r) => r.path)).toEqual([first!.path]);
  });

  it('keeps nothing past its limits: amplifying documents are parsed, not held; folders beyond the cap are dropped', () => {
    // ~60 KB of empty objects is ~20 times that once parsed (the review's reproduction held 357 MiB
    // for 256 such files after the scan's result was dropped): it costs past MAX_ENTRY_COST.
    const amplifying = (pid: number) => `{"pid":${pid},"sessionId":"s","x":[${Array(20_000).fill('{}').join(',')}]}`;
    for (let i = 0; i < 40; i++) writeFileSync(fx.reg.path(`${1_000_000 + i}.json`), amplifying(1_000_000 + i));
    const big = 'x'.repeat(MEMO_LIMITS.MAX_ENTRY_COST);
    fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName), name: big }));
    expect(readRecords(fx.reg.configDir, FAST)).toHaveLength(41);
    const after = memoFootprint(fx.reg.sessions);
    expect(after.entries).toBe(0);
    expect(after.cost).toBeLessThanOrEqual(MEMO_LIMITS.MAX_COST);
    // A plain record is kept, at a cost that bounds its text and its values.
    fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName) }));
    readRecords(fx.reg.configDir, FAST);
    const kept = memoFootprint(fx.reg.sessions);
    expect(kept.entries).toBe(1);
    expect(kept.cost - after.cost).toBeGreaterThan(2 * JSON.stringify(sessionRecord(fx.live.pid)).length);
    const dirs: RegistryFixture[] = [];
    try {
      for (let i = 0; i < MEMO_LIMITS.MAX_FOLDERS + 4; i++) {
        const d = makeRegistry();
        dirs.push(d);
        d.write(fx.live.pid, sessionRecord(fx.live.pid));
        readRecords(d.configDir, FAST);
      }
      expect(memoFootprint().folders).toBeLessThanOrEqual(MEMO_LIMITS.MAX_FOLDERS);
    } finally {
      for (const d of dirs) d.remove();
    }
  });

  it('what a caller changes in one scan\'s raw never reaches the next: raw is frozen all the way down', () => {
    fx.reg.write(fx.live.pid, sessionRecord(fx.live.pid, { procStart: tokenOf(fx.live.pid, backendName), extra: { tags: ['a'] }, list: [[1], { b: 2 }] }));
    const [first] = readRecords(fx.reg.configDir, FAST);
    const tags = (first!.raw.extra as { tags: string[] }).tags;
    expect(Object.isFrozen(first!.raw.extra)).toBe(true);
    expect(() => tags.push('changed')).toThrow(TypeError);
    expect(Object.isFrozen((first!.raw.list as unknown[])[0])).toBe(true);
    const [second] = readRecords(fx.reg.configDir, FAST);
    expect(second!.raw.extra).toEqual({ tags: ['a'] });
  });

  it('a document nested 20,000 levels deep is frozen without exhausting the stack', () => {
    const deep = `{"pid":${fx.live.pid},"sessionId":"s","procStart":"${tokenOf(fx.live.pid, backendName) ?? ''}","d":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    fx.reg.write(fx.live.pid, deep);
    const [record] = readRecords(fx.reg.configDir, FAST);
    let inner: unknown = record!.raw.d;
    for (let i = 0; i < 19_999; i++) inner = (inner as unknown[])[0];
    expect(Object.isFrozen(inner)).toBe(true);
  });

  it('a folder whose listing shrinks drops what it held of the names that left', () => {
    const names = Array.from({ length: 300 }, (_, i) => `${2_000_000 + i}.json`);
    for (const [i, name] of names.entries()) writeFileSync(fx.reg.path(name), JSON.stringify(sessionRecord(2_000_000 + i)));
    readRecords(fx.reg.configDir, FAST);
    // The first read keeps nothing; the second keeps every record.
    expect(memoFootprint(fx.reg.sessions).entries).toBe(0);
    readRecords(fx.reg.configDir, FAST);
    expect(memoFootprint(fx.reg.sessions).entries).toBe(300);
    for (const name of names.slice(10)) rmSync(fx.reg.path(name));
    expect(readRecords(fx.reg.configDir, FAST)).toHaveLength(10);
    expect(memoFootprint(fx.reg.sessions).entries).toBe(10);
  });
});
