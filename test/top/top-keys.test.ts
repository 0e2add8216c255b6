/**
 * The keys of `top` that act on the world: `p` prunes the dead claims after a confirmation (and only
 * those), Enter jumps to the tmux pane a session runs in, or says how to reach it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy } from '../cli/run-cli.js';
import { endAll, reapedPid, spawnSleep, until } from '../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../helpers/registry-fixture.js';
import { liveRecord, sleeperInWindow, startSession } from './helpers.js';
import { hasTmux, openTmux } from './tmux.js';

let cli: string;
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(async () => {
  await endAll();
  if (cli) removeCopy(cli);
});

const rowOf = (lines: string[], text: string) => lines.findIndex((l) => l.includes(text));

describe.skipIf(!hasTmux)('the prune key', () => {
  it('asks first, does nothing on no, removes only the dead claims on y', async () => {
    const reg = makeRegistry();
    const tmux = openTmux();
    try {
      const live = startSession(reg, { name: 'keeps-running', status: 'idle' });
      const deadPids = [reapedPid(), reapedPid()];
      const deadFiles = deadPids.map((pid) => reg.write(pid, sessionRecord(pid, { status: 'busy' })));
      await tmux.start(`${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      await tmux.until((l) => (l[0] ?? '').includes('2 dead claims'), 'the dead count');
      tmux.type('p');
      await tmux.until((l) => (l[23] ?? '').includes('prune 2 dead claims'), 'the confirmation');
      tmux.type('n');
      await tmux.until((l) => (l[23] ?? '').includes('prune cancelled'), 'the cancellation');
      expect(deadFiles.every((f) => existsSync(f))).toBe(true);
      tmux.type('p');
      await tmux.until((l) => (l[23] ?? '').includes('prune 2 dead claims'), 'the confirmation again');
      tmux.type('y');
      const lines = await tmux.until((l) => (l[23] ?? '').includes('pruned 2 dead claims') && !(l[0] ?? '').includes('dead'), 'the prune');
      expect(deadFiles.some((f) => existsSync(f))).toBe(false);
      expect(existsSync(live.file)).toBe(true);
      expect(rowOf(lines, 'keeps-running')).toBeGreaterThan(1);
      tmux.type('p');
      await tmux.until((l) => (l[23] ?? '').includes('no dead claims to prune'), 'nothing left');
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });
});

describe.skipIf(!hasTmux)('the prune key and typed-ahead keys', () => {
  it('a y that arrives with the p, before the question is drawn, cancels', async () => {
    const reg = makeRegistry();
    const tmux = openTmux();
    try {
      startSession(reg, { name: 'typed-ahead', status: 'idle' });
      const deadPid = reapedPid();
      const deadFile = reg.write(deadPid, sessionRecord(deadPid, { status: 'busy' }));
      await tmux.start(`${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      await tmux.until((l) => (l[0] ?? '').includes('1 dead claim'), 'the dead count');
      tmux.type('py'); // one write: both keys in one read, as keys typed while top starts would be
      await tmux.until((l) => (l[23] ?? '').includes('prune cancelled'), 'the cancellation');
      expect(existsSync(deadFile)).toBe(true);
      tmux.type('p');
      await tmux.until((l) => (l[23] ?? '').includes('prune 1 dead claim'), 'the question');
      tmux.type('y');
      await tmux.until((l) => (l[23] ?? '').includes('pruned 1 dead claim'), 'the prune');
      expect(existsSync(deadFile)).toBe(false);
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });
});

describe.skipIf(!hasTmux || process.platform !== 'linux')('the jump key', () => {
  it('selects the window and pane whose tty is the session controlling terminal', async () => {
    const reg = makeRegistry();
    const tmux = openTmux();
    try {
      // A "session" in another window of the same tmux server: a sleep whose terminal is that pane's.
      const otherPid = await sleeperInWindow(tmux, 'main:5');
      const otherPane = tmux.format('#{pane_id}', 'main:5');
      reg.write(otherPid, liveRecord(otherPid, { name: 'in-window-5', status: 'waiting', waitingFor: 'permission prompt' }));
      // And one with no terminal at all.
      startSession(reg, { name: 'no-terminal', status: 'idle' }, spawnSleep());
      await tmux.start(`${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      let lines = await tmux.until((l) => rowOf(l, 'no-terminal') > 0 && rowOf(l, 'in-window-5') > 0, 'both rows');
      // The waiting one is first and selected: Enter takes us to window 5.
      expect(lines[rowOf(lines, 'in-window-5')]).toMatch(/^>/);
      tmux.keys('Enter');
      await until(() => tmux.format('#{window_index}') === '5', 'window 5 to be current', 5000);
      expect(tmux.format('#{pane_id}')).toBe(otherPane);
      // Back in window 0 the footer says where it went.
      tmux.run('select-window', '-t', 'main:0');
      lines = await tmux.until((l) => (l[23] ?? '').includes(`switched to pane ${otherPane}`), 'the jump message');
      tmux.type('j');
      await tmux.until((l) => (l[rowOf(l, 'no-terminal')] ?? '').startsWith('>'), 'the second row selected');
      tmux.keys('Enter');
      await tmux.until((l) => /pid \d+: its controlling terminal cannot be read/.test(l[23] ?? ''), 'the no-terminal answer');
      expect(tmux.format('#{window_index}')).toBe('0');
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });

  it('switches the client to another tmux session whose pane holds the session', async () => {
    const reg = makeRegistry();
    // The inner server holds top (session "one") and the Claude session (session "two"); the outer
    // one's pane is a terminal for an attached client of the inner one, as a person's would be.
    const inner = openTmux(80, 24);
    const outer = openTmux(80, 24);
    try {
      const pidFile = join(inner.dir, 'two-pid');
      inner.run('new-session', '-d', '-s', 'two', `sh -c 'echo $$ > ${pidFile}; exec sleep 300'`);
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'session two');
      const twoPid = Number(readFileSync(pidFile, 'utf8'));
      await until(() => readFileSync(`/proc/${twoPid}/comm`, 'utf8').trim() === 'sleep', 'the exec');
      reg.write(twoPid, liveRecord(twoPid, { name: 'in-session-two', status: 'waiting' }));
      outer.type(`env -u TMUX tmux -L ${inner.socket} -f /dev/null attach -t main`);
      outer.keys('Enter');
      await until(() => inner.run('list-clients', '-F', '#{client_session}').trim() === 'main', 'the attached client');
      await inner.start(`${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      await inner.until((l) => rowOf(l, 'in-session-two') > 0, 'the row');
      inner.keys('Enter');
      await until(() => inner.run('list-clients', '-F', '#{client_session}').trim() === 'two', 'the client to switch to session two', 5000);
      await outer.until((l) => !l.some((x) => x.includes('in-session-two')), 'the outer terminal showing session two');
    } finally {
      outer.close();
      inner.close();
      reg.remove();
    }
  });

  it('outside tmux, a recorded tmux name reaches the suggested command as one quoted word, never a substitution', async () => {
    const reg = makeRegistry();
    const tmux = openTmux(240, 24);
    try {
      const marker = join(tmux.dir, 'ran');
      startSession(reg, { name: 'hostile-pane', status: 'idle', tmux: `$(touch ${marker})'\`touch ${marker}\`:@1.%2` });
      await tmux.start(`env -u TMUX ${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      await tmux.until((l) => rowOf(l, 'hostile-pane') > 0, 'the row');
      tmux.keys('Enter');
      const lines = await tmux.until((l) => (l[23] ?? '').includes('tmux attach -t'), 'the hint');
      const suggested = lines[23]!.slice(lines[23]!.indexOf('tmux attach -t ') + 'tmux attach -t '.length).trim();
      // The suggestion, as a person would paste it, run by a shell: one word, and nothing runs.
      const r = spawnSync('sh', ['-c', `printf '%s\\n' ${suggested}`], { encoding: 'utf8' });
      expect(r.stdout).toBe(`$(touch ${marker})'\`touch ${marker}\`\n`);
      expect(existsSync(marker)).toBe(false);
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });

  it('outside tmux says how to reach the session', async () => {
    const reg = makeRegistry();
    const tmux = openTmux();
    try {
      startSession(reg, { name: 'recorded-pane', status: 'idle', tmux: 'work:@3.%7' });
      await tmux.start(`env -u TMUX ${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      await tmux.until((l) => rowOf(l, 'recorded-pane') > 0, 'the row');
      tmux.keys('Enter');
      await tmux.until((l) => (l[23] ?? '').includes("runs in tmux pane work:@3.%7: tmux attach -t 'work'"), 'the hint');
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });
});
