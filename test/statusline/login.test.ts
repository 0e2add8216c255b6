/**
 * A watcher never outlives the login it started in, where systemd-logind or launchd can tell
 * (docs/statusline.md, "When the watcher ends"): the decisions on logind's and launchd's answers,
 * logind's file read as untrusted, and real `watch --until-logout` processes over a fake logind root
 * (CLAUDE_PS_LOGIN_ROOT) whose user file the test rewrites.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchdAnswer, logindAnswer, logindUsersDir, readLogind } from '../../lib/cli/statusline/login.js';
import { builtCli, cliEnv, removeCopy } from '../cli/run-cli.js';
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../helpers/registry-fixture.js';
import { cleanupsAfterEach, until } from './helpers.js';

const uid = process.getuid!();
const cleanups = cleanupsAfterEach();

describe("the login's answers", () => {
  it('logind: active, online and opening are a login; offline, lingering, closing and no file are none; anything else cannot tell', () => {
    for (const s of ['active', 'online', 'opening']) expect(logindAnswer(`NAME=u\nSTATE=${s}\nRUNTIME=/run/user/1\n`).login).toBe('in');
    for (const s of ['offline', 'lingering', 'closing']) expect(logindAnswer(`STATE=${s}\n`).login).toBe('out');
    expect(logindAnswer(undefined).login).toBe('out');
    expect(logindAnswer('STATE=sleeping\n').login).toBe('unknown');
    expect(logindAnswer('NAME=u\n').login).toBe('unknown');
    expect(logindAnswer('XSTATE=closing\n').login).toBe('unknown');
  });

  it('launchd: exit 0 is a login, "could not find domain" none, any other failure cannot tell', () => {
    expect(launchdAnswer(0, '').login).toBe('in');
    expect(launchdAnswer(113, 'Bad request.\nCould not find domain for user gui: 501\n').login).toBe('out');
    expect(launchdAnswer(1, 'Operation not permitted\n').login).toBe('unknown');
    expect(launchdAnswer(null, '').login).toBe('unknown'); // killed by the timeout
  });

  it("reads logind's file without following a link or blocking on a FIFO, and tells a missing file from a missing logind", () => {
    const root = mkdtempSync(join(tmpdir(), 'cps-login-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const users = logindUsersDir({ CLAUDE_PS_LOGIN_ROOT: root });
    expect(users).toBe(join(root, 'run/systemd/users'));
    expect(readLogind(users, uid).login).toBe('unknown'); // no logind at all
    mkdirSync(users, { recursive: true });
    expect(readLogind(users, uid).login).toBe('out'); // logind, and no record of this user
    writeFileSync(join(root, 'elsewhere'), 'STATE=active\n');
    symlinkSync(join(root, 'elsewhere'), join(users, String(uid)));
    expect(readLogind(users, uid).login).toBe('unknown');
    rmSync(join(users, String(uid)));
    spawnSync('mkfifo', [join(users, String(uid))]);
    expect(readLogind(users, uid).login).toBe('unknown');
    rmSync(join(users, String(uid)));
    writeFileSync(join(users, String(uid)), `STATE=active\n${'X'.repeat(100_000)}`);
    expect(readLogind(users, uid).login).toBe('in');
    expect(logindUsersDir({ CLAUDE_PS_LOGIN_ROOT: 'relative' })).toBe('/run/systemd/users');
  });
});

describe('watch --until-logout over a fake logind', () => {
  let cli: string;
  let session: Spawned;
  beforeAll(async () => {
    cli = await builtCli();
    session = spawnSleep();
  });
  afterAll(async () => {
    await session?.end();
    if (cli) removeCopy(cli);
  });

  function start(state: string | undefined) {
    const root = mkdtempSync(join(tmpdir(), 'cps-login-root-'));
    const users = join(root, 'run/systemd/users');
    mkdirSync(users, { recursive: true });
    const setState = (s: string) => {
      writeFileSync(join(users, `.${uid}.tmp`), `NAME=someone\nSTATE=${s}\n`);
      renameSync(join(users, `.${uid}.tmp`), join(users, String(uid))); // as logind replaces it
    };
    if (state !== undefined) setState(state);
    const reg = makeRegistry('cps-login-reg-');
    reg.write(session.pid, sessionRecord(session.pid, { procStart: procStartTicks(session.pid), status: 'busy' }));
    const lines = join(root, 'lines');
    const env = cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, CLAUDE_PS_LOGIN_ROOT: root, CLAUDE_PS_LOGIN_CHECK_MS: '100' });
    const child: ChildProcess = spawn(process.execPath, [cli, 'watch', '--statusline-dir', lines, '--until-logout'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    let done = false;
    void exited.then(() => (done = true));
    cleanups.push(async () => {
      if (!done) child.kill('SIGTERM'); // our own watcher, by its handle
      await exited;
      reg.remove();
      rmSync(root, { recursive: true, force: true });
    });
    return { users, lines, setState, stderr: () => stderr, exited, done: () => done };
  }

  it('ends, removing its line files, once logind says the login it started in is closing', async () => {
    const w = start('active');
    await until(() => existsSync(join(w.lines, String(session.pid))) && w.stderr().includes('ends with the login'), 'the watcher to serve');
    w.setState('online');
    await new Promise((r) => setTimeout(r, 600));
    expect(w.done()).toBe(false); // still logged in, just not in the foreground
    w.setState('closing');
    expect(await w.exited).toBe(0);
    expect(w.stderr()).toContain("ending: the user's login ended (logind: STATE=closing)");
    expect(existsSync(join(w.lines, String(session.pid)))).toBe(false);
  });

  it('ends when logind drops the user (offline: no file left)', async () => {
    const w = start('active');
    await until(() => w.stderr().includes('ends with the login'), 'the watcher to tie itself');
    rmSync(join(w.users, String(uid)));
    expect(await w.exited).toBe(0);
    expect(w.stderr()).toContain('offline');
  });

  it('never ends on what it cannot tell: a garbled file, a FIFO, logind itself gone', async () => {
    const w = start('active');
    await until(() => w.stderr().includes('ends with the login'), 'the watcher to tie itself');
    w.setState('unheard-of');
    await new Promise((r) => setTimeout(r, 500));
    // Each change lands at once, as a rename: a moment with the folder there and no file in it would
    // be logind saying "offline", which ends the watcher rightly (the test above).
    spawnSync('mkfifo', [join(w.users, `.${uid}.fifo`)]);
    renameSync(join(w.users, `.${uid}.fifo`), join(w.users, String(uid)));
    await new Promise((r) => setTimeout(r, 500));
    const root = join(w.users, '..', '..', '..');
    renameSync(root, `${root}-gone`);
    cleanups.push(() => rmSync(`${root}-gone`, { recursive: true, force: true }));
    await new Promise((r) => setTimeout(r, 500));
    expect(w.done()).toBe(false);
  });

  it('started with no login (lingering, or no logind record) it is not tied, and a later closing does not end it', async () => {
    for (const state of ['lingering', undefined]) {
      const w = start(state);
      await until(() => w.stderr().includes('not tied to a login'), 'the watcher to say it is not tied');
      w.setState('closing');
      await new Promise((r) => setTimeout(r, 500));
      expect(w.done()).toBe(false);
    }
  });
});

describe('the macOS tie, with launchctl answers injected (nothing here runs launchd)', () => {
  it('asks gui/<uid>, ends after "could not find domain", never on another failure, and is not tied when the start finds no GUI login', async () => {
    const { tieToLogin } = await import('../../lib/cli/statusline/login.js');
    const answers: Array<[number | null, string]> = [[0, ''], [1, 'Operation not permitted'], [null, ''], [0, ''], [113, 'Could not find domain for user gui: 501']];
    const asked: number[] = [];
    let ended: string | undefined;
    const tie = tieToLogin(
      { env: {}, platform: 'darwin', checkMs: 2, launchctl: (u, done) => (asked.push(u), setImmediate(() => done(...(answers.shift() ?? [0, ''])))) },
      (why) => (ended = why),
    );
    cleanups.push(tie.stop);
    await until(() => ended !== undefined, 'the tie to end');
    expect(answers).toEqual([]); // every answer asked for, the failures kept it going
    expect(asked.every((u) => u === uid)).toBe(true);
    expect(ended).toBe("the user's login ended (launchd: no gui domain (logged out))");

    let endedToo = false;
    let calls = 0;
    const loose = tieToLogin({ env: {}, platform: 'darwin', checkMs: 2, launchctl: (_u, done) => (calls++, done(113, 'Could not find domain')) }, () => (endedToo = true));
    cleanups.push(loose.stop);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls).toBe(1); // asked once at the start, and not watched after
    expect(endedToo).toBe(false);
  });
});
