/**
 * `claude-ps has-interactive` answers with grep's exit codes: 0 yes, 1 only for a proven no, 2 a
 * usage error, 3 cannot tell, 4 any other error; nothing on stdout unless asked, one line on stderr
 * on failure, and the answer survives a stdout that is closed, full or gone.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { endAll, procStartTicks, reapedPid, spawnSleep, type Spawned } from '../helpers/processes.js';
import { builtCli, builtCliWithoutAddon, cliEnv, removeCopy, runCli } from './run-cli.js';

let cli: string;
let human: RegistryFixture; // a live interactive session
let nobodyHome: RegistryFixture; // only a live bg session and a dead claim
let alive: Spawned;
let bg: Spawned;

beforeAll(async () => {
  cli = await builtCli();
  alive = spawnSleep();
  bg = spawnSleep();
  human = makeRegistry('cps-hi-human-');
  human.write(alive.pid, sessionRecord(alive.pid, { procStart: procStartTicks(alive.pid) }));
  nobodyHome = makeRegistry('cps-hi-none-');
  nobodyHome.write(bg.pid, sessionRecord(bg.pid, { procStart: procStartTicks(bg.pid), kind: 'bg' }));
  nobodyHome.write(reapedPid(), sessionRecord(1));
});
afterAll(async () => {
  await alive?.end();
  await bg?.end();
  await endAll();
  human?.remove();
  nobodyHome?.remove();
  if (cli) removeCopy(cli);
});

const guard = (reg: RegistryFixture, ...args: string[]) => runCli(cli, ['has-interactive', ...args, '--config-dir', reg.configDir]);

/** Runs `sh -c script` with the CLI as $0 and the config dir as $1: for redirections and pipes. */
function shell(script: string, configDir: string, env = cliEnv()) {
  const r = spawnSync('sh', ['-c', script, process.execPath, cli, configDir], { encoding: 'utf8', env, timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('has-interactive exit codes', () => {
  it('0 for yes and 1 for a proven no, silent unless asked', () => {
    expect(guard(human)).toEqual({ status: 0, signal: null, stdout: '', stderr: '' });
    expect(guard(nobodyHome)).toEqual({ status: 1, signal: null, stdout: '', stderr: '' });
    expect(guard(nobodyHome, '--verbose')).toMatchObject({ status: 1, stdout: 'no: no live interactive session\n', stderr: '' });
    expect(guard(human, '--json')).toMatchObject({ status: 0, stdout: JSON.stringify({ interactive: true, pids: [alive.pid], unreadableLivePids: [], skipped: [] }) + '\n' });
  });

  it('2 for a usage error: one line on stderr, nothing on stdout', () => {
    for (const args of [['--verbsoe'], ['--config-dir'], ['--json=yes'], ['extra'], ['--config-dir', ''], ['-x']]) {
      const r = runCli(cli, ['has-interactive', ...args]);
      expect({ status: r.status, stdout: r.stdout }, args.join(' ')).toEqual({ status: 2, stdout: '' });
      expect(r.stderr).toMatch(/^claude-ps: [^\n]+\n$/);
    }
  });

  it('3 when a folder cannot be listed (here: the config dir is a file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cps-hi-file-'));
    try {
      writeFileSync(join(dir, 'profile'), 'not a folder');
      for (const args of [[], ['--verbose'], ['--json']]) {
        const r = runCli(cli, ['has-interactive', ...args, '--config-dir', join(dir, 'profile')]);
        expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 3, stdout: '' });
        expect(r.stderr).toBe(`claude-ps: cannot tell: cannot list ${join(dir, 'profile', 'sessions')} (ENOTDIR): the sessions it holds are unknown\n`);
      }
      // The same with a readable folder beside it: one unknown folder makes the answer unknown.
      expect(runCli(cli, ['has-interactive', '--config-dir', nobodyHome.configDir, '--config-dir', join(dir, 'profile')]).status).toBe(3);
      // A stderr that cannot be written does not change the code.
      expect(shell('"$0" "$1" has-interactive --config-dir "$2/profile" 2>/dev/full; echo "rc=$?"', dir).stdout).toBe('rc=3\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('2 for a CLAUDE_PS_BACKEND that is none of ours, whatever the registry holds', () => {
    for (const reg of [human, nobodyHome]) {
      for (const args of [[], ['--verbose'], ['--json']]) {
        const r = runCli(cli, ['has-interactive', ...args, '--config-dir', reg.configDir], { env: cliEnv({ CLAUDE_PS_BACKEND: 'bogus' }) });
        expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: '' });
        expect(r.stderr).toMatch(/^claude-ps: CLAUDE_PS_BACKEND must be one of native, js, ps \(got "bogus"\)\n$/);
      }
    }
    // Also where no file needs a probe: a misconfigured guard fails the same way on every folder.
    const emptyDir = mkdtempSync(join(tmpdir(), 'cps-hi-empty-'));
    try {
      expect(runCli(cli, ['has-interactive', '--config-dir', emptyDir], { env: cliEnv({ CLAUDE_PS_BACKEND: 'bogus' }) }).status).toBe(2);
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });

  it('4 for any other error, e.g. CLAUDE_PS_BACKEND=native where the addon cannot load, on any registry', async () => {
    const bare = await builtCliWithoutAddon('cps-hi-noaddon-');
    const emptyDir = mkdtempSync(join(tmpdir(), 'cps-hi-empty-'));
    try {
      for (const configDir of [human.configDir, nobodyHome.configDir, emptyDir]) {
        for (const args of [[], ['--verbose'], ['--json']]) {
          const r = runCli(bare, ['has-interactive', ...args, '--config-dir', configDir], { env: cliEnv({ CLAUDE_PS_BACKEND: 'native' }) });
          expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 4, stdout: '' });
          expect(r.stderr).toMatch(/^claude-ps: CLAUDE_PS_BACKEND=native, but the addon cannot load: [^\n]+\n$/);
        }
      }
      // CLAUDE_PS_DEBUG adds the stack, after the one line.
      const debug = runCli(bare, ['has-interactive', '--config-dir', human.configDir], { env: cliEnv({ CLAUDE_PS_BACKEND: 'native', CLAUDE_PS_DEBUG: '1' }) });
      expect(debug.status).toBe(4);
      expect(debug.stderr.split('\n')[1]).toMatch(/^Error: CLAUDE_PS_BACKEND/);
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
      removeCopy(bare);
    }
  });

  it('a stdout that is closed keeps the answer; one that is full is an error (4), never a no', () => {
    const closed = (reg: RegistryFixture) => shell('"$0" "$1" has-interactive --verbose --config-dir "$2" >&-; echo "rc=$?"', reg.configDir).stdout;
    expect(closed(human)).toBe('rc=0\n');
    expect(closed(nobodyHome)).toBe('rc=1\n');
    for (const reg of [human, nobodyHome]) {
      const full = shell('"$0" "$1" has-interactive --verbose --config-dir "$2" >/dev/full; echo "rc=$?"', reg.configDir);
      expect(full.stdout).toBe('rc=4\n');
      expect(full.stderr).toBe('claude-ps: cannot write the output: no space left on the device (ENOSPC)\n');
    }
  });

  it('a reader that goes away (EPIPE) does not change the answer', () => {
    // `true` exits at once, so the CLI writes, half a second later, into a pipe nobody reads.
    const script = '{ sleep 0.5; "$0" "$1" has-interactive --verbose --config-dir "$2"; echo "rc=$?" >&2; } | true';
    expect(shell(script, human.configDir).stderr).toBe('rc=0\n');
    expect(shell(script, nobodyHome.configDir).stderr).toBe('rc=1\n');
  });

  it('--help lists every code', () => {
    const help = runCli(cli, ['has-interactive', '--help']);
    expect(help.status).toBe(0);
    for (const line of [/^ {2}0 {2}yes: /m, /^ {2}1 {2}no: /m, /^ {2}2 {2}usage error/m, /^ {2}3 {2}cannot tell: /m, /^ {2}4 {2}any other error/m]) {
      expect(help.stdout).toMatch(line);
    }
    expect(help.stdout).toContain('[ $? -eq 1 ] && rm -rf DIR');
  });
});

