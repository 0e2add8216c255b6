/** Our pidDomain, computed as Claude Code does, and the rule for records written without one. */
import { readFileSync, readlinkSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computePidDomain, isLocalClaim, ourPidDomain, type DomainFacts } from '../../lib/registry/domain.js';
import { defaultConfigDir, sessionsDir } from '../../lib/index.js';
import { isCandidateName, pidFromName } from '../../lib/registry/config.js';

describe('pidDomain', () => {
  it('is linux:<machine-id>:<pid namespace link> here', () => {
    let id = '';
    try {
      id = readFileSync('/etc/machine-id', 'utf8').trim();
    } catch {}
    expect(ourPidDomain()).toBe(`linux:${id}:${readlinkSync('/proc/self/ns/pid')}`);
    expect(computePidDomain('darwin')).toBe('darwin');
    expect(computePidDomain('win32')).toMatch(/^win32:[^A-Z]*$/);
  });

  const linux: DomainFacts = { platform: 'linux', ours: 'linux:a:b', wsl: false };
  it('a record with a pidDomain is local only when it equals ours', () => {
    expect(isLocalClaim('linux:a:b', undefined, linux)).toBe(true);
    expect(isLocalClaim('linux:a:c', undefined, linux)).toBe(false);
    expect(isLocalClaim('', undefined, linux)).toBe(false);
    expect(isLocalClaim('darwin', undefined, linux)).toBe(false);
  });
  it('a domain-less record is local on Linux, except on WSL or with a Windows cwd', () => {
    expect(isLocalClaim(undefined, '/home/u', linux)).toBe(true);
    expect(isLocalClaim(undefined, undefined, linux)).toBe(true);
    expect(isLocalClaim(undefined, 'C:\\Users\\u', linux)).toBe(false);
    expect(isLocalClaim(undefined, 'd:/work', linux)).toBe(false);
    expect(isLocalClaim(undefined, '\\\\server\\share', linux)).toBe(false);
    expect(isLocalClaim(undefined, '/home/u', { ...linux, wsl: true })).toBe(false);
    expect(isLocalClaim('linux:a:b', '/home/u', { ...linux, wsl: true })).toBe(true);
  });
  it('on Windows a domain-less record with a POSIX cwd is foreign', () => {
    const win: DomainFacts = { platform: 'win32', ours: 'win32:host', wsl: false };
    expect(isLocalClaim(undefined, '/home/u', win)).toBe(false);
    expect(isLocalClaim(undefined, 'C:\\x', win)).toBe(true);
  });
});

describe('config dirs and candidate names', () => {
  it('defaultConfigDir: CLAUDE_CONFIG_DIR NFC-normalised, an empty one means unset', () => {
    expect(defaultConfigDir({ CLAUDE_CONFIG_DIR: '/x/cafe\u0301' })).toBe('/x/caf\u00e9');
    expect(defaultConfigDir({ CLAUDE_CONFIG_DIR: '' })).toBe(defaultConfigDir({}));
    expect(defaultConfigDir({ HOME: '/h' })).toMatch(/\.claude$/);
    expect(sessionsDir('/c')).toBe('/c/sessions');
  });
  it('accepts only canonical <pid>.json', () => {
    for (const ok of ['1.json', '123.json', '2147483648.json']) expect(isCandidateName(ok), ok).toBe(true);
    for (const no of ['0123.json', '0.json', 'notes.json', '12.json.tmp', `1.${'a'.repeat(64)}.key`, '-1.json', '1.5.json', '123.JSON', ' 1.json']) {
      expect(isCandidateName(no), no).toBe(false);
    }
    expect(pidFromName('42.json')).toBe(42);
    expect(pidFromName('0123.json')).toBeUndefined();
    expect(pidFromName('99999999999999999999.json')).toBeUndefined();
    expect(isCandidateName(`${'9'.repeat(400)}.json`)).toBe(true);
    expect(isCandidateName('.json')).toBe(false);
  });
  it('the name check is exactly the pattern ^[1-9][0-9]*\\.json$, and the PID the number it spells', () => {
    const name = fc.oneof(
      fc.string(),
      fc.stringMatching(/^[0-9]{0,20}\.json$/),
      fc.tuple(fc.stringMatching(/^[0-9]{1,18}$/), fc.constantFrom('.json', '.json.tmp', '.JSON', 'json', '.jsonx', '')).map(([d, t]) => d + t),
    );
    fc.assert(
      fc.property(name, (n) => {
        const canonical = /^[1-9][0-9]*\.json$/.test(n);
        expect(isCandidateName(n)).toBe(canonical);
        const pid = Number(n.slice(0, -5));
        expect(pidFromName(n)).toBe(canonical && Number.isSafeInteger(pid) ? pid : undefined);
      }),
      { numRuns: 3000 },
    );
  });
});
