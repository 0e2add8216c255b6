/**
 * Faults around the self-starting watcher (lib/cli/statusline/autostart.ts) and the settings
 * snippet's freshness rule (lib/cli/statusline/snippet.ts, heartbeat.ts), found by the hostile review
 * rev3, with the built CLI and real processes: a SIGSTOPped watcher while this session idles under
 * `refreshInterval` (and SIGCONT), a relative XDG_RUNTIME_DIR, a runtime folder another user owns.
 * Each failed on the code before its fix.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snippetCommand, shellWord } from '../../lib/cli/statusline/snippet.js';
import { builtCli, cliEnv, removeCopy } from '../cli/run-cli.js';
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { cleanupsAfterEach, lineDirKeepers, textOf, until } from './helpers.js';

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


/** Our processes whose command line is `… watch --statusline-dir <dir matching> …`. */
function watchers(match: (dir: string) => boolean): { pid: number; dir: string }[] {
  return lineDirKeepers()
    .filter((k) => k.argv.includes('watch') && k.argv.includes(cli) && match(k.dir))
    .map(({ pid, dir }) => ({ pid, dir }));
}

function registry(): RegistryFixture {
  const reg = makeRegistry('cps-rev3-auto-reg-');
  for (const [s, status] of [[me, 'idle'], [other, 'busy']] as const) {
    reg.write(s.pid, sessionRecord(s.pid, { procStart: procStartTicks(s.pid), status }));
  }
  return reg;
}

const render = (env: NodeJS.ProcessEnv, cwd?: string) =>
  spawnSync(process.execPath, [cli, 'statusline'], { encoding: 'utf8', env, input: '', timeout: 20_000, cwd });

/** The README's snippet, as Claude Code runs it (`/bin/sh -c`), in `cwd`. */
const snippet = (env: NodeJS.ProcessEnv, cwd?: string, fallback = `${shellWord(process.execPath)} ${shellWord(cli)}`) =>
  spawnSync('/bin/sh', ['-c', snippetCommand(fallback)], { encoding: 'utf8', env, input: '', timeout: 20_000, cwd });

