/**
 * `count` and `statusline` have a bundle each (dist/cli-count.cjs, dist/cli-statusline.cjs;
 * lib/cli/bin/), which the launcher runs for that command with no host flag: the same command line
 * answered by it and by the whole CLI (dist/cli-main.cjs) gives the same exit code, stdout and stderr,
 * whatever the flags, mistakes and registry; the launcher picks it exactly when no word asks for
 * another host, and the host code such a bundle leaves out is never reached from it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_FLAGS, mayAskForHosts } from '../../lib/cli/hosts/flags.js';
import { endAll, reapedPid, spawnSleep } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { tokenOf } from '../helpers/tokens.js';
import { builtCli, cliEnv, removeCopy } from './run-cli.js';

let cli = '';
let reg: RegistryFixture;
let livePid = 0;

beforeAll(async () => {
  cli = await builtCli();
  reg = makeRegistry('cps-count-bundle-');
  const live = spawnSleep();
  livePid = live.pid;
  const background = spawnSleep();
  reg.write(live.pid, sessionRecord(live.pid, { procStart: tokenOf(live.pid, 'native') }));
  reg.write(background.pid, sessionRecord(background.pid, { procStart: tokenOf(background.pid, 'native'), kind: 'bg' }));
  const dead = reapedPid();
  reg.write(dead, sessionRecord(dead));
  reg.write(4_000_001, '{"pid": 4000001, "sessionId": "\u202e\u0007 torn');
  reg.write(4_000_002, 'x', 'notes.txt');
  symlinkSync('/etc/passwd', reg.path('4000003.json'));
  spawnSync('mkfifo', [reg.path('4000004.json')]);
  mkdirSync(reg.path('4000005.json'));
});

afterAll(async () => {
  await endAll();
  reg.remove();
  removeCopy(cli);
});

/** One command line through one bundle, run as the main module (no launcher, no code cache). */
function through(bundle: 'cli-count.cjs' | 'cli-statusline.cjs' | 'cli-main.cjs', args: string[], extra: NodeJS.ProcessEnv = {}, input = '') {
  const ran = spawnSync(process.execPath, [join(cli, '..', bundle), ...args], {
    encoding: 'utf8',
    env: cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, ...extra }),
    input,
    timeout: 20_000,
  });
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

describe('the count bundle', () => {
  const lines: string[][] = [
    ['count'],
    ['count', '--json'],
    ['count', '-i'],
    ['count', '--interactive', '--json'],
    ['count', '--config-dir', '/nonexistent/claude'],
    ['count', '--config-dir=/nonexistent/claude', '--config-dir', '.'],
    ['count', '--config-dir'],
    ['count', '--config-dir='],
    ['count', '--color', 'never'],
    ['count', '--color', 'sometimes'],
    ['count', '--bogus'],
    ['count', '--interactiv'],
    ['count', '-x'],
    ['count', '-ij'],
    ['count', '--interactive=yes'],
    ['count', 'extra'],
    ['count', '--', '--json'],
    ['count', '-h'],
    ['count', '--help'],
    ['count', '-V'],
    ['count', '--version', '--json'],
    ['count', '\u202e\u0007'],
  ];

  it.each(lines.map((line) => [line]))('answers as the whole CLI does: %j', (args) => {
    const ours = through('cli-count.cjs', args);
    expect(ours).toEqual(through('cli-main.cjs', args));
    expect(ours.status === 0 || ours.stderr.length > 0).toBe(true);
  });

  it('answers as the whole CLI does under a backend request it cannot meet, and on the JS backend', () => {
    for (const env of [{ CLAUDE_PS_BACKEND: 'nonsense' }, { CLAUDE_PS_BACKEND: 'js' }]) {
      expect(through('cli-count.cjs', ['count', '--json'], env)).toEqual(through('cli-main.cjs', ['count', '--json'], env));
    }
  });

  it('counts what the registry holds, and skips its junk (the tests above compare real answers)', () => {
    expect(through('cli-count.cjs', ['count'])).toMatchObject({ status: 0, stdout: '2\n' });
    expect(through('cli-count.cjs', ['count', '-i'])).toMatchObject({ status: 0, stdout: '1\n' });
    expect(JSON.parse(through('cli-count.cjs', ['count', '--json']).stdout).skipped.length).toBeGreaterThan(0);
  });

  it('fails loudly, never with a number, if a host read ever reaches it', () => {
    const ran = through('cli-count.cjs', ['count', '--host', 'local']);
    expect(ran.status).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('dist/cli-main.cjs');
  });
});

