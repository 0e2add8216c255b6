/**
 * A `sessions/` folder that exists but cannot be listed holds sessions nobody can see: every reader
 * throws RegistryUnreadableError and `has-interactive` exits 3 ("cannot tell"), never a guessed "no".
 * Mode 000 and 0311 (search but no read) only stop a non-root reader, so those cases run as nobody.
 */
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasLiveInteractive,
  hasLiveInteractiveAsync,
  liveRecords,
  readRecords,
  readRecordsAsync,
  RegistryUnreadableError,
  REGISTRY_UNREADABLE,
  scanRegistry,
} from '../../../lib/index.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, hasSetpriv, isRoot, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { tokenOf } from '../../helpers/tokens.js';
import { builtCli, removeCopy, runCli } from '../../cli/run-cli.js';
import { cliAsNobody, READERS, readersAsNobody } from './as-nobody.js';

const FAST = { retryDelayMs: 0 };
let cli: string;
let live: Spawned;

beforeAll(async () => {
  cli = await builtCli();
  live = spawnSleep();
});
afterAll(async () => {
  await live?.end();
  await endAll();
  if (cli) removeCopy(cli);
});

/** A registry holding one live interactive record, with the token the backend's platform records. */
function humanRegistry(backendName: string): RegistryFixture {
  const reg = makeRegistry('cps-guard-');
  reg.write(live.pid, sessionRecord(live.pid, { procStart: tokenOf(live.pid, backendName), status: 'busy' }));
  return reg;
}

const ONE_LINE = /^claude-ps: cannot tell: cannot list [^\n]+\): the sessions it holds are unknown\n$/;

