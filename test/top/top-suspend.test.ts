/**
 * A stopped `top` takes its terminal back whole when it runs again: after Ctrl-Z where no shell can
 * stop it (an orphaned process group: top as a pane's own command), and after a SIGSTOP from outside
 * under bash, which hands a stopped job's terminal back in cooked mode and does not make it raw on `fg`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy } from '../cli/run-cli.js';
import { endAll, until } from '../helpers/processes.js';
import { makeRegistry, type RegistryFixture } from '../helpers/registry-fixture.js';
import { startSession } from './helpers.js';
import { hasTmux, openTmux } from './tmux.js';

const hasBash = spawnSync('bash', ['--version']).status === 0;

let cli: string;
let reg: RegistryFixture;
beforeAll(async () => {
  cli = await builtCli();
  reg = makeRegistry();
  startSession(reg, { name: 'stop-and-go', status: 'busy' });
});
afterAll(async () => {
  await endAll();
  reg?.remove();
  if (cli) removeCopy(cli);
});

const shows = (l: string[]) => l.some((x) => x.includes('stop-and-go'));

describe.skipIf(!hasTmux)('top stopped and resumed', () => {
  it('Ctrl-Z with no shell to stop it keeps the view and raw keys', async () => {
    const tmux = openTmux();
    try {
      // The pane's own command: its process group has no parent in its session, so SIGTSTP is discarded.
      tmux.run('respawn-pane', '-k', '-t', 'main', `${process.execPath} ${cli} top --config-dir ${reg.configDir}; echo EXIT=$?; sleep 300`);
      await tmux.until(shows, 'the first screen');
      tmux.keys('C-z');
      await new Promise((r) => setTimeout(r, 500));
      expect(tmux.format('#{alternate_on}')).toBe('1');
      await tmux.until(shows, 'the view still there');
      tmux.type('q'); // a single key, no Enter: only a raw terminal passes it on
      await tmux.until((l) => l.includes('EXIT=0'), 'q to end top');
      expect(tmux.format('#{alternate_on}')).toBe('0');
    } finally {
      tmux.close();
    }
  });

  it.skipIf(!hasBash)('SIGSTOP from outside, then fg under bash: raw keys again', async () => {
    const tmux = openTmux();
    try {
      tmux.run('respawn-pane', '-k', '-t', 'main', `env PS1='READY$ ' bash --norc --noprofile -i`);
      await tmux.until((l) => l.some((x) => x.startsWith('READY$')), 'the bash prompt');
      const pidFile = join(tmux.dir, 'top-pid');
      tmux.type(`sh -c 'echo $$ > ${pidFile}; exec ${process.execPath} ${cli} top --config-dir ${reg.configDir}'`);
      tmux.keys('Enter');
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the pid file');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      await tmux.until(shows, 'the first screen');
      process.kill(pid, 'SIGSTOP'); // our own process
      await tmux.until((l) => l.some((x) => x.includes('Stopped')), 'bash to take the terminal');
      tmux.type('fg');
      tmux.keys('Enter');
      await tmux.until((l) => shows(l) && !l.some((x) => x.includes('Stopped')), 'the view again');
      const tty = tmux.format('#{pane_tty}');
      await until(() => /(^|\s)-icanon(\s|$)/.test(spawnSync('stty', ['-a', '-F', tty], { encoding: 'utf8' }).stdout), 'raw mode again', 5000);
      tmux.type('q');
      await until(() => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true, 'q to end top', 5000);
      await until(() => tmux.format('#{alternate_on}') === '0', 'the shell screen');
    } finally {
      tmux.close();
    }
  });
});
