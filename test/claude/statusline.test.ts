/**
 * End to end with real Claude Code (../shared/claude-lab, offline): three interactive sessions whose
 * statusLine is `cc-sessions statusline`; with one waiting for a permission prompt and one busy, the
 * third session's rendered statusline names the waiting one and counts the busy one, and the line
 * file a watcher keeps for it says the same. Runs under `npm run test:claude`.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy, startCli } from '../cli/run-cli.js';

// The lab sits beside the repository (../shared/claude-lab), or beside the worktrees' folder.
const ROOT = join(import.meta.dirname, '..', '..');
const LAB =
  process.env.CCLAB_DIR ??
  [join(ROOT, '..', 'shared', 'claude-lab'), join(ROOT, '..', '..', 'shared', 'claude-lab')].find((d) => existsSync(join(d, 'lab.mjs'))) ??
  join(ROOT, '..', 'shared', 'claude-lab');
const CLAUDE =
  process.env.CCLAB_CLAUDE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'claude-lab', process.env.CCLAB_CLAUDE_VERSION ?? '2.1.332', 'node_modules/@anthropic-ai/claude-code-linux-x64/claude');
const hasLab = existsSync(join(LAB, 'lab.mjs')) && existsSync(CLAUDE) && spawnSync('tmux', ['-V']).status === 0;
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** A small driver of the lab, on a config dir of this test's own. */
function lab(configDir: string) {
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [join(LAB, 'lab.mjs'), '--config-dir', configDir, ...args], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`lab ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  };
  return {
    run,
    start: (...names: string[]) => Object.fromEntries(run('start', ...names).trim().split('\n').map((l) => l.split(' ')).map(([n, p]) => [n, Number(p)])),
    record: (pid: number) => JSON.parse(readFileSync(join(configDir, 'sessions', `${pid}.json`), 'utf8')) as Record<string, unknown>,
  };
}

async function until<T>(get: () => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(!hasLab)('the statusline in real Claude Code', () => {
  let work: string;
  let cfg: string;
  let cli: string;
  let driver: ReturnType<typeof lab>;
  let watcher: ChildProcess | undefined;

  beforeAll(async () => {
    cli = await builtCli();
    work = mkdtempSync(join(tmpdir(), 'ccs-claude-statusline-'));
    cfg = join(work, 'cfg');
    driver = lab(cfg);
    driver.run('statusline', 'off'); // creates the config dir and an empty settings.json
    // What the README's first snippet configures, with this test's built CLI, and a log per session.
    const command = `${quote(process.execPath)} ${quote(cli)} statusline | tee -a ${quote(work)}/render.$CLAUDE_PID.log`;
    writeFileSync(join(cfg, 'settings.json'), JSON.stringify({ statusLine: { type: 'command', command } }));
  }, 120_000);

  afterAll(async () => {
    if (watcher && watcher.exitCode === null) {
      watcher.kill('SIGTERM');
      await new Promise((r) => watcher!.once('exit', r));
    }
    if (driver) driver.run('stop-all');
    if (work) rmSync(work, { recursive: true, force: true });
    if (cli) removeCopy(cli);
  }, 120_000);

  it('shows the third session the waiting one (with what it waits for) and the busy one', async () => {
    const lines = join(work, 'lines');
    watcher = startCli(cli, ['watch', '--interval', '200', '--config-dir', cfg, '--statusline-dir', lines], { stdio: ['ignore', 'ignore', 'pipe'] });
    const pids = driver.start('busy1', 'wait1', 'third');
    driver.run('send', 'busy1', 'SLOW 150000 hi');
    driver.run('send', 'wait1', 'TOOL');
    driver.run('wait', 'busy1', 'busy', '--timeout', '90000');
    driver.run('wait', 'wait1', 'waiting', '--timeout', '90000');
    const waiting = driver.record(pids.wait1!);
    expect(waiting.waitingFor).toBe('permission prompt');
    const expected = `⏳ ${waiting.name} (permission prompt) · 1 busy`;
    // Claude Code renders a session's statusline after its own turns: give the third one a turn.
    driver.run('send', 'third', 'hello');
    const log = join(work, `render.${pids.third}.log`);
    await until(() => (existsSync(log) && readFileSync(log, 'utf8').includes(expected) ? true : undefined), 'the third session to render the line');
    const screen = await until(() => {
      const s = driver.run('screen', 'third');
      return s.includes(expected) ? s : undefined;
    }, 'the line on the third session\'s screen');
    expect(screen).toContain(expected);
    // The other two see each other, not themselves.
    const view = (pid: number) =>
      spawnSync(process.execPath, [cli, 'statusline', '--config-dir', cfg, '--format', '{others.live} {others.waiting} {others.busy} {self.status}'], {
        encoding: 'utf8',
        env: { ...process.env, CLAUDE_PID: String(pid) },
      }).stdout;
    expect(view(pids.busy1!)).toBe('2 1 0 busy\n');
    expect(view(pids.wait1!)).toBe('2 0 1 waiting\n');
    // The watcher's line file for the third session holds the same line, and the snippet renders it.
    await until(() => (readFileSync(join(lines, String(pids.third)), { encoding: 'utf8', flag: 'r' }) === expected + '\n' ? true : undefined), 'the line file');
    const snippet = `f=${lines}/$CLAUDE_PID; [ "$f" -nt "\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ] && cat "$f" || echo FALLBACK`;
    const rendered = spawnSync('/bin/sh', ['-c', snippet], { encoding: 'utf8', env: { PATH: process.env.PATH, CLAUDE_PID: String(pids.third), CLAUDE_CONFIG_DIR: cfg } }).stdout;
    expect(rendered).toBe(expected + '\n');
  }, 240_000);
});
