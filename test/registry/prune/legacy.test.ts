/**
 * Legacy `pid-<n>.json` files of older Claude Code (docs/prune.md): listed, and removed only when no
 * process has their PID, with the same move-aside care. Once per backend.
 */
import { readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { legacyFiles, pruneLegacy, pruneLegacyWithReport } from '../../../lib/index.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, reapedPid, spawnSleep, spawnZombie, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, type RegistryFixture } from '../../helpers/registry-fixture.js';

const legacy = (sessionId: string) => JSON.stringify({ session_id: sessionId, cwd: '/home/user/old' });

describe.each(BACKENDS)('legacy files (%s backend)', (backendName) => {
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

  it('only those whose PID no longer exists are removed; a live or zombie PID, and non-legacy content, stay', async () => {
    reg = makeRegistry();
    const zombie = await spawnZombie();
    try {
      const gone = reapedPid();
      const junkPid = reapedPid();
      writeFileSync(reg.path(`pid-${gone}.json`), legacy('gone-one'));
      writeFileSync(reg.path(`pid-${sleep.pid}.json`), legacy('maybe-still-running'));
      writeFileSync(reg.path(`pid-${zombie.zombiePid}.json`), legacy('zombie'));
      writeFileSync(reg.path(`pid-${junkPid}.json`), '{"notes": "not a legacy record"}');
      writeFileSync(reg.path(`pid-0${gone}.json`), legacy('odd name'));
      symlinkSync(reg.path(`pid-${gone}.json`), reg.path(`pid-${gone + 100000}.json`));
      expect(legacyFiles(reg.configDir).map((f) => f.pid).sort((a, b) => a - b)).toEqual(
        [gone, sleep.pid, zombie.zombiePid].sort((a, b) => a - b),
      );
      const before = readdirSync(reg.sessions).sort();
      expect(pruneLegacy(reg.configDir, { dryRun: true }).map((f) => f.sessionId)).toEqual(['gone-one']);
      expect(readdirSync(reg.sessions).sort()).toEqual(before);
      expect(pruneLegacy(reg.configDir)).toEqual([{ path: reg.path(`pid-${gone}.json`), pid: gone, sessionId: 'gone-one', cwd: '/home/user/old' }]);
      expect(readdirSync(reg.sessions).sort()).toEqual(before.filter((n) => n !== `pid-${gone}.json`));
      expect(pruneLegacy(reg.configDir)).toEqual([]);
    } finally {
      await zombie.end();
    }
  });

  it('a legacy copy an interrupted prune left aside is removed when its PID is gone, put back when it lives', () => {
    reg = makeRegistry();
    const gone = reapedPid();
    writeFileSync(reg.path(`.pid-${gone}.json.prune-0123456789abcdef`), legacy('gone'));
    writeFileSync(reg.path(`.pid-${sleep.pid}.json.prune-0123456789abcdef`), legacy('alive'));
    const report = pruneLegacyWithReport(reg.configDir);
    expect(report.recovered.map((c) => [c.pid, c.kind, c.action]).sort()).toEqual(
      [[gone, 'legacy', 'removed'], [sleep.pid, 'legacy', 'put back']].sort(),
    );
    expect(readdirSync(reg.sessions)).toEqual([`pid-${sleep.pid}.json`]);
  });

  it('bad arguments are programmer errors', () => {
    expect(() => pruneLegacy(5 as never)).toThrow(TypeError);
    expect(() => pruneLegacy(undefined, { dryRun: 'yes' } as never)).toThrow(TypeError);
    expect(() => pruneLegacy(undefined, { configDirs: '/x' } as never)).toThrow(TypeError);
  });
});
