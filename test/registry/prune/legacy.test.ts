/**
 * Legacy `pid-<n>.json` files of older Claude Code (docs/prune.md): listed, and removed only when no
 * process has their PID, with the same move-aside care. Once per backend.
 */
import { readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { legacyFiles, pruneLegacy, pruneLegacyWithReport } from '../../../lib/index.js';
import { BACKENDS } from '../../helpers/backends.js';
import { suiteWithSleepAndRegistry } from './helpers.js';
import { reapedPid, spawnZombie } from '../../helpers/processes.js';

const legacy = (sessionId: string) => JSON.stringify({ session_id: sessionId, cwd: '/home/user/old' });

describe.each(BACKENDS)('legacy files (%s backend)', (backendName) => {
  const t = suiteWithSleepAndRegistry(backendName);

  it('only those whose PID no longer exists are removed; a live or zombie PID, and non-legacy content, stay', async () => {
    const zombie = await spawnZombie();
    try {
      const gone = reapedPid();
      const junkPid = reapedPid();
      writeFileSync(t.reg.path(`pid-${gone}.json`), legacy('gone-one'));
      writeFileSync(t.reg.path(`pid-${t.sleep.pid}.json`), legacy('maybe-still-running'));
      writeFileSync(t.reg.path(`pid-${zombie.zombiePid}.json`), legacy('zombie'));
      writeFileSync(t.reg.path(`pid-${junkPid}.json`), '{"notes": "not a legacy record"}');
      writeFileSync(t.reg.path(`pid-0${gone}.json`), legacy('odd name'));
      symlinkSync(t.reg.path(`pid-${gone}.json`), t.reg.path(`pid-${gone + 100000}.json`));
      expect(legacyFiles(t.reg.configDir).map((f) => f.pid).sort((a, b) => a - b)).toEqual(
        [gone, t.sleep.pid, zombie.zombiePid].sort((a, b) => a - b),
      );
      const before = readdirSync(t.reg.sessions).sort();
      expect(pruneLegacy(t.reg.configDir, { dryRun: true }).map((f) => f.sessionId)).toEqual(['gone-one']);
      expect(readdirSync(t.reg.sessions).sort()).toEqual(before);
      expect(pruneLegacy(t.reg.configDir)).toEqual([{ path: t.reg.path(`pid-${gone}.json`), pid: gone, sessionId: 'gone-one', cwd: '/home/user/old' }]);
      expect(readdirSync(t.reg.sessions).sort()).toEqual(before.filter((n) => n !== `pid-${gone}.json`));
      expect(pruneLegacy(t.reg.configDir)).toEqual([]);
    } finally {
      await zombie.end();
    }
  });

  it('a legacy copy an interrupted prune left aside is removed when its PID is gone, put back when it lives', () => {
    const gone = reapedPid();
    writeFileSync(t.reg.path(`.pid-${gone}.json.prune-0123456789abcdef`), legacy('gone'));
    writeFileSync(t.reg.path(`.pid-${t.sleep.pid}.json.prune-0123456789abcdef`), legacy('alive'));
    const report = pruneLegacyWithReport(t.reg.configDir);
    expect(report.recovered.map((c) => [c.pid, c.kind, c.action]).sort()).toEqual(
      [[gone, 'legacy', 'removed'], [t.sleep.pid, 'legacy', 'put back']].sort(),
    );
    expect(readdirSync(t.reg.sessions)).toEqual([`pid-${t.sleep.pid}.json`]);
  });

  it('bad arguments are programmer errors', () => {
    expect(() => pruneLegacy(5 as never)).toThrow(TypeError);
    expect(() => pruneLegacy(undefined, { dryRun: 'yes' } as never)).toThrow(TypeError);
    expect(() => pruneLegacy(undefined, { configDirs: '/x' } as never)).toThrow(TypeError);
  });
});
