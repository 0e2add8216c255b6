/**
 * The live-only scan (liveRecords, liveInteractiveRecords, hasLiveInteractive) skips parsing a file
 * whose PID is gone or a zombie when its text proves the claim local. It must answer exactly as the
 * full scan does: the rule that lets it skip (isProvablyLocalText) is checked against the parser, and
 * the two scans are compared on real folders with dead, zombie and live PIDs.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasLiveInteractive, liveInteractiveRecords, liveRecords, scanRegistry } from '../../../lib/index.js';
import { domainFacts, isLocalClaim, isProvablyLocalText, ourPidDomain, type DomainFacts } from '../../../lib/registry/domain.js';
import { parseClaim } from '../../../lib/registry/read/schema.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, reapedPid, spawnSleep, spawnZombie, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { recordedTokenFor } from '../../helpers/tokens.js';

const linux: DomainFacts = { platform: 'linux', ours: 'linux:abc:pid:[4026531836]', wsl: false };
const FAST = { retryDelayMs: 0 };

describe('isProvablyLocalText', () => {
  const doc = (fields: Record<string, unknown>) => JSON.stringify({ pid: 42, sessionId: 's', ...fields });

  it('is true only when every way to be foreign is ruled out on the text', () => {
    expect(isProvablyLocalText(doc({ cwd: '/home/me' }), linux)).toBe(true);
    expect(isProvablyLocalText(doc({ pidDomain: linux.ours }), linux)).toBe(true);
    expect(isProvablyLocalText(doc({ pidDomain: 'linux:other:pid:[1]' }), linux)).toBe(false);
    expect(isProvablyLocalText(doc({ pidDomain: 'darwin' }), linux)).toBe(false);
    expect(isProvablyLocalText(doc({ pidDomain: 7 }), linux)).toBe(false);
    // JSON.parse keeps the last of duplicate keys; an escaped key spells pidDomain without the letters.
    expect(isProvablyLocalText(`{"pid":42,"pidDomain":"${linux.ours}","pidDomain":"darwin"}`, linux)).toBe(false);
    expect(isProvablyLocalText(`{"pid":42,"pid\\u0044omain":"darwin"}`, linux)).toBe(false);
    expect(isProvablyLocalText(doc({ cwd: 'C:/Users/me' }), linux)).toBe(false);
    expect(isProvablyLocalText(doc({ cwd: 'C:\\Users\\me' }), linux)).toBe(false);
    expect(isProvablyLocalText(doc({ cwd: '/home/me' }), { ...linux, wsl: true })).toBe(false);
    expect(isProvablyLocalText(doc({ cwd: '/home/me' }), { ...linux, platform: 'win32' })).toBe(false);
    // Our top-level pidDomain settles it, whatever the cwd; a nested one says nothing of the top level.
    expect(isProvablyLocalText(doc({ pidDomain: linux.ours, cwd: 'C:/Users/me' }), linux)).toBe(true);
    expect(isProvablyLocalText(doc({ nested: { pidDomain: linux.ours }, cwd: 'C:/Users/me' }), linux)).toBe(false);
    expect(isProvablyLocalText(doc({ nested: { pidDomain: linux.ours }, cwd: '/home/me' }), linux)).toBe(true);
    // Another key ending in Domain: not proven (the one key must be the only one of its kind).
    expect(isProvablyLocalText(doc({ mailDomain: 'x', pidDomain: linux.ours }), linux)).toBe(false);
    expect(isProvablyLocalText(doc({ pidDomain: linux.ours, name: 'Domain"' }), linux)).toBe(false);
  });

  it('never says local where the parsed claim is foreign (random documents)', () => {
    const domains = fc.constantFrom(linux.ours, 'linux:other:pid:[1]', 'darwin', 'win32:host', '');
    const value = fc.oneof(fc.jsonValue(), domains, fc.constantFrom('C:/x', 'C:\\x', '\\\\srv\\x', '/home/me', '{', 'Domain', '"pidDomain"'));
    const key = fc.constantFrom('pidDomain', 'cwd', 'nested', 'name', 'pid\u0044omain', 'xDomain', 'Domain', '{');
    const extra = fc.dictionary(key, fc.oneof(value, fc.dictionary(key, value, { maxKeys: 2 })), { maxKeys: 2 });
    const document = fc
      .record({
        pidDomain: fc.option(domains, { freq: 2 }),
        cwd: fc.option(fc.oneof(value, fc.constantFrom('C:/x', 'D:/y/z')), { freq: 4 }),
        nested: fc.boolean(),
        rest: fc.oneof(fc.constant({}), extra),
      })
      .map(({ pidDomain, cwd, nested, rest }) => {
        const fields: Record<string, unknown> = { pid: 42, sessionId: 's', ...rest };
        if (pidDomain !== null) fields.pidDomain = pidDomain;
        if (cwd !== null) fields.cwd = cwd;
        // Our domain one level down: the top-level pidDomain is then whatever else the document says.
        if (nested) fields.nested = { pidDomain: linux.ours };
        return JSON.stringify(fields);
      });
    fc.assert(
      fc.property(document, fc.boolean(), (text, wsl) => {
        const facts = { ...linux, wsl };
        if (!isProvablyLocalText(text, facts)) return;
        const claim = parseClaim(Buffer.from(text), '/x/42.json', 42);
        if (typeof claim === 'string') return; // not a record at all: never listed
        expect(isLocalClaim(claim.pidDomain, claim.cwd, facts)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe.each(BACKENDS)('live-only scans agree with the full scan (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let reg: RegistryFixture;
  let live: Spawned;
  let bgLive: Spawned;
  let zombie: Spawned & { zombiePid: number };

  beforeAll(async () => {
    reg = makeRegistry();
    live = spawnSleep();
    bgLive = spawnSleep();
    zombie = await spawnZombie();
  });
  afterAll(async () => {
    await endAll();
    reg.remove();
  });

  it('on dead, zombie, foreign, recycled and live claims, written with and without pidDomain', () => {
    const ours = ourPidDomain();
    const dead = [reapedPid(), reapedPid(), reapedPid(), reapedPid(), reapedPid()];
    reg.write(live.pid, sessionRecord(live.pid, { procStart: recordedTokenFor(live.pid, backendName), pidDomain: ours }));
    reg.write(bgLive.pid, sessionRecord(bgLive.pid, { kind: 'bg' }));
    reg.write(zombie.zombiePid, sessionRecord(zombie.zombiePid, { pidDomain: ours }));
    reg.write(dead[0]!, sessionRecord(dead[0]!, { pidDomain: ours })); // skipped unparsed
    reg.write(dead[1]!, sessionRecord(dead[1]!, {})); // skipped unparsed (no pidDomain)
    reg.write(dead[2]!, sessionRecord(dead[2]!, { pidDomain: 'linux:elsewhere:pid:[1]' })); // foreign: live
    reg.write(dead[3]!, sessionRecord(dead[3]!, { cwd: 'C:\\Users\\me' })); // foreign: live
    reg.write(dead[4]!, '{"pid": 1, "sessionId": "torn'); // unparseable, PID gone
    const full = scanRegistry(reg.configDir, FAST);
    const expectedLive = full.records.filter((r) => r.live);
    expect(liveRecords(reg.configDir, FAST)).toEqual(expectedLive);
    expect(liveInteractiveRecords(reg.configDir, FAST)).toEqual(expectedLive.filter((r) => r.interactive));
    expect(hasLiveInteractive(reg.configDir, FAST)).toBe(true);
    expect(expectedLive.map((r) => [r.pid, r.verdict])).toEqual(
      [
        [live.pid, 'alive'],
        [bgLive.pid, 'unverified'],
        [dead[2]!, 'foreign'],
        [dead[3]!, 'foreign'],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    expect(domainFacts().wsl).toBe(false);
  });
});
