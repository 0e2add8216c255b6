/**
 * Prune on a full disk (issue 20, point 8): the journal is created, its write fails with ENOSPC, and
 * the empty file used to stay; a long-lived process that prunes again and again piled them up, and
 * no other prune adopts them while it lives. On a real full file system: a small tmpfs this test
 * mounts (root only), filled to the last block.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneWithReport, readRecords } from '../../../lib/index.js';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { isRoot, reapedPid } from '../../helpers/processes.js';
import { sessionRecord } from '../../helpers/registry-fixture.js';

const mountPoint = isRoot ? mkdtempSync(join(tmpdir(), 'cps-full-disk-')) : '';
const mounted = isRoot && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', mountPoint]).status === 0;
if (isRoot && !mounted) rmSync(mountPoint, { recursive: true, force: true });

/** Writes to `path` until the file system refuses (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!mounted)('prune on a full disk', () => {
  const configDir = join(mountPoint, 'config');
  const sessions = join(configDir, 'sessions');
  const filler = join(mountPoint, 'filler');
  const dead = reapedPid();

  beforeAll(() => {
    mkdirSync(sessions, { recursive: true, mode: 0o700 });
    writeFileSync(join(sessions, `${dead}.json`), JSON.stringify(sessionRecord(dead, { procStart: '4242', pidDomain: ourPidDomain() })));
    fill(filler);
  });
  afterAll(() => {
    spawnSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('leaves no empty journal behind, however often it is tried, and removes the record once there is room', () => {
    const records = readRecords(configDir);
    expect(records.map((r) => [r.pid, r.verdict])).toEqual([[dead, 'gone']]);
    for (let i = 0; i < 20; i++) {
      const report = pruneWithReport(records, { configDirs: [configDir] });
      expect(report.removed).toEqual([]);
      expect(report.failed.map((f) => f.reason)).toEqual([expect.stringMatching(/^cannot write its journal: .*\(ENOSPC\)$/)]);
      expect(readdirSync(sessions)).toEqual([`${dead}.json`]);
    }
    unlinkSync(filler);
    const report = pruneWithReport(records, { configDirs: [configDir] });
    expect(report.failed).toEqual([]);
    expect(report.removed.map((r) => r.pid)).toEqual([dead]);
    expect(readdirSync(sessions)).toEqual([]);
  });
});
