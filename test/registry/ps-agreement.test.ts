/**
 * Issue #7's check: the ps backend (macOS's fallback, run here on procps) agrees with the native one.
 * One set of real processes — live, recycled, zombie, dead — is written as a registry once per backend,
 * each record carrying the token its platform's Claude Code records (ticks for native, `ps -o lstart=`
 * text for ps), and read through the whole scan path. The verdicts must be the same, and the expected
 * ones. A thread ID is the one known difference, asserted as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processStartToken, readRecords, type Verdict } from '../../lib/index.js';
import { useBackend } from '../helpers/backends.js';
import { endAll, ownThreadId, reapedPid, spawnSleep, spawnZombie, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../helpers/registry-fixture.js';
import { anotherToken, foreignFormToken, psLstart, tokenOf } from '../helpers/tokens.js';

const FAST = { retryDelayMs: 1 };

describe('ps and native agree on a registry of real processes', () => {
  let live: Spawned;
  let other: Spawned;
  let zombie: Spawned & { zombiePid: number };
  let dead: number;

  beforeAll(async () => {
    live = spawnSleep();
    other = spawnSleep();
    zombie = await spawnZombie();
    dead = reapedPid();
  });
  afterAll(async () => {
    await Promise.all([live.end(), other.end(), zombie.end()]);
    await endAll();
  });

  /** Writes the registry with `backendName`'s token form, reads it under that backend: pid → verdict. */
  function verdictsUnder(backendName: 'native' | 'ps'): Map<number, Verdict> {
    const restore = useBackend(backendName);
    const reg = makeRegistry();
    try {
      const liveToken = tokenOf(live.pid, backendName);
      reg.write(live.pid, sessionRecord(live.pid, { procStart: liveToken }));
      reg.write(other.pid, sessionRecord(other.pid, { procStart: anotherToken(tokenOf(other.pid, backendName)) }));
      reg.write(zombie.zombiePid, sessionRecord(zombie.zombiePid, { procStart: tokenOf(zombie.zombiePid, backendName) }));
      reg.write(dead, sessionRecord(dead, { procStart: anotherToken(liveToken) }));
      // A live process whose record has no token, or a token of the other platform's form.
      reg.write(zombie.pid, sessionRecord(zombie.pid));
      reg.write(process.pid, sessionRecord(process.pid, { procStart: foreignFormToken(backendName) }));
      return new Map(readRecords(reg.configDir, FAST).map((r) => [r.pid, r.verdict]));
    } finally {
      reg.remove();
      restore();
    }
  }

  it('gives the same verdicts, and the expected ones, under ps and native', () => {
    const native = verdictsUnder('native');
    const ps = verdictsUnder('ps');
    const expected = new Map<number, Verdict>([
      [live.pid, 'alive'],
      [other.pid, 'recycled'],
      [zombie.zombiePid, 'zombie'],
      [dead, 'gone'],
      [zombie.pid, 'unverified'],
      [process.pid, 'unverified'],
    ]);
    expect(native).toEqual(expected);
    expect(ps).toEqual(native);
  });

  it('the ps backend reports the very text procps prints for a live process and a zombie', () => {
    const restore = useBackend('ps');
    try {
      expect(processStartToken(live.pid)).toBe(psLstart(live.pid));
      expect(processStartToken(zombie.zombiePid)).toBe(psLstart(zombie.zombiePid));
      expect(processStartToken(dead)).toBeUndefined();
    } finally {
      restore();
    }
  });

  it('a thread ID is the known difference: native reads its stat (alive), procps ps -p does not list it', () => {
    const tid = ownThreadId();
    const reg = makeRegistry();
    const under = (backendName: 'native' | 'ps', token: string | undefined): Verdict | undefined => {
      const restore = useBackend(backendName);
      try {
        reg.write(tid, sessionRecord(tid, { procStart: token }));
        return readRecords(reg.configDir, FAST)[0]?.verdict;
      } finally {
        restore();
      }
    };
    try {
      expect(under('native', tokenOf(tid, 'native'))).toBe('alive');
      // No lstart text exists for a thread (ps lists nothing), so any well-formed one is written; kill(tid, 0)
      // answers, so ps keeps it unverified — never gone, never recycled.
      expect(psLstart(tid)).toBeUndefined();
      expect(under('ps', tokenOf(process.pid, 'ps'))).toBe('unverified');
    } finally {
      reg.remove();
    }
  });
});
