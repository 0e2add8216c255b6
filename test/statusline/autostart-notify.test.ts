/**
 * `statusline --notify` (docs/statusline.md, "One process for the line and the notifications"): the
 * watcher a render starts is `claude-ps notify --statusline-dir …`, which keeps the line files and
 * notifies through notify's own rules (a stub notify-send on PATH records each call); it announces
 * the session whose render started it too; `doctor` says whether the watcher notifies; with no
 * desktop notifier the render starts the plain watcher and says so.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOurStatusLine, statusLineSetting } from '../../lib/cli/statusline/snippet.js';
import { builtCli, cliEnv, removeCopy } from '../cli/run-cli.js';
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { stubNotifySend, type Stub } from '../notify/stub.js';
import { cleanupsAfterEach, lineDirKeepers, running, textOf, until } from './helpers.js';

let cli: string;
let me: Spawned;
let other: Spawned;
const cleanups = cleanupsAfterEach();

beforeAll(async () => {
  cli = await builtCli();
  [me, other] = [spawnSleep(), spawnSleep()];
});
afterAll(async () => {
  for (const s of [me, other]) await s?.end();
  if (cli) removeCopy(cli);
});


/** Processes of ours keeping `dir` (`… --statusline-dir dir …`), with their argv. */
function keepers(dir: string): { pid: number; argv: string[] }[] {
  return lineDirKeepers()
    .filter((k) => k.dir === dir)
    .map(({ pid, argv }) => ({ pid, argv }));
}

function setup(desktop: boolean): { reg: RegistryFixture; lines: string; env: NodeJS.ProcessEnv; stub: Stub } {
  const reg = makeRegistry('cps-autonotify-reg-');
  const runtime = mkdtempSync(join(tmpdir(), 'cps-autonotify-run-'));
  const lines = join(runtime, 'claude-ps');
  const stub = stubNotifySend();
  for (const [s, status] of [[me, 'idle'], [other, 'busy']] as const) {
    reg.write(s.pid, sessionRecord(s.pid, { procStart: procStartTicks(s.pid), status, name: s === me ? 'mine' : 'theirs' }));
  }
  const env = cliEnv({
    CLAUDE_CONFIG_DIR: reg.configDir,
    XDG_RUNTIME_DIR: runtime,
    CLAUDE_PID: String(me.pid),
    CLAUDE_PS_NO_AUTOSTART: '',
    PATH: `${stub.bin}:${process.env.PATH}`,
    DBUS_SESSION_BUS_ADDRESS: desktop ? 'unix:path=/nonexistent' : '',
    DISPLAY: '',
    WAYLAND_DISPLAY: '',
  });
  cleanups.push(async () => {
    // The watchers these renders started (through our own CLI): ended by PID.
    for (const { pid } of keepers(lines)) process.kill(pid, 'SIGTERM');
    await until(() => keepers(lines).length === 0, 'the watchers to end');
    stub.remove();
    reg.remove();
    rmSync(runtime, { recursive: true, force: true });
  });
  return { reg, lines, env, stub };
}

const render = (env: NodeJS.ProcessEnv, args: string[] = []) =>
  spawnSync(process.execPath, [cli, 'statusline', ...args], { encoding: 'utf8', env, input: '', timeout: 20_000 });

describe('statusline --notify: one process for the line and the notifications', () => {
  it('starts `notify --statusline-dir`, which keeps the line and announces a session that starts waiting, the starting one included', async () => {
    const { reg, lines, env, stub } = setup(true);
    expect(render(env, ['--notify']).stdout).toBe('1 busy\n');
    await until(() => textOf(join(lines, String(me.pid))) === '1 busy\n', 'the line file');
    const [watcher] = keepers(lines);
    expect(watcher!.argv).toEqual(expect.arrayContaining(['notify', '--via', 'notify-send', '--until-logout', '--idle-exit']));
    // Nothing for the state at start.
    await new Promise((r) => setTimeout(r, 800));
    expect(stub.calls()).toEqual([]);
    reg.write(other.pid, sessionRecord(other.pid, { procStart: procStartTicks(other.pid), status: 'waiting', waitingFor: 'permission prompt', name: 'theirs' }));
    await until(() => stub.calls().length === 1, 'one notification');
    expect(stub.calls()[0]).toContain('Claude Code: theirs needs you');
    await until(() => textOf(join(lines, String(me.pid))) === '⏳ theirs (permission prompt)\n', 'the line to follow');
    // The session whose render started the watcher is not the watcher's "own": it is announced too.
    reg.write(me.pid, sessionRecord(me.pid, { procStart: procStartTicks(me.pid), status: 'waiting', waitingFor: 'a question', name: 'mine' }));
    await until(() => stub.calls().some((c) => c.includes('Claude Code: mine needs you')), 'the starting session announced', 25_000);
    const doctor = spawnSync(process.execPath, [cli, 'doctor', '--json'], { encoding: 'utf8', env, timeout: 20_000 });
    const status = (JSON.parse(doctor.stdout) as { statuslineWatcher: { watcher: { pid: number; notifies: boolean } } }).statuslineWatcher;
    expect(status.watcher).toMatchObject({ pid: watcher!.pid, notifies: true });
    const text = spawnSync(process.execPath, [cli, 'doctor'], { encoding: 'utf8', env, timeout: 20_000 }).stdout;
    expect(text).toMatch(/watcher +running, pid \d+ .*; notifies;/);
  });

  it('with no desktop notifier starts the plain watcher, says so once on stderr, and doctor says it does not notify', async () => {
    const { lines, env, stub } = setup(false);
    const r = render(env, ['--notify']);
    expect(r.stdout).toBe('1 busy\n');
    expect(r.stderr).toContain('--notify: no desktop notifier here');
    await until(() => keepers(lines).length === 1 && textOf(join(lines, '.watcher')).includes('"pid"'), 'the watcher');
    expect(keepers(lines)[0]!.argv).toContain('watch');
    const text = spawnSync(process.execPath, [cli, 'doctor'], { encoding: 'utf8', env, timeout: 20_000 }).stdout;
    expect(text).toMatch(/; does not notify;/);
    expect(stub.calls()).toEqual([]);
  });

  it('the snippet with --notify is still ours to replace and remove', () => {
    const plain = statusLineSetting('/usr/bin/node /x/cli.cjs');
    const notifying = statusLineSetting('/usr/bin/node /x/cli.cjs', { notify: true });
    expect(notifying.command).toBe(`${plain.command} --notify`);
    expect(isOurStatusLine(plain)).toBe(true);
    expect(isOurStatusLine(notifying)).toBe(true);
    expect(isOurStatusLine({ ...notifying, command: `${notifying.command} --x` })).toBe(false);
  });
});
