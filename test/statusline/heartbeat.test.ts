/**
 * The watcher's heartbeat (lib/cli/statusline/heartbeat.ts), with the built CLI and real processes:
 * `DIR/.beat` is dated ahead and moved on every second while `watch --statusline-dir` runs, goes
 * with the line files however the watcher ends (a clean stop, kill -9 through the guardian), and a
 * folder holding what the snippet and an earlier watcher leave (`.now`, a stale `.beat`) is taken
 * again. The snippet's side (falling back within ~2 s of a SIGSTOP) is in autostart-faults.test.ts.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snippetCommand } from '../../lib/cli/statusline/snippet.js';
import { builtCli, removeCopy, startCli } from '../cli/run-cli.js';
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { cleanupsAfterEach, textOf, until } from './helpers.js';

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

function setup(): { reg: RegistryFixture; runtime: string; dir: string } {
  const reg = makeRegistry('cps-beat-reg-');
  // This session idles; the other is busy: this session's line is `1 busy`.
  reg.write(me.pid, sessionRecord(me.pid, { procStart: procStartTicks(me.pid), status: 'idle' }));
  reg.write(other.pid, sessionRecord(other.pid, { procStart: procStartTicks(other.pid), status: 'busy' }));
  const runtime = mkdtempSync(join(tmpdir(), 'cps-beat-'));
  cleanups.push(() => {
    reg.remove();
    rmSync(runtime, { recursive: true, force: true });
  });
  return { reg, runtime, dir: join(runtime, 'claude-ps') };
}

function watch(reg: RegistryFixture, dir: string): ChildProcess {
  const child = startCli(cli, ['watch', '--interval', '100', '--config-dir', reg.configDir, '--statusline-dir', dir]);
  child.stdout!.resume();
  child.stderr!.resume();
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });
  return child;
}

const beatMs = (dir: string) => statSync(join(dir, '.beat')).mtimeMs;

/** The settings snippet in this runtime folder, `echo` standing in for the slow path. */
const snippet = (reg: RegistryFixture, runtime: string, shell: string[] = ['/bin/sh']) =>
  spawnSync(shell[0]!, [...shell.slice(1), '-c', snippetCommand('echo')], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_RUNTIME_DIR: runtime, CLAUDE_CONFIG_DIR: reg.configDir, CLAUDE_PID: String(me.pid) },
  }).stdout;

describe('the watcher\'s heartbeat', () => {
  it('dates DIR/.beat ahead and moves it on every second; the snippet renders the line file meanwhile; a clean stop removes it', async () => {
    const { reg, runtime, dir } = setup();
    const w = watch(reg, dir);
    await until(() => textOf(join(dir, String(me.pid))) === '1 busy\n', 'the line file');
    const first = beatMs(dir);
    expect(first).toBeGreaterThan(Date.now() + 500); // ahead of now (by 2 s, less a loaded machine's delay)
    await until(() => beatMs(dir) > first, 'the next beat', 5000);
    expect(snippet(reg, runtime)).toBe('1 busy\n');
    // bash in POSIX mode stands for macOS's /bin/sh (bash 3.2): `-O`, and `true >file` failing softly.
    if (spawnSync('bash', ['--version']).status === 0) expect(snippet(reg, runtime, ['bash', '--posix'])).toBe('1 busy\n');
    expect(existsSync(join(dir, '.now'))).toBe(true); // the snippet's own "now"
    w.kill('SIGTERM');
    await new Promise((r) => w.once('exit', r));
    expect(existsSync(join(dir, '.beat'))).toBe(false);
    expect(snippet(reg, runtime)).toBe('statusline\n');
  });

  it('kill -9: the guardian removes .beat with the line files', async () => {
    const { reg, dir } = setup();
    const w = watch(reg, dir);
    await until(() => textOf(join(dir, String(me.pid))) === '1 busy\n' && existsSync(join(dir, '.beat')), 'the line file and the beat');
    w.kill('SIGKILL');
    await until(() => !existsSync(join(dir, '.beat')) && !existsSync(join(dir, String(me.pid))), 'the guardian\'s cleanup');
  });

  it('a folder holding the snippet\'s .now and an earlier watcher\'s stale .beat is taken again, and the stale beat replaced', async () => {
    const { reg, runtime, dir } = setup();
    const first = watch(reg, dir);
    await until(() => existsSync(join(dir, String(me.pid))), 'the first watcher\'s line file');
    first.kill('SIGTERM');
    await new Promise((r) => first.once('exit', r));
    // What a watcher that died with its guardian (a reboot) leaves: a beat dated far ahead, and the snippet's .now.
    writeFileSync(join(dir, '.beat'), '');
    writeFileSync(join(dir, '.now'), '');
    const ahead = new Date(Date.now() + 3_600_000);
    utimesSync(join(dir, '.beat'), ahead, ahead);
    const second = watch(reg, dir);
    await until(() => textOf(join(dir, String(me.pid))) === '1 busy\n', 'the second watcher\'s line file');
    expect(beatMs(dir)).toBeLessThan(Date.now() + 60_000);
    expect(snippet(reg, runtime)).toBe('1 busy\n');
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  });
});
