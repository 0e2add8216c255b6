/**
 * Every way out of `top` gives the terminal back (the shell's own screen, the cursor, cooked mode):
 * SIGINT, SIGTERM, SIGHUP, an uncaught error, Ctrl-C as a key; and Ctrl-Z hands it back until resumed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy, runCli } from '../cli/run-cli.js';
import { mkdirSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endAll, hasSetpriv, isRoot, procState, until } from '../helpers/processes.js';
import { makeRegistry, type RegistryFixture } from '../helpers/registry-fixture.js';
import { startSession } from './helpers.js';
import { hasTmux, openTmux, PROMPT, type Tmux } from './tmux.js';

let cli: string;
let reg: RegistryFixture;
beforeAll(async () => {
  cli = await builtCli();
  reg = makeRegistry();
  startSession(reg, { name: 'exit-paths', status: 'busy' });
});
afterAll(async () => {
  await endAll();
  reg?.remove();
  if (cli) removeCopy(cli);
});

async function expectShellBack(tmux: Tmux, code: number): Promise<string[]> {
  const lines = await tmux.exited(code);
  expect(lines.some((l) => l.includes('sessions:'))).toBe(false);
  expect(lines.filter((l) => l.startsWith(PROMPT.trimEnd())).length).toBeGreaterThanOrEqual(2);
  expect(tmux.format('#{alternate_on}')).toBe('0');
  expect(tmux.format('#{cursor_flag}')).toBe('1');
  tmux.type('stty -a | tr " " "\\n" | grep -x -e icanon -e -icanon -e echo -e -echo | tr "\\n" " "; echo');
  tmux.keys('Enter');
  await tmux.until((l) => l.some((x) => x.trim() === 'icanon echo'), 'a cooked terminal');
  return lines;
}

async function startTop(tmux: Tmux, env = ''): Promise<number> {
  const pid = await tmux.start(`env ${env} ${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
  await tmux.until((l) => l.some((x) => x.includes('exit-paths')), 'the first screen');
  expect(tmux.format('#{alternate_on}')).toBe('1');
  return pid;
}

describe('top without a terminal', () => {
  it('refuses to start when stdin or stdout is not a terminal (exit 1, one line), and takes no --json', () => {
    const r = runCli(cli, ['top', '--config-dir', reg.configDir]);
    expect(r).toMatchObject({ status: 1, stdout: '' });
    expect(r.stderr).toBe('claude-ps: top needs a terminal on stdin and stdout (for scripts: claude-ps list, or claude-ps watch)\n');
    const json = runCli(cli, ['top', '--json', '--config-dir', reg.configDir]);
    expect(json.status).toBe(2);
    expect(json.stderr).toMatch(/^claude-ps: top: --json does not apply/);
    for (const command of ['top', 'notify']) {
      const r = runCli(cli, [command, '--interval', '5', '--config-dir', reg.configDir]);
      expect(r.status, command).toBe(2);
      expect(r.stderr).toBe('claude-ps: --interval must be a number from 10 to 2147483647 (got 5)\n');
    }
  });
});

describe.skipIf(!hasTmux || !isRoot || !hasSetpriv)('top on a folder it cannot list', () => {
  it('is an error on the shell screen (exit 1), never an empty view', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cps-top-unlistable-'));
    mkdirSync(join(dir, 'sessions'), { mode: 0o700 });
    chmodSync(dir, 0o755);
    const tmux = openTmux();
    try {
      await tmux.start(`setpriv --reuid=65534 --regid=65534 --clear-groups ${process.execPath} ${cli} top --config-dir ${dir}`);
      const lines = await tmux.until((l) => l.includes('EXIT=1'), 'the exit');
      expect(lines.join('')).toMatch(/claude-ps: cannot list .*sessions \(EACCES\)/);
      expect(lines.some((l) => l.includes('sessions:'))).toBe(false);
      expect(tmux.format('#{alternate_on}')).toBe('0');
    } finally {
      tmux.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasTmux)('top restores the terminal', () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    it(`on ${signal} (exit ${code})`, async () => {
      const tmux = openTmux();
      try {
        const pid = await startTop(tmux);
        process.kill(pid, signal); // our own process: started by the test, through its tmux pane
        await expectShellBack(tmux, code);
      } finally {
        tmux.close();
      }
    });
  }

  it('ends when its terminal really goes away (the pane killed), without spinning on a dead tty', async () => {
    const tmux = openTmux();
    try {
      tmux.run('new-window', '-d', '-t', 'main:3', 'sh');
      const pid = await startTop(tmux);
      tmux.run('kill-pane', '-t', 'main:0');
      await until(() => procState(pid) === undefined, 'top to end after the hangup', 10_000);
    } finally {
      tmux.close();
    }
  });

  it('on an uncaught error: the message is on the shell screen, exit 1', async () => {
    const tmux = openTmux();
    try {
      await startTop(tmux, 'CLAUDE_PS_TOP_FAULT=throw');
      const lines = await expectShellBack(tmux, 1);
      expect(lines.some((l) => l.includes('claude-ps: injected fault'))).toBe(true);
    } finally {
      tmux.close();
    }
  });

  it('on Ctrl-C as a key (raw mode makes it a byte, not a signal)', async () => {
    const tmux = openTmux();
    try {
      await startTop(tmux);
      tmux.keys('C-c');
      await expectShellBack(tmux, 0);
    } finally {
      tmux.close();
    }
  });

  // One retry: once in three full-suite runs the job-control shell did not come up in time under load.
  it('on Ctrl-Z, until fg takes the view back', { retry: 1 }, async () => {
    const tmux = openTmux(80, 24);
    try {
      // A shell with job control, so that the stopped job can be resumed.
      tmux.type('exec sh -i -m');
      tmux.keys('Enter');
      await tmux.until((l) => l.filter((x) => x.startsWith(PROMPT.trimEnd())).length >= 2, 'the job-control shell');
      tmux.type(`${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      tmux.keys('Enter');
      await tmux.until((l) => l.some((x) => x.includes('exit-paths')), 'the first screen');
      tmux.keys('C-z');
      await tmux.until(() => tmux.format('#{alternate_on}') === '0', 'the normal screen');
      expect(tmux.format('#{cursor_flag}')).toBe('1');
      tmux.type('fg');
      tmux.keys('Enter');
      await tmux.until((l) => l.some((x) => x.includes('exit-paths')) && tmux.format('#{alternate_on}') === '1', 'the view again');
      tmux.type('q');
      await tmux.until(() => tmux.format('#{alternate_on}') === '0', 'the exit');
    } finally {
      tmux.close();
    }
  });
});
