/**
 * `claude-ps service install|uninstall|status` with the built CLI, writing into a temporary HOME: the
 * systemd user unit checked by `systemd-analyze verify --user` (where installed), the launchd agent
 * read back by a real plist parser (Python's plistlib), both running the same watcher on the same
 * default folder as the statusline's autostart, with awkward config dirs kept intact.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, runCli } from '../cli/run-cli.js';
import { cleanupsAfterEach } from './helpers.js';

// CI installs both (.ci/run): there a missing tool fails the test instead of skipping it.
const inCi = process.env.CI === 'true';
const hasAnalyze = inCi || spawnSync('systemd-analyze', ['--version']).status === 0;
const hasPython = inCi || spawnSync('python3', ['-c', 'import plistlib']).status === 0;
let cli: string;
const cleanups = cleanupsAfterEach();
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(() => {
  if (cli) removeCopy(cli);
});

function home() {
  const dir = mkdtempSync(join(tmpdir(), 'cps-service-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: '', XDG_RUNTIME_DIR: join(dir, 'run'), CLAUDE_CONFIG_DIR: '' });
  spawnSync('mkdir', ['-m', '700', join(dir, 'run')]);
  return { dir, env };
}

const weird = '/tmp/my 100% $HOME "claude"';

describe('claude-ps service', () => {
  it.skipIf(!hasAnalyze)('writes a systemd user unit that systemd-analyze verify accepts, and removes it', () => {
    const { dir, env } = home();
    const r = runCli(cli, ['service', 'install', '--no-start', '--config-dir', weird], { env });
    expect(r.status).toBe(0);
    const unit = join(dir, '.config', 'systemd', 'user', 'claude-ps-watch.service');
    expect(r.stdout).toBe(`wrote ${unit}\n`);
    const text = readFileSync(unit, 'utf8');
    expect(text).toContain('--statusline-dir %t/claude-ps');
    expect(text).toContain('"/tmp/my 100%% $$HOME \\"claude\\""');
    const verify = spawnSync('systemd-analyze', ['verify', '--user', unit], { encoding: 'utf8', env: { ...env, PATH: process.env.PATH } });
    expect(verify.stderr).toBe('');
    expect(verify.status).toBe(0);
    // The check can fail: a unit with a bad setting is reported.
    const bad = join(dir, 'bad.service');
    spawnSync('sh', ['-c', `sed 's|^Type=simple|Type=bogus|' "${unit}" > "${bad}"`]);
    expect(spawnSync('systemd-analyze', ['verify', '--user', bad], { encoding: 'utf8', env }).stderr).not.toBe('');
    expect(runCli(cli, ['service', 'status'], { env }).stdout).toMatch(/installed\nwatcher none; .*run\/claude-ps; autostart/);
    expect(runCli(cli, ['service', 'uninstall', '--no-start'], { env }).stdout).toBe(`removed ${unit}\n`);
    expect(existsSync(unit)).toBe(false);
    expect(JSON.parse(runCli(cli, ['service', 'status', '--json'], { env }).stdout)).toMatchObject({ target: 'systemd', installed: false, watcher: null, lock: 'free' });
  });

  it.skipIf(!hasPython)('writes a launchd agent that a plist parser reads back as the same watcher', () => {
    const { dir, env } = home();
    const r = runCli(cli, ['service', 'install', '--target', 'launchd', '--no-start', '--config-dir', weird], { env });
    expect(r.status).toBe(0);
    const plist = join(dir, 'Library', 'LaunchAgents', 'io.github.claude-ps.watch.plist');
    const parsed = spawnSync('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', plist], { encoding: 'utf8' });
    expect(parsed.status).toBe(0);
    const agent = JSON.parse(parsed.stdout) as Record<string, unknown>;
    expect(agent.Label).toBe('io.github.claude-ps.watch');
    expect(agent.ProgramArguments).toEqual([process.execPath, cli, 'watch', '--statusline-dir', join(dir, 'run', 'claude-ps'), '--config-dir', weird]);
    expect(agent.RunAtLoad).toBe(true);
    expect(agent.KeepAlive).toEqual({ SuccessfulExit: false });
  });

  it('rejects an unknown action or target as a usage error', () => {
    const { env } = home();
    expect(runCli(cli, ['service', 'restart'], { env }).status).toBe(2);
    expect(runCli(cli, ['service', 'install', '--target', 'upstart'], { env }).status).toBe(2);
    expect(runCli(cli, ['service'], { env }).status).toBe(2);
  });
});
