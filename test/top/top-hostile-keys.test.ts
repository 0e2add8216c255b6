/**
 * Leftovers of the hostile review of `top`, each driven in a private tmux: Alt+q (ESC q in one read)
 * does not quit, unassigned code points in a name do not shift the rest of its row, and Enter on a
 * hung tmux gives a footer line within the jump's budget while the view keeps answering keys.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy } from '../cli/run-cli.js';
import { endAll, until } from '../helpers/processes.js';
import { makeRegistry } from '../helpers/registry-fixture.js';
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

describe.skipIf(!hasTmux)('top and hostile keys and text', () => {
  it('Alt+q and Alt+Q do not quit; q does', async () => {
    const reg = makeRegistry();
    const tmux = openTmux();
    try {
      startSession(reg, { name: 'stays-open', status: 'idle' });
      await tmux.start(`env NO_COLOR=1 ${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      await tmux.until((l) => rowOf(l, 'stays-open') > 1, 'the first screen');
      tmux.keys('M-q');
      tmux.keys('M-Q');
      // The keys are read and nothing happens: the next key (a filter) still reaches the view.
      await new Promise((r) => setTimeout(r, 400));
      tmux.type('/stays');
      const lines = await tmux.until((l) => (l[23] ?? '').includes('filter: stays_'), 'the filter prompt', 5000);
      expect(lines.some((l) => l.includes('EXIT='))).toBe(false);
      expect(tmux.format('#{alternate_on}')).toBe('1');
      tmux.keys('Enter');
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });

  it('unassigned code points and noncharacters in a name leave the row aligned', async () => {
    const reg = makeRegistry();
    const tmux = openTmux(100, 24);
    try {
      const odd = startSession(reg, { name: 'odd\u0378\uffff\u{1faff}\u{3fffd}name', status: 'idle', cwd: '/w/a' });
      const plain = startSession(reg, { name: 'plain', status: 'idle', cwd: '/w/b' });
      await tmux.start(`env NO_COLOR=1 ${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      const lines = await tmux.until((l) => rowOf(l, 'plain') > 1 && rowOf(l, 'name') > 1 && (l[23] ?? '').includes('q quit'), 'both rows');
      const pidColumn = lines[1]!.indexOf('PID');
      // Every character drawn in these rows is one column wide, so a string index is a column.
      const oddRow = lines[rowOf(lines, 'name')]!;
      const plainRow = lines[rowOf(lines, 'plain')]!;
      expect(oddRow.indexOf(String(odd.pid)), oddRow).toBe(pidColumn);
      expect(plainRow.indexOf(String(plain.pid))).toBe(pidColumn);
      expect(oddRow).toContain('odd\ufffd\ufffd\ufffd\ufffdname');
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });
});

describe.skipIf(!hasTmux || process.platform !== 'linux')('the jump key and a hung tmux', () => {
  it('says tmux gave no answer within the budget, and the view answers keys meanwhile', async () => {
    const reg = makeRegistry();
    const tmux = openTmux();
    try {
      // A session in another pane of our server, so that its terminal is known and tmux is asked.
      const otherPid = await sleeperInWindow(tmux, 'main:5');
      reg.write(otherPid, liveRecord(otherPid, { name: 'hung-tmux', status: 'waiting' }));
      // The tmux top calls hangs (a server that never answers); ended by top, by its PID.
      const stub = join(tmux.dir, 'bin');
      mkdirSync(stub);
      writeFileSync(join(stub, 'tmux'), '#!/bin/sh\nexec sleep 60\n');
      chmodSync(join(stub, 'tmux'), 0o755);
      await tmux.start(`env NO_COLOR=1 PATH=${stub}:${process.env.PATH} ${process.execPath} ${cli} top --config-dir ${reg.configDir}`);
      await tmux.until((l) => rowOf(l, 'hung-tmux') > 1, 'the row');
      const pressed = Date.now();
      tmux.keys('Enter');
      await tmux.until((l) => (l[23] ?? '').includes('jumping to pid'), 'the jump under way', 3000);
      // Keys still work while tmux hangs: the filter prompt opens.
      tmux.type('/');
      await tmux.until((l) => (l[23] ?? '').includes('filter:'), 'the filter prompt while the jump waits', 1500);
      tmux.keys('Escape');
      const lines = await tmux.until((l) => /tmux list-panes failed: no answer within 2 s/.test(l[23] ?? ''), 'the failure', 10_000);
      const took = Date.now() - pressed;
      expect(lines[23]).toContain(`pid ${otherPid}`);
      // The budget is 2 s; the old code waited 3 s per tmux call, four calls in all.
      expect(took).toBeLessThan(6000);
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });
});