describe('an empty CLAUDE_CONFIG_DIR means unset', () => {
  it('reads ~/.claude, never ./sessions under the current folder', () => {
    const home = mkdtempSync(join(tmpdir(), 'cps-hi-home-'));
    try {
      const here = join(home, 'work');
      mkdirSync(join(here, 'sessions'), { recursive: true });
      const env = cliEnv({ CLAUDE_CONFIG_DIR: '', HOME: home });
      const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: here, env, encoding: 'utf8', timeout: 20_000 });
      // A live human in ./sessions, none in ~/.claude (missing): the default is ~/.claude, a real no.
      writeFileSync(join(here, 'sessions', `${alive.pid}.json`), JSON.stringify(sessionRecord(alive.pid)));
      expect(run(['has-interactive']).status).toBe(1);
      // A live human in ~/.claude: yes.
      mkdirSync(join(home, '.claude', 'sessions'), { recursive: true });
      writeFileSync(join(home, '.claude', 'sessions', `${alive.pid}.json`), JSON.stringify(sessionRecord(alive.pid)));
      rmSync(join(here, 'sessions'), { recursive: true });
      expect(run(['has-interactive']).status).toBe(0);
      expect(JSON.parse(run(['doctor', '--json']).stdout).folders).toMatchObject([
        { configDir: join(home, '.claude'), source: 'default', exists: true, candidates: 1 },
      ]);
      // An empty HOME too: the passwd entry's home, not ./.claude.
      const noHome = spawnSync(process.execPath, [cli, 'doctor', '--json'], { cwd: here, env: cliEnv({ CLAUDE_CONFIG_DIR: '', HOME: '' }), encoding: 'utf8' });
      expect(JSON.parse(noHome.stdout).folders[0].configDir).toMatch(/^\/.*\/\.claude$/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