describe.each(BACKENDS)('an unlistable sessions/ folder (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);

  describe.skipIf(!isRoot || !hasSetpriv)('as nobody (skipped unless root with setpriv: only root can make a folder nobody cannot list)', () => {
    for (const mode of [0o000, 0o311]) {
      it(`mode ${mode.toString(8).padStart(4, '0')}: every reader throws the typed error, has-interactive exits 3`, () => {
        const reg = humanRegistry(backendName);
        try {
          chmodSync(reg.configDir, 0o755);
          // The control first: readable, the same folder says yes (so the failure below is the mode's).
          chmodSync(reg.sessions, 0o755);
          const readable = readersAsNobody(backendName, [reg.configDir]);
          expect(readable.uid).toBe(65534);
          expect(readable.hasLiveInteractive).toEqual({ value: true });
          expect(readable.liveInteractiveRecords).toEqual({ value: [live.pid] });
          expect(cliAsNobody(cli, ['has-interactive', '--config-dir', reg.configDir]).status).toBe(0);

          chmodSync(reg.sessions, mode);
          const answers = readersAsNobody(backendName, [reg.configDir]);
          for (const reader of READERS) {
            expect(answers[reader], reader).toEqual({
              error: expect.objectContaining({ typed: true, name: 'RegistryUnreadableError', code: REGISTRY_UNREADABLE, reason: 'EACCES', path: reg.sessions }),
            });
          }
          // Beside a readable folder too: one folder unknown makes the whole answer unknown.
          const other = humanRegistry(backendName);
          try {
            chmodSync(other.configDir, 0o755);
            chmodSync(other.sessions, 0o755);
            expect(readersAsNobody(backendName, [other.configDir, reg.configDir]).hasLiveInteractive).toMatchObject({ error: { typed: true } });
          } finally {
            other.remove();
          }

          for (const args of [[], ['--verbose'], ['--json']]) {
            const r = cliAsNobody(cli, ['has-interactive', ...args, '--config-dir', reg.configDir]);
            expect({ status: r.status, stdout: r.stdout }, args.join(' ')).toEqual({ status: 3, stdout: '' });
            expect(r.stderr).toMatch(ONE_LINE);
            expect(r.stderr).toContain(`${reg.sessions} (EACCES)`);
          }
          // The other readers say it plainly too (a runtime error: exit 1, one line, nothing on stdout).
          for (const command of ['list', 'count', 'summary']) {
            const r = cliAsNobody(cli, [command, '--config-dir', reg.configDir]);
            expect({ status: r.status, stdout: r.stdout }, command).toEqual({ status: 1, stdout: '' });
            expect(r.stderr).toBe(`claude-ps: cannot list ${reg.sessions} (EACCES): the sessions it holds are unknown\n`);
          }
          // watch cannot give a first view either: it throws at once and leaves no OS watch holding it open.
          const watching = cliAsNobody(cli, ['watch', '--interval', '1000', '--config-dir', reg.configDir]);
          expect({ status: watching.status, stdout: watching.stdout }).toEqual({ status: 1, stdout: '' });
          expect(watching.stderr).toMatch(/^claude-ps: cannot list [^\n]+ \(EACCES\): the sessions it holds are unknown\n$/);
          const doctor = JSON.parse(cliAsNobody(cli, ['doctor', '--json', '--config-dir', reg.configDir]).stdout);
          expect(doctor.folders).toMatchObject([{ exists: true, error: 'EACCES' }]);
        } finally {
          reg.remove();
        }
      });
    }

    it('a config dir nobody may not enter: cannot tell; a folder listable but not searchable: each live file counts', () => {
      const reg = humanRegistry(backendName);
      try {
        chmodSync(reg.configDir, 0o700); // root's: nobody cannot reach sessions/
        const r = cliAsNobody(cli, ['has-interactive', '--config-dir', reg.configDir]);
        expect(r.status).toBe(3);
        expect(r.stderr).toMatch(ONE_LINE);

        // r-- without x: the names can be listed, no file can be opened; a live PID's file may be a human.
        chmodSync(reg.configDir, 0o755);
        chmodSync(reg.sessions, 0o444);
        const answers = readersAsNobody(backendName, [reg.configDir]);
        expect(answers.scanRegistry).toEqual({ value: { records: [], skipped: [{ pid: live.pid, reason: 'unreadable' }] } });
        expect(answers.hasLiveInteractive).toEqual({ value: true });
        expect(cliAsNobody(cli, ['has-interactive', '--config-dir', reg.configDir]).status).toBe(0);
      } finally {
        reg.remove();
      }
    });
  });

  describe('as any user', () => {
    it('a sessions "folder" that is a file, or a config dir that is a file: ENOTDIR, cannot tell', async () => {
      const reg = makeRegistry('cps-guard-file-');
      try {
        rmSync(reg.sessions, { recursive: true });
        writeFileSync(reg.sessions, JSON.stringify(sessionRecord(live.pid)));
        expect(() => hasLiveInteractive(reg.configDir, FAST)).toThrow(RegistryUnreadableError);
        await expect(hasLiveInteractiveAsync(reg.configDir, FAST)).rejects.toMatchObject({ code: REGISTRY_UNREADABLE, reason: 'ENOTDIR' });

        const fileDir = join(reg.configDir, 'profile');
        writeFileSync(fileDir, 'x');
        expect(() => readRecords(fileDir, FAST)).toThrow(expect.objectContaining({ reason: 'ENOTDIR', path: join(fileDir, 'sessions') }));
        const r = runCli(cli, ['has-interactive', '--config-dir', fileDir]);
        expect(r).toMatchObject({ status: 3, stdout: '' });
        expect(r.stderr).toMatch(ONE_LINE);
      } finally {
        reg.remove();
      }
    });

    it('a symlinked sessions/ is read through; a loop or a link to nothing is ELOOP / ENOENT, cannot tell', async () => {
      const reg = humanRegistry(backendName);
      const linked = makeRegistry('cps-guard-link-');
      try {
        rmSync(linked.sessions, { recursive: true });
        symlinkSync(reg.sessions, linked.sessions);
        expect(liveRecords(linked.configDir, FAST).map((r) => r.pid)).toEqual([live.pid]);
        expect(runCli(cli, ['has-interactive', '--config-dir', linked.configDir]).status).toBe(0);

        const loop = join(linked.configDir, 'loop');
        mkdirSync(loop);
        symlinkSync(join(loop, 'sessions'), join(loop, 'sessions'));
        expect(() => scanRegistry(loop, FAST)).toThrow(expect.objectContaining({ code: REGISTRY_UNREADABLE, reason: 'ELOOP' }));
        expect(runCli(cli, ['has-interactive', '--config-dir', loop]).status).toBe(3);

        const dangling = join(linked.configDir, 'dangling');
        mkdirSync(dangling);
        symlinkSync(join(linked.configDir, 'unmounted', 'sessions'), join(dangling, 'sessions'));
        await expect(readRecordsAsync(dangling, FAST)).rejects.toMatchObject({ reason: 'ENOENT', message: expect.stringContaining('a symbolic link to nothing') });
        expect(runCli(cli, ['has-interactive', '--config-dir', dangling]).status).toBe(3);
        // doctor judges the folder as the readers do, and still reports.
        const doctor = runCli(cli, ['doctor', '--json', '--config-dir', dangling, '--config-dir', loop]);
        expect(doctor.status).toBe(0);
        expect(JSON.parse(doctor.stdout).folders.map((f: { error: string }) => f.error)).toEqual(['ENOENT', 'ELOOP']);
      } finally {
        linked.remove();
        reg.remove();
      }
    });

    it('a missing folder is still an empty registry: a real no (exit 1)', async () => {
      const reg = makeRegistry('cps-guard-missing-');
      try {
        const none = join(reg.configDir, 'never-used');
        expect(scanRegistry(none, FAST)).toEqual({ records: [], skipped: [] });
        expect(await hasLiveInteractiveAsync(none, FAST)).toBe(false);
        expect(runCli(cli, ['has-interactive', '--config-dir', none])).toMatchObject({ status: 1, stdout: '', stderr: '' });
      } finally {
        reg.remove();
      }
    });
  });
});