describe('the autostarted watcher, faults', () => {
  it('a SIGSTOPped watcher: an idle session re-rendering every refreshInterval falls back within ~2 s and sees the other session change; SIGCONT resumes the fast path', async () => {
    const reg = registry();
    const runtime = mkdtempSync(join(tmpdir(), 'cps-rev3-auto-run-'));
    const lines = join(runtime, 'claude-ps');
    const env = cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, XDG_RUNTIME_DIR: runtime, CLAUDE_PID: String(me.pid), CLAUDE_PS_NO_AUTOSTART: '' });
    let stopped: number | undefined;
    cleanups.push(async () => {
      if (stopped !== undefined) process.kill(stopped, 'SIGCONT');
      for (const w of watchers((d) => d === lines)) process.kill(w.pid, 'SIGTERM');
      await until(() => watchers((d) => d === lines).length === 0, 'the watchers to end');
      reg.remove();
      rmSync(runtime, { recursive: true, force: true });
    });
    render(env);
    // The fast path: the line file, printed by the snippet itself (no Node start: `statusline` would say so on stderr).
    const fast = () => {
      const r = snippet({ ...env, CLAUDE_PS_NO_AUTOSTART: '1' }, undefined, 'echo SLOW');
      return r.stdout === 'SLOW statusline\n' ? 'slow' : r.stdout;
    };
    await until(() => fast() === '1 busy\n', 'the line file, shown by the snippet');
    const [w] = watchers((d) => d === lines);
    process.kill(w!.pid, 'SIGSTOP');
    stopped = w!.pid;
    const stoppedAt = Date.now();
    // This session idles (its record is unchanged); the other one starts waiting.
    reg.write(other.pid, sessionRecord(other.pid, { procStart: procStartTicks(other.pid), status: 'waiting', waitingFor: 'permission prompt', name: 'api' }));
    // Within the heartbeat's lead (2 s) the snippet stops believing the stopped watcher's file.
    await until(() => fast() === 'slow', 'the slow path while the watcher is stopped', 6000);
    const slowAfter = Date.now() - stoppedAt;
    expect(slowAfter).toBeLessThan(4000); // 2 s lead, and a loaded machine's margin
    expect(snippet(env).stdout).toBe('⏳ api (permission prompt)\n');
    // It stays on the slow path while stopped (no beat, however long).
    await new Promise((r) => setTimeout(r, 1500));
    expect(fast()).toBe('slow');
    // SIGCONT: the watcher catches up, beats again, and the snippet prints its (current) line.
    process.kill(w!.pid, 'SIGCONT');
    stopped = undefined;
    await until(() => fast() === '⏳ api (permission prompt)\n', 'the fast path after SIGCONT, with the current line', 10_000);
    // (slowAfter is printed for the report: how long a stopped watcher's line stayed believed.)
    console.log(`slow path ${slowAfter} ms after SIGSTOP`);
  });

  it('a relative XDG_RUNTIME_DIR is ignored: the watcher keeps ${TMPDIR}/claude-ps-<uid>, named absolutely, and the snippet reads it', async () => {
    const reg = registry();
    const cwd = mkdtempSync(join(tmpdir(), 'cps-auto-rel-'));
    const rel = `cps-auto-rel-${basename(cwd).slice(-6)}`;
    mkdirSync(join(cwd, rel), { mode: 0o700 });
    const lines = join(cwd, `claude-ps-${process.getuid?.()}`);
    // TMPDIR is the test's own folder, so the fallback folder is no other test's or watcher's.
    const env = cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, XDG_RUNTIME_DIR: rel, TMPDIR: cwd, CLAUDE_PID: String(me.pid), CLAUDE_PS_NO_AUTOSTART: '' });
    const ours = (d: string) => d.includes(rel) || d === lines;
    cleanups.push(async () => {
      for (const w of watchers(ours)) process.kill(w.pid, 'SIGTERM');
      await until(() => watchers(ours).length === 0, 'the watchers to end');
      // Started in `/` with a relative folder, the watcher before the fix made `/<rel>/claude-ps` (as root).
      rmSync(join('/', rel), { recursive: true, force: true });
      reg.remove();
      rmSync(cwd, { recursive: true, force: true });
    });
    expect(render(env, cwd).status).toBe(0);
    await until(() => textOf(join(lines, String(me.pid))) === '1 busy\n', 'the line file in ${TMPDIR}/claude-ps-<uid>');
    // XDG_RUNTIME_DIR is ignored unless absolute (as control-dir.ts does, and the XDG spec says), by
    // the render and by the snippet, run where Claude Code runs it. Before the fix the watcher was
    // given `rel/claude-ps`, kept `/rel/claude-ps` (it runs in `/`), and every render stayed slow.
    expect(watchers(ours).map((w) => w.dir)).toEqual([lines]);
    expect(snippet({ ...env, CLAUDE_PS_NO_AUTOSTART: '1' }, cwd, 'echo SLOW').stdout).toBe('1 busy\n');
    expect(readdirSync(join(cwd, rel))).toEqual([]);
  });

  it('a runtime folder another user owns: the render refuses, as the watcher would, instead of starting a doomed watcher every 5 s', async () => {
    const reg = registry();
    const runtime = mkdtempSync(join(tmpdir(), 'cps-rev3-auto-foreign-'));
    const lines = join(runtime, 'claude-ps');
    cleanups.push(async () => {
      for (const w of watchers((d) => d === lines)) process.kill(w.pid, 'SIGTERM');
      await until(() => watchers((d) => d === lines).length === 0, 'the watchers to end');
      reg.remove();
      rmSync(runtime, { recursive: true, force: true });
    });
    if (process.getuid?.() !== 0) return; // needs root to give the folder to nobody
    chownSync(runtime, 65534, 0);
    chmodSync(runtime, 0o755);
    const env = cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, XDG_RUNTIME_DIR: runtime, CLAUDE_PID: String(me.pid), CLAUDE_PS_NO_AUTOSTART: '' });
    const first = render(env);
    await new Promise((r) => setTimeout(r, 5500)); // past the 5 s throttle
    render(env);
    await new Promise((r) => setTimeout(r, 3000));
    const log = textOf(join(lines, '.watcher.log'));
    // autostart.ts checks the chain above DIR as `watch --statusline-dir` does (owned-folder.ts).
    // Before the fix it checked DIR alone: each render past the throttle started a Node watcher that
    // exited at once, the render said nothing, and the log filled with "belongs to another user".
    expect(first.stderr).toMatch(/no watcher started/);
    expect(log.match(/belongs to another user/g) ?? []).toEqual([]);
  });
});
