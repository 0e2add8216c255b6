/**
 * Other hosts on the statusline (docs/statusline.md, "Other hosts on the line"): what a host adds to
 * the line (its waiting sessions, or why it gave no answer, never "none waiting" on a guess), and, against
 * a real sshd on 127.0.0.1 (test/hosts/sshd.ts), `statusline --host` on the slow path, `watch --host
 * … --statusline-dir` keeping this machine's line files as the remote changes and goes away, and the
 * autostarted watcher started with the render's host list.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostPart, hostsText } from '../../lib/cli/statusline/hosts-line.js';
import type { SessionRecord } from '../../lib/registry/types.js';
import { builtCli, cliEnv, removeCopy } from '../cli/run-cli.js';
import { procStartTicks, procState, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from '../hosts/sshd.js';
import { cleanupsAfterEach, textOf, until } from './helpers.js';

const record = (pid: number, fields: Partial<SessionRecord>) => ({ pid, path: `/r/${pid}.json`, live: true, status: 'busy', ...fields }) as SessionRecord;

describe("a host's part of the line", () => {
  it('names the waiting sessions of a host that answered, leaves out one with none, and says why one gave no answer', () => {
    const waiting = [record(5, { status: 'waiting', name: 'web', waitingFor: 'permission prompt', statusUpdatedAt: 2 }), record(6, { status: 'waiting', name: 'db', statusUpdatedAt: 1 })];
    expect(hostsText([hostPart('box2', 'ok', waiting)])).toBe('box2: ⏳ db, ⏳ web (permission prompt)');
    expect(hostsText([hostPart('box2', 'ok', [record(7, {})])])).toBe('');
    expect(hostsText([hostPart('box2', 'pending', [])])).toBe('box2: ?');
    // Its last records stay in the watcher while it is away: they are not shown as current.
    expect(hostsText([hostPart('box2', 'unreachable', waiting)])).toBe('box2: unreachable');
    expect(hostsText([hostPart('box2', 'unreadable', waiting.slice(0, 1))])).toBe('box2: ⏳ web (permission prompt), unreadable');
    const many = [1, 2, 3, 4].map((pid) => record(pid, { status: 'waiting', name: `s${pid}` }));
    expect(hostsText([hostPart('a', 'ok', many), hostPart('b', 'timeout', [])])).toBe('a: ⏳ s1, ⏳ s2, +2 waiting · b: timeout');
    expect(hostsText([hostPart('evil\u001b[2J\u202ehost', 'ok', [record(1, { status: 'waiting', name: 'x\u0007' })])])).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(hostsText([hostPart('dead', 'ok', [record(1, { status: 'waiting', live: false })])])).toBe('');
  });
});

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

describe.skipIf(missing !== undefined)('other hosts on the line, over a real sshd', () => {
  let lab: Lab;
  let a: TestHost;
  let cli: string;
  let me: Spawned;
  let other: Spawned;
  let reg: RegistryFixture;
  let env: NodeJS.ProcessEnv;
  const cleanups = cleanupsAfterEach();

  beforeAll(async () => {
    cli = await builtCli();
    lab = await makeLab();
    a = await lab.start('host-l');
    [me, other] = [spawnSleep(), spawnSleep()];
    reg = makeRegistry('cps-hostline-reg-');
    reg.write(me.pid, sessionRecord(me.pid, { procStart: procStartTicks(me.pid), status: 'idle' }));
    reg.write(other.pid, sessionRecord(other.pid, { procStart: procStartTicks(other.pid), status: 'busy' }));
    env = cliEnv({ ...lab.env, CLAUDE_CONFIG_DIR: reg.configDir, CLAUDE_PID: String(me.pid), CLAUDE_PS_NO_AUTOSTART: '' });
  }, 120_000);

  afterAll(async () => {
    for (const s of [me, other]) await s?.end();
    reg?.remove();
    await lab?.close();
    if (cli) removeCopy(cli);
  });

  const statusline = (args: string[]) => spawnSync(process.execPath, [cli, 'statusline', ...args], { encoding: 'utf8', env, input: '', timeout: 30_000 });
  const remoteFile = (pid: number) => join(a.sessionsDir, `${pid}.json`);
  const setRemote = (pid: number, fields: Record<string, unknown>) => {
    const doc = JSON.parse(a.run(`cat ${remoteFile(pid)}`)) as Record<string, unknown>;
    writeFileSync(remoteFile(pid), JSON.stringify({ ...doc, ...fields }));
  };

  it('statusline --host: the slow path names the remote waiting session, and says a host it cannot reach', () => {
    const pid = startRemoteSession(a, { status: 'waiting', name: 'far', waitingFor: 'permission prompt' });
    cleanups.push(() => {
      a.run(`kill ${pid}; rm -f ${remoteFile(pid)}`);
    });
    const r = statusline(['--host', 'host-l', '--no-autostart']);
    expect(r.stdout).toBe('1 busy · host-l: ⏳ far (permission prompt)\n');
    const down = statusline(['--host', 'host-l', '--host', lab.downAlias, '--no-autostart', '--host-timeout', '5']);
    expect(down.stdout).toMatch(new RegExp(`^1 busy · host-l: ⏳ far \\(permission prompt\\) · ${lab.downAlias}: (unreachable|timeout)\\n$`));
    const json = JSON.parse(statusline(['--host', 'host-l', '--json']).stdout) as { hosts: { host: string; state: string; waiters: { label: string }[] }[] };
    expect(json.hosts).toEqual([{ host: 'host-l', state: 'ok', waiters: [expect.objectContaining({ label: 'far' })] }]);
    expect(statusline(['--format', '{hosts}', '--host', 'host-l']).stdout).toBe('host-l: ⏳ far (permission prompt)\n');
  });

  it('watch --host … --statusline-dir: the line files follow the remote, and say when it is gone', async () => {
    const dir = join(lab.dir, 'lines-watch');
    const child: ChildProcess = spawn(process.execPath, [cli, 'watch', '--host', 'host-l', '--statusline-dir', dir, '--interval', '300', '--host-timeout', '3'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise((r) => child.once('exit', r));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGTERM'); // ours, by its handle
      await exited;
    });
    const line = () => textOf(join(dir, String(me.pid)));
    await until(() => line() === '1 busy\n', `the first line with the host answered (stderr: ${stderr})`, 30_000);
    expect(JSON.parse(readFileSync(join(dir, '.watcher'), 'utf8'))).toMatchObject({ hosts: ['host-l'] });
    const pid = startRemoteSession(a, { status: 'busy', name: 'far' });
    setRemote(pid, { status: 'waiting', waitingFor: 'permission prompt' });
    await until(() => line() === '1 busy · host-l: ⏳ far (permission prompt)\n', 'the remote waiter on the line', 30_000);
    setRemote(pid, { status: 'busy', waitingFor: null });
    await until(() => line() === '1 busy\n', 'the remote waiter gone from the line', 30_000);
    setRemote(pid, { status: 'waiting', waitingFor: 'permission prompt' });
    await until(() => line().includes('host-l: ⏳ far'), 'the remote waiter back', 30_000);
    await a.stop();
    // Never its last answer as if current, never "none waiting": the line says the host is not read.
    await until(() => /^1 busy · host-l: (unreachable|timeout)\n$/.test(line()), `the host's state on the line (now ${JSON.stringify(line())})`, 60_000);
    rmSync(remoteFile(pid)); // its session ended with the server's namespace; its record goes too
    await a.restart();
    await until(() => line() === '1 busy\n', 'the host back, with no waiting session', 90_000);
    child.kill('SIGTERM');
    await exited;
    expect(readdirSync(dir).filter((n) => /^[0-9]+$/.test(n))).toEqual([]);
  }, 240_000);

  it('a render with --host starts the watcher with the same host list; doctor names them', async () => {
    const runtime = join(lab.dir, 'runtime-autostart');
    mkdirSync(runtime, { mode: 0o700 });
    const renv = { ...env, XDG_RUNTIME_DIR: runtime };
    const lines = join(runtime, 'claude-ps');
    const r = spawnSync(process.execPath, [cli, 'statusline', '--host', 'host-l'], { encoding: 'utf8', env: renv, input: '', timeout: 30_000 });
    expect(r.stdout).toBe('1 busy\n');
    await until(() => textOf(join(lines, '.watcher')).includes('"hosts"'), 'the watcher', 30_000);
    const info = JSON.parse(readFileSync(join(lines, '.watcher'), 'utf8')) as { pid: number; hosts: string[] };
    cleanups.push(async () => {
      process.kill(info.pid, 'SIGTERM'); // the watcher our own render started
      await until(() => procState(info.pid) === undefined || procState(info.pid) === 'Z', 'the watcher to end');
      rmSync(runtime, { recursive: true, force: true });
    });
    expect(info.hosts).toEqual(['host-l']);
    const argv = readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual(expect.arrayContaining(['watch', '--host', 'host-l', '--until-logout']));
    await until(() => textOf(join(lines, String(me.pid))) === '1 busy\n', 'its line file', 30_000);
    const doctor = spawnSync(process.execPath, [cli, 'doctor'], { encoding: 'utf8', env: renv, timeout: 30_000 }).stdout;
    expect(doctor).toMatch(/watcher +running, pid \d+ .*, with hosts host-l; does not notify;/);
  }, 120_000);
});
