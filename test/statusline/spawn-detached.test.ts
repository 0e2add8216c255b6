/**
 * The autostarted watcher is started without node:child_process (lib/cli/statusline/spawn-detached.ts):
 * both ways (Node's process_wrap binding, and the public module it falls back to) start a real
 * process in a session of its own, with exactly the environment, folder and stderr given; and a
 * first render of the built CLI, which starts a watcher, loads neither node:child_process nor
 * node:crypto (process.moduleLoadList, read at its exit).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnDetached } from '../../lib/cli/statusline/spawn-detached.js';
import { builtCli, cliEnv, removeCopy } from '../cli/run-cli.js';
import { procStartTicks, procState, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../helpers/registry-fixture.js';
import { cleanupsAfterEach, textOf, until } from './helpers.js';

const cleanups = cleanupsAfterEach();

describe('spawnDetached', () => {
  for (const via of ['binding', 'module'] as const) {
    it(`(${via}) starts the process in its own session with the given environment, folder and stderr`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cps-detached-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const log = openSync(join(dir, 'err'), 'a');
      const script = 'read -r line; echo "pid=$$ sid=$(cut -d" " -f6 /proc/$$/stat) cwd=$(pwd) foo=$FOO bar=${BAR-unset} stdin=$line." >&2';
      const pid = spawnDetached('/bin/sh', ['-c', script], { cwd: '/', env: { FOO: 'a b', PATH: process.env.PATH }, stderr: log }, via);
      closeSync(log);
      expect(pid).toBeGreaterThan(1);
      await until(() => textOf(join(dir, 'err')).endsWith('.\n'), 'the child to write');
      expect(textOf(join(dir, 'err'))).toBe(`pid=${pid} sid=${pid} cwd=/ foo=a b bar=unset stdin=.\n`);
    });
  }

  it('says undefined for a program that cannot start, and throws nothing', () => {
    expect(spawnDetached('/nonexistent/program', [], { cwd: '/', env: {}, stderr: 'ignore' }, 'binding')).toBeUndefined();
  });
});

describe('a first render', () => {
  let cli: string;
  let me: Spawned;
  beforeAll(async () => {
    cli = await builtCli();
    me = spawnSleep();
  });
  afterAll(async () => {
    await me?.end();
    if (cli) removeCopy(cli);
  });

  it('starts the watcher without loading node:child_process or node:crypto', async () => {
    const reg = makeRegistry('cps-detached-reg-');
    const runtime = mkdtempSync(join(tmpdir(), 'cps-detached-run-'));
    const hook = join(runtime, 'loaded.cjs');
    writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(join(runtime, 'loaded'))}, process.moduleLoadList.join('\\n')));\n`);
    const lines = join(runtime, 'claude-ps');
    cleanups.push(async () => {
      const info = textOf(join(lines, '.watcher'));
      if (info) {
        const { pid } = JSON.parse(info) as { pid: number };
        process.kill(pid, 'SIGTERM'); // the watcher our render started
        await until(() => procState(pid) === undefined || procState(pid) === 'Z', 'the watcher to end');
      }
      reg.remove();
      rmSync(runtime, { recursive: true, force: true });
    });
    reg.write(me.pid, sessionRecord(me.pid, { procStart: procStartTicks(me.pid), status: 'idle' }));
    const env = cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, XDG_RUNTIME_DIR: runtime, CLAUDE_PID: String(me.pid), CLAUDE_PS_NO_AUTOSTART: '' });
    const r = spawnSync(process.execPath, ['-r', hook, cli, 'statusline'], { encoding: 'utf8', env, input: '', timeout: 20_000 });
    expect(r.status).toBe(0);
    await until(() => textOf(join(lines, '.watcher')).includes('"pid"'), 'the watcher it started');
    const loaded = readFileSync(join(runtime, 'loaded'), 'utf8').split('\n');
    expect(loaded.filter((m) => /^NativeModule (child_process|crypto|net)$/.test(m))).toEqual([]);
  });
});
