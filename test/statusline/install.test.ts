/**
 * `statusline --install` / `--uninstall` with the built CLI on real settings files: the snippet written
 * into the config dir's settings.json with "refreshInterval": 1, the other settings kept, a backup of
 * the old file, another statusLine refused unless --force, and only our snippet ever removed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, runCli } from '../cli/run-cli.js';
import { cleanupsAfterEach } from './helpers.js';

let cli: string;
const cleanups = cleanupsAfterEach();
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(() => {
  if (cli) removeCopy(cli);
});

function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cps-install-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const settingsOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as Record<string, any>;
const cps = (args: string[], dir: string) => runCli(cli, ['statusline', ...args], { env: cliEnv({ CLAUDE_CONFIG_DIR: dir }) });

describe('statusline --install and --uninstall', () => {
  it('writes the snippet into a settings file without a statusLine, keeps the rest, backs the old file up', () => {
    const dir = configDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(ls)'] } }));
    chmodSync(join(dir, 'settings.json'), 0o600);
    const r = cps(['--install'], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/statusLine written to .*settings\.json \(the previous file is .*settings\.json\.claude-ps-backup\)/);
    const s = settingsOf(dir);
    expect(s.model).toBe('opus');
    expect(s.permissions).toEqual({ allow: ['Bash(ls)'] });
    expect(s.statusLine.type).toBe('command');
    expect(s.statusLine.refreshInterval).toBe(1);
    expect(s.statusLine.command).toContain(`${process.execPath} `);
    expect(s.statusLine.command).toMatch(/ statusline$/);
    expect(statSync(join(dir, 'settings.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, 'settings.json.claude-ps-backup'), 'utf8'))).toEqual({ model: 'opus', permissions: { allow: ['Bash(ls)'] } });
    // Once more: nothing to do. The snippet it wrote renders through sh (no session here: the fallback, empty).
    expect(cps(['--install'], dir).stdout).toMatch(/already in/);
    const shown = spawnSync('/bin/sh', ['-c', s.statusLine.command], { encoding: 'utf8', env: cliEnv({ CLAUDE_CONFIG_DIR: dir }), input: '' });
    expect(shown.status).toBe(0);
  });

  it('creates the settings file when there is none (and no backup of nothing)', () => {
    const dir = configDir();
    expect(cps(['--install'], dir).status).toBe(0);
    expect(settingsOf(dir).statusLine.refreshInterval).toBe(1);
    expect(existsSync(join(dir, 'settings.json.claude-ps-backup'))).toBe(false);
  });

  it('refuses to replace another statusLine unless --force, and never removes one that is not ours', () => {
    const dir = configDir();
    const theirs = { statusLine: { type: 'command', command: '~/bin/my-line.sh' }, theme: 'dark' };
    writeFileSync(join(dir, 'settings.json'), JSON.stringify(theirs));
    const refused = cps(['--install'], dir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/already has a statusLine of its own .*--force/);
    expect(settingsOf(dir)).toEqual(theirs);
    expect(cps(['--uninstall'], dir).status).toBe(1);
    expect(settingsOf(dir)).toEqual(theirs);
    expect(cps(['--install', '--force'], dir).status).toBe(0);
    expect(settingsOf(dir).theme).toBe('dark');
    expect(JSON.parse(readFileSync(join(dir, 'settings.json.claude-ps-backup'), 'utf8'))).toEqual(theirs);
    const removed = cps(['--uninstall'], dir);
    expect(removed.status).toBe(0);
    expect(settingsOf(dir)).toEqual({ theme: 'dark' });
    expect(cps(['--uninstall'], dir).stdout).toMatch(/no statusLine in/);
  });

  it('refuses a settings file that is not JSON, not an object, or not a regular file, and changes nothing', () => {
    const dir = configDir();
    for (const text of ['{ "model": ', '[1,2]']) {
      writeFileSync(join(dir, 'settings.json'), text);
      const r = cps(['--install'], dir);
      expect(r.status).toBe(1);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(readFileSync(join(dir, 'settings.json'), 'utf8')).toBe(text);
    }
    rmSync(join(dir, 'settings.json'));
    spawnSync('mkfifo', [join(dir, 'settings.json')]);
    const fifo = cps(['--install'], dir);
    expect(fifo.status).toBe(1);
    expect(fifo.stderr).toMatch(/not a regular file/);
  });

  it('takes --config-dir over CLAUDE_CONFIG_DIR, and rejects --force without --install', () => {
    const dir = configDir();
    const other = configDir();
    const r = runCli(cli, ['statusline', '--install', '--config-dir', dir], { env: cliEnv({ CLAUDE_CONFIG_DIR: other }) });
    expect(r.status).toBe(0);
    expect(existsSync(join(dir, 'settings.json'))).toBe(true);
    expect(existsSync(join(other, 'settings.json'))).toBe(false);
    expect(cps(['--uninstall', '--force'], dir).status).toBe(2);
  });
});
