/**
 * End to end with real Claude Code: three interactive sessions whose statusLine is the README's
 * line-file snippet, falling back to `claude-ps statusline`; with one waiting for a permission prompt
 * and one busy, the third session's rendered statusline names the waiting one and counts the busy one,
 * through the fallback and through the watcher's line file.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, runCli, startCli } from '../cli/run-cli.js';
import { describeWithClaude, useHarness } from './suite.js';

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

async function until<T>(get: () => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describeWithClaude('the statusline in real Claude Code', () => {
  const h = useHarness();
  let watcher: ChildProcess | undefined;
  // The logs and the line files live in the lab's folder, removed with it.
  const work = () => h.lab.root;
  const lines = () => join(h.lab.root, 'lines');

  beforeAll(() => {
    // The README's second snippet (the line file, else `claude-ps statusline`), with this test's built
    // CLI, logging per session which way each render went and what it printed.
    const log = (what: string) => `${quote(work())}/${what}.$CLAUDE_PID.log`;
    h.lab.statusLine(
      `f=${quote(lines())}/$CLAUDE_PID; if [ "$f" -nt "\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ]; ` +
        `then echo file >> ${log('way')}; cat "$f"; ` +
        `else echo fallback >> ${log('way')}; ${quote(process.execPath)} ${quote(h.cli)} statusline; fi | tee -a ${log('render')}`,
    );
  });

  afterAll(async () => {
    if (watcher && watcher.exitCode === null && watcher.signalCode === null) {
      const exited = new Promise((r) => watcher!.once('exit', r));
      watcher.kill('SIGTERM');
      await exited;
    }
  });

  it('shows the third session the waiting one (with what it waits for) and the busy one, both ways', async () => {
    const cfg = h.lab.configDir;
    const [busy1, wait1, third] = await h.lab.start('busy1', 'wait1', 'third');
    // Typed before the prompt takes input, a line is lost (the first write has no status yet): as the
    // other suites do, start typing once each session is idle.
    await Promise.all([busy1, wait1, third].map((s) => s!.waitFor('idle', 90_000)));
    await busy1!.send('SLOW 150000 hi');
    await wait1!.send('TOOL');
    await busy1!.waitFor('busy', 90_000);
    const waiting = (await wait1!.waitFor('waiting', 90_000))!;
    expect(waiting.waitingFor).toBe('permission prompt');
    const expected = `⏳ ${waiting.name} (permission prompt) · 1 busy`;
    const text = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
    const renders = join(work(), `render.${third!.pid}.log`);
    const ways = join(work(), `way.${third!.pid}.log`);
    const lineFile = join(lines(), String(third!.pid));
    // Claude Code renders a session's statusline after its own turns: a turn of the third session, then
    // the render that followed it must show the line, and say which way it went.
    // A render that races the watcher's rewrite of the file (the session's own record just changed)
    // falls back by design (the -nt freshness rule), so the file way gets up to three turns.
    const renderedAfterTurn = async (way: string) => {
      const before = { renders: text(renders).length, ways: text(ways).length };
      for (let turn = 0; turn < (way === 'file' ? 3 : 1); turn++) {
        const seen = text(renders).length;
        await third!.send('hello');
        await until(() => (text(renders).slice(seen).includes(expected) ? true : undefined), `the third session to render the line (${way})`);
        if (new RegExp(way).test(text(ways).slice(before.ways))) break;
      }
      expect(text(ways).slice(before.ways)).toMatch(new RegExp(way));
    };
    // No watcher yet: the snippet falls back to `claude-ps statusline`.
    await renderedAfterTurn('fallback');
    // With the watcher, once its line file is newer than the session's record, the snippet cats the file.
    watcher = startCli(h.cli, ['watch', '--interval', '200', '--config-dir', cfg, '--statusline-dir', lines()], { stdio: ['ignore', 'ignore', 'pipe'] });
    await until(() => (text(lineFile) === expected + '\n' ? true : undefined), 'the watcher to write the third session\'s line file');
    await renderedAfterTurn('file');
    const screen = await until(() => {
      const s = third!.screen();
      return s.includes(expected) ? s : undefined;
    }, "the line on the third session's screen");
    expect(screen).toContain(expected);
    // The line file holds it; the other two see each other, not themselves.
    expect(text(lineFile)).toBe(expected + '\n');
    const view = (pid: number) =>
      runCli(h.cli, ['statusline', '--config-dir', cfg, '--format', '{others.live} {others.waiting} {others.busy} {self.status}'], {
        env: cliEnv({ CLAUDE_PID: String(pid) }),
      }).stdout;
    expect(view(busy1!.pid)).toBe('2 1 0 busy\n');
    expect(view(wait1!.pid)).toBe('2 0 1 waiting\n');
  }, 240_000);
});
