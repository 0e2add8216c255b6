/**
 * The settings snippet (lib/cli/statusline/snippet.ts) and a line folder that is not this user's:
 * with no XDG_RUNTIME_DIR its folder is `${TMPDIR:-/tmp}/claude-ps-<uid>`, a name any other user can
 * make first in a sticky /tmp, and a file's mtime is whatever its owner says. The snippet prints a
 * line file only from a folder of this user's that is no symlink (`[ ! -L ] && [ -O ]`). Found by the
 * hostile review rev3 (the snippet then printed nobody's bytes, escapes and all). Needs root (to be
 * another user with setpriv).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snippetCommand } from '../../lib/cli/statusline/snippet.js';
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

const asRoot = process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

describe.skipIf(!asRoot)('the snippet and a line folder another user made', () => {
  let tmp: string;
  let reg: RegistryFixture;
  let me: Spawned;

  beforeAll(() => {
    // A sticky, world-writable temp folder, as /tmp is.
    tmp = mkdtempSync(join(tmpdir(), 'cps-rev3-sticky-'));
    chmodSync(tmp, 0o1777);
    reg = makeRegistry('cps-rev3-owner-reg-');
    me = spawnSleep();
    reg.write(me.pid, sessionRecord(me.pid, { procStart: procStartTicks(me.pid), status: 'idle' }));
  });

  afterAll(async () => {
    await me?.end();
    reg?.remove();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('never prints a line file from a folder that is not this user\'s', () => {
    const folder = join(tmp, `claude-ps-${process.getuid!()}`);
    const planted = join(folder, String(me.pid));
    // nobody makes the folder first and plants this session's line, dated in the future, escapes and all.
    const plant = spawnSync(
      'setpriv',
      ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'sh', '-c', 'mkdir "$1" && printf "\\033]0;owned\\007FAKE: 3 sessions waiting\\n" > "$2" && touch -d 2099-01-01 "$2"', 'plant', folder, planted],
      { encoding: 'utf8' },
    );
    expect(plant.status).toBe(0);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TMPDIR: tmp,
      CLAUDE_CONFIG_DIR: reg.configDir,
      CLAUDE_PID: String(me.pid),
      CLAUDE_PS_NO_AUTOSTART: '1',
    };
    // The fallback stands in for `claude-ps statusline`: what the snippet prints when it trusts no file.
    const shown = spawnSync('/bin/sh', ['-c', snippetCommand('echo')], { encoding: 'utf8', env, input: '' });
    // Expected: the fallback (`statusline`, here echoed). Today: nobody's bytes, OSC escape included.
    expect(shown.stdout).not.toContain('FAKE');
    expect(shown.stdout).toBe('statusline\n');
  });

  it('never prints a line file through a symlink at the folder\'s name, even to a folder of this user\'s', () => {
    const own = mkdtempSync(join(tmpdir(), 'cps-owner-own-'));
    const link = mkdtempSync(join(tmpdir(), 'cps-owner-link-'));
    try {
      // A folder of ours with a fresh line file, a heartbeat dated ahead: all the snippet asks but the name.
      writeFileSync(join(own, String(me.pid)), 'through the link\n');
      writeFileSync(join(own, '.beat'), '');
      const ahead = new Date(Date.now() + 60_000);
      utimesSync(join(own, String(me.pid)), ahead, ahead);
      utimesSync(join(own, '.beat'), ahead, ahead);
      const env = (tmp: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmp, CLAUDE_CONFIG_DIR: reg.configDir, CLAUDE_PID: String(me.pid) });
      const show = (tmp: string) => spawnSync('/bin/sh', ['-c', snippetCommand('echo')], { encoding: 'utf8', env: env(tmp), input: '' }).stdout;
      // A copy at the name itself is printed: the refusal below is the symlink's, not another rule's.
      const direct = mkdtempSync(join(tmpdir(), 'cps-owner-direct-'));
      try {
        cpSync(own, join(direct, `claude-ps-${process.getuid!()}`), { recursive: true, preserveTimestamps: true });
        expect(show(direct)).toBe('through the link\n');
      } finally {
        rmSync(direct, { recursive: true, force: true });
      }
      symlinkSync(own, join(link, `claude-ps-${process.getuid!()}`));
      expect(show(link)).toBe('statusline\n');
    } finally {
      rmSync(own, { recursive: true, force: true });
      rmSync(link, { recursive: true, force: true });
    }
  });
});
