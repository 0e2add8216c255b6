/**
 * A private tmux server for driving `top` as a person would: its own socket (`tmux -L`), an
 * interactive `sh` in a pane of a given size, keys sent, the screen read back with capture-pane.
 * close() ends the server, and with it every process it started (ours only).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;
// CI installs tmux (.ci/run): there a missing one is a failure, elsewhere a skip said in one line.
if (!hasTmux) {
  if (process.env.CI === 'true') throw new Error('tmux is not installed, and CI=true: the top tests must run');
  console.log('test/top: skipped: tmux is not installed');
}

export const PROMPT = 'READY$ ';

export interface Tmux {
  socket: string;
  dir: string;
  run(...args: string[]): string;
  /** The pane's text, one string per line (trailing blanks trimmed). */
  screen(target?: string): string[];
  /** A format of the pane (`#{alternate_on}`, `#{cursor_flag}`, `#{pane_title}`). */
  format(f: string, target?: string): string;
  keys(...keys: string[]): void;
  type(text: string): void;
  /** Waits until the screen satisfies `check`; throws with the last screen after `timeoutMs`. */
  until(check: (lines: string[]) => boolean, what: string, timeoutMs?: number): Promise<string[]>;
  /**
   * Waits for the `EXIT=<code>` line that start() has the shell print, and the prompt the shell draws
   * after it (a screen caught between the two has no new prompt yet: that failed CI once).
   */
  exited(code: number): Promise<string[]>;
  /** Runs `command` from the shell prompt so that its PID lands in a file; resolves with that PID. */
  start(command: string): Promise<number>;
  close(): void;
}

export function openTmux(width = 80, height = 24, env: Record<string, string> = {}): Tmux {
  const socket = `cps-top-${process.pid}-${randomBytes(4).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'cps-top-'));
  const baseEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    PS1: PROMPT,
    ...env,
  };
  const run = (...args: string[]) => {
    const r = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: baseEnv, timeout: 10_000 });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr || r.error?.message}`);
    return r.stdout;
  };
  // The prompt is set on the command line: a login environment may set its own PS1.
  run('new-session', '-d', '-s', 'main', '-x', String(width), '-y', String(height), `env PS1='${PROMPT}' sh`);
  run('set-option', '-g', 'status', 'off');
  // kill-server leaves the socket file behind (~300 of them in /tmp/tmux-<uid> after a few suites).
  const socketPath = run('display-message', '-p', '#{socket_path}').trim();
  const t: Tmux = {
    socket,
    dir,
    run,
    screen: (target = 'main') => run('capture-pane', '-p', '-t', target).replace(/\n$/, '').split('\n'),
    format: (f, target = 'main') => run('display-message', '-p', '-t', target, f).trim(),
    keys: (...keys) => void run('send-keys', '-t', 'main', ...keys),
    type: (text) => void run('send-keys', '-t', 'main', '-l', text),
    async until(check, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      let lines = t.screen();
      while (!check(lines)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 20));
        lines = t.screen();
      }
      return lines;
    },
    exited(code) {
      return t.until((l) => {
        const at = l.indexOf(`EXIT=${code}`);
        return at >= 0 && l.slice(at + 1).some((x) => x.startsWith(PROMPT.trimEnd()));
      }, `EXIT=${code} and the prompt after it`);
    },
    async start(command) {
      await t.until((l) => l.some((line) => line.startsWith(PROMPT.trimEnd())), 'the shell prompt');
      const pidFile = join(dir, `pid-${randomBytes(3).toString('hex')}`);
      t.type(`sh -c 'echo $$ > ${pidFile}; exec ${command}'; echo "EXIT=$?"`);
      t.keys('Enter');
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          const pid = Number(readFileSync(pidFile, 'utf8').trim());
          if (pid > 0) return pid;
        } catch {
          // not yet
        }
        if (Date.now() > deadline) throw new Error('the command never started');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { timeout: 10_000 });
      if (socketPath.endsWith(`/${socket}`)) rmSync(socketPath, { force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}
