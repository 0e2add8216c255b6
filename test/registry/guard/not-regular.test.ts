/**
 * Sockets, devices and other files that are not regular are `not-regular` under every backend: a
 * socket cannot be opened at all (ENXIO) and a device may refuse (EACCES), so the reader asks the file
 * type after a failed open. Such a file is nothing Claude Code writes: the guard does not count it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { hasLiveInteractive, hasLiveInteractiveAsync, scanRegistry, scanRegistryAsync } from '../../../lib/index.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, hasSetpriv, isRoot, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { builtCli, cliEnv, removeCopy, runCli } from '../../cli/run-cli.js';
import { readersAsNobody } from './as-nobody.js';

const FAST = { retryDelayMs: 0 };
let cli: string;
let live: Spawned;
let other: Spawned;
let third: Spawned;

beforeAll(async () => {
  cli = await builtCli();
  live = spawnSleep();
  other = spawnSleep();
  third = spawnSleep();
});
afterAll(async () => {
  await live?.end();
  await other?.end();
  await third?.end();
  await endAll();
  if (cli) removeCopy(cli);
});

/** A listening Unix socket at `path` (as a program's messaging socket would be). */
async function listenAt(path: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return server;
}

describe.each(BACKENDS)('non-regular candidates (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let reg: RegistryFixture;
  let servers: Server[];

  beforeEach(() => {
    reg = makeRegistry('cps-guard-nonreg-');
    servers = [];
  });
  afterEach(async () => {
    for (const s of servers) await new Promise((resolve) => s.close(resolve));
    reg.remove();
  });

  it('a socket named after a live PID is not-regular, and the guard says no when nothing else is there', async () => {
    servers.push(await listenAt(reg.path(`${live.pid}.json`)));
    const expected = { records: [], skipped: [{ path: reg.path(`${live.pid}.json`), pid: live.pid, reason: 'not-regular' }] };
    expect(scanRegistry(reg.configDir, FAST)).toEqual(expected);
    expect(await scanRegistryAsync(reg.configDir, FAST)).toEqual(expected);
    expect(hasLiveInteractive(reg.configDir, FAST)).toBe(false);
    expect(await hasLiveInteractiveAsync(reg.configDir, FAST)).toBe(false);
    const r = runCli(cli, ['has-interactive', '--verbose', '--config-dir', reg.configDir], {
      env: cliEnv({ CLAUDE_PS_BACKEND: backendName }),
    });
    expect(r).toMatchObject({ status: 1, stdout: 'no: no live interactive session\n' });

    // Beside it, a half-written file of another live PID still counts: only the socket is discounted.
    reg.write(other.pid, `{"pid": ${other.pid}, "sessionId": "`);
    expect(scanRegistry(reg.configDir, FAST).skipped.map((s) => s.reason)).toEqual(
      live.pid < other.pid ? ['not-regular', 'unparseable'] : ['unparseable', 'not-regular'],
    );
    expect(hasLiveInteractive(reg.configDir, FAST)).toBe(true);
  });

  it.skipIf(!isRoot)('a character device is not-regular (skipped unless root: mknod)', () => {
    const made = spawnSync('mknod', ['-m', '0666', reg.path(`${live.pid}.json`), 'c', '1', '3']); // like /dev/null
    expect(made.status, made.stderr?.toString()).toBe(0);
    expect(scanRegistry(reg.configDir, FAST).skipped.map((s) => s.reason)).toEqual(['not-regular']);
    expect(hasLiveInteractive(reg.configDir, FAST)).toBe(false);
  });

  it.skipIf(!isRoot || !hasSetpriv)(
    'as nobody: a socket it may not open is not-regular, a regular file it may not open is unreadable (skipped unless root with setpriv)',
    async () => {
      chmodSync(reg.configDir, 0o755);
      chmodSync(reg.sessions, 0o755);
      servers.push(await listenAt(reg.path(`${live.pid}.json`)));
      chmodSync(reg.path(`${live.pid}.json`), 0o000); // open fails with EACCES before ENXIO
      const device = spawnSync('mknod', ['-m', '0000', reg.path(`${third.pid}.json`), 'c', '1', '3']);
      expect(device.status).toBe(0); // a device nobody may open: EACCES too
      writeFileSync(reg.path(`${other.pid}.json`), JSON.stringify(sessionRecord(other.pid)));
      chmodSync(reg.path(`${other.pid}.json`), 0o600); // root's
      const answers = readersAsNobody(backendName, [reg.configDir]);
      const reasons = Object.fromEntries(
        (answers.scanRegistry as { value: { skipped: { pid: number; reason: string }[] } }).value.skipped.map((s) => [s.pid, s.reason]),
      );
      expect(reasons).toEqual({ [live.pid]: 'not-regular', [third.pid]: 'not-regular', [other.pid]: 'unreadable' });
      expect(answers.hasLiveInteractive).toEqual({ value: true }); // the unreadable regular file of a live PID
    },
  );
});
