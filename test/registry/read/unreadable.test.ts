/**
 * A candidate this user may not read (another user's 0600 file): skipped as `unreadable`, never an
 * error, and — where its PID exists — counted by the guard as a possible human. Needs root to set up
 * (files of another owner) and setpriv to read as nobody.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { endAll, hasSetpriv, isRoot, reapedPid, spawnSleep } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../../helpers/registry-fixture.js';

afterAll(endAll);

function scanAsNobody(configDir: string): { uid: number; records: number[]; skipped: { pid: number; reason: string }[]; guard: boolean } {
  const script = fileURLToPath(new URL('../../fixtures/scan-as-user.mjs', import.meta.url));
  const out = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, script, configDir], {
    encoding: 'utf8',
  });
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout);
}

describe.skipIf(!isRoot || !hasSetpriv)('a candidate this user cannot read', () => {
  it('is skipped as unreadable, and counts for the guard only while its PID exists', async () => {
    const reg = makeRegistry();
    try {
      chmodSync(reg.configDir, 0o755);
      chmodSync(reg.sessions, 0o755);
      const live = spawnSleep();
      const dead = reapedPid();
      for (const pid of [live.pid, dead]) {
        const file = join(reg.sessions, `${pid}.json`);
        writeFileSync(file, JSON.stringify(sessionRecord(pid)));
        chmodSync(file, 0o600); // root's, unreadable for nobody
      }
      const withLive = scanAsNobody(reg.configDir);
      expect(withLive.uid).toBe(65534);
      expect(withLive.records).toEqual([]);
      expect(withLive.skipped).toEqual(
        [live.pid, dead].sort((a, b) => a - b).map((pid) => ({ pid, reason: 'unreadable' })),
      );
      // The live PID may be a human whose file we cannot see: the guard must say yes.
      expect(withLive.guard).toBe(true);

      await live.end();
      const allDead = scanAsNobody(reg.configDir);
      expect(allDead.skipped.map((s) => s.reason)).toEqual(['unreadable', 'unreadable']);
      expect(allDead.guard).toBe(false);
    } finally {
      reg.remove();
    }
  });
});
