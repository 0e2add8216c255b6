/**
 * `notify --host` against a real sshd (test/hosts/sshd.ts) with a stub notify-send: a remote session
 * that starts waiting is announced once, with its host; one already waiting at the first answer is
 * not; a server that goes away is reported, and its sessions are not announced as ended.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, runCli, startCli } from '../cli/run-cli.js';
import { until } from '../helpers/processes.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from '../hosts/sshd.js';
import { stubNotifySend } from './stub.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

describe.skipIf(missing !== undefined)('notify --host', () => {
  let lab: Lab;
  let remote: TestHost;
  let cli: string;
  beforeAll(async () => {
    cli = await builtCli();
    lab = await makeLab();
    remote = await lab.start('host-n');
  });
  afterAll(async () => {
    await lab?.close();
    if (cli) removeCopy(cli);
  });

  it('announces a remote session that starts waiting, with its host; nothing for the first answer', { timeout: 90_000 }, async () => {
    const stub = stubNotifySend();
    const early = startRemoteSession(remote, { status: 'waiting', name: 'early-remote' });
    const later = startRemoteSession(remote, { status: 'busy', name: 'later-remote' });
    const env = cliEnv({ ...lab.env, PATH: `${stub.bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent', CLAUDE_CONFIG_DIR: join(lab.dir, 'none') });
    const child = startCli(cli, ['notify', '--host', 'host-n', '--json', '--interval', '300', '--rate-limit', '100', '--host-timeout', '5', '--on', 'waiting,died'], { env });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await until(() => stderr.includes('notifying via notify-send'), 'notify to start', 15_000);
      expect(stderr).toContain('1 other host');
      await new Promise((r) => setTimeout(r, 1500)); // the first answer, and a second read
      expect(stub.calls()).toEqual([]);
      const file = join(remote.sessionsDir, `${later}.json`);
      const doc = JSON.parse(remote.run(`cat ${file}`));
      writeFileSync(file, JSON.stringify({ ...doc, status: 'waiting', waitingFor: 'remote prompt' }));
      await until(() => stub.calls().length === 1, 'one notification', 15_000);
      expect(stub.calls()[0]![2]).toBe('Claude Code: later-remote needs you (on host-n)');
      expect(stub.calls()[0]![3]).toContain('remote prompt');
      // The server goes away: reported, and no `died` for the sessions it had.
      await remote.stop();
      await until(() => /host-n: (unreachable|timeout)/.test(stderr), 'the lost host reported', 30_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(stub.calls()).toHaveLength(1);
      expect(early).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      stub.remove();
    }
  });

  it('refuses the outputs of this machine watcher with --host', () => {
    const r = runCli(cli, ['notify', '--host', 'host-n', '--statusline-dir', '/tmp/x'], { env: cliEnv(lab.env) });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--statusline-dir does not apply with --host');
  });
});
