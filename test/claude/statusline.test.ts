/**
 * End to end with real Claude Code (../shared/claude-lab, offline): three interactive sessions whose
 * statusLine is the README's line-file snippet, falling back to `cc-sessions statusline`; with one
 * waiting for a permission prompt and one busy, the third session's rendered statusline names the
 * waiting one and counts the busy one, through the fallback and through the watcher's line file.
 * Runs under `npm run test:claude`.
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
    // The README's second snippet (the line file, else `cc-sessions statusline`), with this test's built
    // CLI, logging per session which way each render went and what it printed.
    const lines = join(work, 'lines');
    const log = (what: string) => `${quote(work)}/${what}.$CLAUDE_PID.log`;
    const command =
      `f=${quote(lines)}/$CLAUDE_PID; if [ "$f" -nt "\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ]; ` +
      `then echo file >> ${log('way')}; cat "$f"; ` +
      `else echo fallback >> ${log('way')}; ${quote(process.execPath)} ${quote(cli)} statusline; fi | tee -a ${log('render')}`;
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

  it('shows the third session the waiting one (with what it waits for) and the busy one, both ways', async () => {
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
    const text = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
    const renders = join(work, `render.${pids.third}.log`);
    const ways = join(work, `way.${pids.third}.log`);
    // Claude Code renders a session's statusline after its own turns: give the third one turns until
    // a render has shown the line through the line file (the first render, before any file, falls back).
    for (let turn = 0; turn < 4 && !text(ways).includes('file'); turn++) {
      const before = text(renders).length;
      driver.run('send', 'third', 'hello');
      await until(() => (text(renders).slice(before).includes(expected) ? true : undefined), 'the third session to render the line');
    }
    expect(text(ways)).toMatch(/fallback/);
    expect(text(ways)).toMatch(/file/);
    const screen = await until(() => {
      const s = driver.run('screen', 'third');
      return s.includes(expected) ? s : undefined;
    }, 'the line on the third session\'s screen');
    expect(screen).toContain(expected);
    // The line file holds it; the other two see each other, not themselves.
    expect(text(join(lines, String(pids.third)))).toBe(expected + '\n');
    const view = (pid: number) =>
      spawnSync(process.execPath, [cli, 'statusline', '--config-dir', cfg, '--format', '{others.live} {others.waiting} {others.busy} {self.status}'], {
        encoding: 'utf8',
        env: { ...process.env, CLAUDE_PID: String(pid) },
      }).stdout;
    expect(view(pids.busy1!)).toBe('2 1 0 busy\n');
    expect(view(pids.wait1!)).toBe('2 0 1 waiting\n');
  }, 240_000);
});