describe('the statusline bundle', () => {
  // What Claude Code sends: CLAUDE_PID in the environment, one JSON document on stdin.
  // The snippet names the script that runs (process.argv[1]): here each bundle itself, through the
  // launcher always dist/cli.cjs (the routing tests below run it so).
  const render = (bundle: 'cli-statusline.cjs' | 'cli-main.cjs', args: string[], input = '{"session_id":"x","cwd":"/tmp"}') => {
    const ran = through(bundle, args, { CLAUDE_PID: String(livePid) }, input);
    return { ...ran, stdout: ran.stdout.replaceAll(`/${bundle} `, '/BUNDLE ') };
  };
  const lines: string[][] = [
    ['statusline'],
    ['statusline', '--json'],
    ['statusline', '--format', '{waiting} / {busy}'],
    ['statusline', '-f', '{nonsense'],
    ['statusline', '--snippet'],
    ['statusline', '--no-autostart', '--idle-exit', '30'],
    ['statusline', '--idle-exit', 'soon'],
    ['statusline', '--bogus'],
    ['statusline', 'extra'],
    ['statusline', '--help'],
    ['statusline', '-V'],
    ['statusline', '--config-dir', '/nonexistent/claude'],
    ['statusline', '\u202e\u0007'],
  ];

  it.each(lines.map((line) => [line]))('answers as the whole CLI does: %j', (args) => {
    const ours = render('cli-statusline.cjs', args);
    expect(ours).toEqual(render('cli-main.cjs', args));
  });

  it('answers as the whole CLI does with a torn stdin document, or none, which it reads when CLAUDE_PID finds no record', () => {
    // A PID with no record: the render reads its session from stdin. The reader waits 80 ms for a
    // document, which a loaded machine can miss: a difference must hold on a second try too.
    const fromStdin = (bundle: 'cli-statusline.cjs' | 'cli-main.cjs', input: string) => through(bundle, ['statusline'], { CLAUDE_PID: '4999999' }, input);
    for (const input of ['{"session', '', '\u0000\u202e', '42', '{"session_id":"x","cwd":"/tmp"}']) {
      const ours = fromStdin('cli-statusline.cjs', input);
      const theirs = fromStdin('cli-main.cjs', input);
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) expect(fromStdin('cli-statusline.cjs', input)).toEqual(fromStdin('cli-main.cjs', input));
    }
    expect(fromStdin('cli-statusline.cjs', '{"session').stderr).toMatch(/stdin/);
  });

  it.each([
    [['statusline', '--', '--install']],
    [['statusline', '-f', '--install']],
    [['statusline', '--config-dir', '--uninstall']],
  ])('a render whose words only look like an install still exits 0: %j', (args) => {
    const ran = render('cli-statusline.cjs', args);
    expect(ran).toMatchObject({ status: 0 });
    expect(ran.stderr).not.toBe('');
    expect(ran).toEqual(render('cli-main.cjs', args));
  });

  it('renders the registry (the comparisons above are of real lines)', () => {
    const ran = render('cli-statusline.cjs', ['statusline', '--json']);
    expect(ran.status).toBe(0);
    expect(ran.stdout.length).toBeGreaterThan(2);
  });
});

describe('which bundle the launcher runs', () => {
  // NODE_DEBUG=module names every file the CommonJS loader loads (no code cache: a plain require).
  const bundleOf = (args: string[]) => {
    const ran = spawnSync(process.execPath, [cli, ...args], {
      encoding: 'utf8',
      env: cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, NODE_DEBUG: 'module', NODE_DISABLE_COMPILE_CACHE: '1', XDG_CONFIG_HOME: '/nonexistent' }),
      timeout: 20_000,
    });
    const loaded = [...ran.stderr.matchAll(/load "[^"]*\/(cli-(?:main|count|statusline)\.cjs)"/g)].map((m) => m[1]);
    return loaded;
  };

  it.each([[['count']], [['count', '--json', '-i']], [['count', '--config-dir', '/nonexistent/claude']], [['count', '--bogus']]])(
    'the count bundle for %j',
    (args) => {
      expect(bundleOf(args)).toEqual(['cli-count.cjs']);
    },
  );

  it.each([[['statusline']], [['statusline', '--snippet']], [['statusline', '--bogus']]])('the statusline bundle for %j', (args) => {
    expect(bundleOf(args)).toEqual(['cli-statusline.cjs']);
  });

  it('runs each single-command bundle lib/cli/bin/ holds for its own command', () => {
    const names = readdirSync(join(import.meta.dirname, '../../lib/cli/bin')).filter((f) => f.endsWith('.ts') && f !== 'all.ts').map((f) => f.slice(0, -3));
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) expect(bundleOf([name, '--version'])).toEqual([`cli-${name}.cjs`]);
  });

  it('the snippet names the executable, whichever bundle printed it', () => {
    const ran = spawnSync(process.execPath, [cli, 'statusline', '--snippet'], { encoding: 'utf8', env: cliEnv() });
    expect(ran.stdout).toContain(`${cli} statusline`);
  });

  it.each([[['statusline', '--host', 'local']], [['count', '--host', 'local']], [['count', '--host=local']], [['count', '--all-hosts']], [['count', '--host-timeout', '3']], [['list']], [['summary']], [[]], [['--version']], [['counts']]])(
    'the whole CLI for %j',
    (args) => {
      expect(bundleOf(args)).toEqual(['cli-main.cjs']);
    },
  );

  it('asks about every host flag there is, alone or with a value, and about nothing else', () => {
    for (const [name, spec] of Object.entries(HOST_FLAGS)) {
      expect(spec.short, `--${name} has a short form the launcher does not look for`).toBeUndefined();
      expect(mayAskForHosts([`--${name}`])).toBe(true);
      expect(mayAskForHosts(['-i', `--${name}=x`])).toBe(true);
    }
    expect(mayAskForHosts(['--json', '-i', '--config-dir', '/x', '--config-dir=--hosted', 'host'])).toBe(false);
  });
});
