/**
 * The built CLI as a terminal user meets it, beside gh, ripgrep and jq: hostile and wide names in the
 * table, --color and FORCE_COLOR, asides on stderr, help that lists exactly what each command takes,
 * exit codes and environment in --help, and "did you mean" for a typo.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../lib/cli/width.js';
import { COMMAND_NAMES } from '../../lib/cli/commands/index.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { endAll, procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { builtCli, cliEnv, removeCopy, runCli, type Ran } from './run-cli.js';

let cli: string;
let reg: RegistryFixture;
let empty: string;
let sleeps: Spawned[] = [];

const HOSTILE_NAME = 'evil\u202Egnp.exe\u2028\x1b]0;owned\x07\u200b\u2066x';
const NAMES = ['日本語のセッション', '👩‍💻 pair', HOSTILE_NAME, 'plain'];
// What must never reach a terminal from a registry string (see lib/cli/format.ts); the joiner inside
// an emoji sequence (👩‍💻) is removed before the check.
const FORBIDDEN = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/u;
const withoutEmojiJoiners = (s: string) => s.replace(/(?<=\p{Extended_Pictographic})\u200D(?=\p{Extended_Pictographic})/gu, '');
const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Runs the CLI with stdout on a real terminal (`script`), in the given environment. */
function onTty(args: string[], env: NodeJS.ProcessEnv): Ran {
  const command = [process.execPath, cli, ...args].map(quote).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env, timeout: 20_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** The environment without any colour variable, plus `extra` (cliEnv drops FORCE_COLOR). */
const colourEnv = (extra: NodeJS.ProcessEnv = {}) => {
  const env = cliEnv();
  delete env.NO_COLOR;
  delete env.TERM;
  return { ...env, TERM: 'xterm', ...extra };
};

beforeAll(async () => {
  cli = await builtCli();
  empty = mkdtempSync(join(tmpdir(), 'cps-cli-term-empty-'));
  reg = makeRegistry('cps-cli-term-');
  sleeps = NAMES.map(() => spawnSleep());
  sleeps.forEach((s, i) =>
    reg.write(s.pid, sessionRecord(s.pid, { procStart: procStartTicks(s.pid), name: NAMES[i], status: 'busy' })),
  );
  reg.write(4_999_998, sessionRecord(4_999_998, { name: 'gone\u202E' }));
});

afterAll(async () => {
  for (const s of sleeps) await s.end();
  await endAll();
  reg?.remove();
  rmSync(empty, { recursive: true, force: true });
  if (cli) removeCopy(cli);
});

describe('the table on a terminal', () => {
  it('keeps one record per line, with no control, format or bidi character from a name', () => {
    const r = runCli(cli, ['list', '--all', '--config-dir', reg.configDir]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + NAMES.length + 1);
    expect(withoutEmojiJoiners(r.stdout)).not.toMatch(FORBIDDEN);
    expect(lines.find((l) => l.includes('evil'))).toMatch(/evil gnp\.exe  \]0;owned {3}x/);
  });

  it('aligns every column in display columns, wide names and emoji included', () => {
    const r = runCli(cli, ['list', '--all', '--config-dir', reg.configDir]);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    // The columns after NAME start at the same display column on every line as in the header.
    for (const line of rows) {
      const cwd = line.indexOf('/home/user/project');
      const verdict = line.search(/(alive|gone)$/);
      expect(displayWidth(line.slice(0, cwd)), line).toBe(header!.indexOf('CWD'));
      expect(displayWidth(line.slice(0, verdict)), line).toBe(header!.indexOf('VERDICT'));
    }
    expect(r.stdout).toContain('日本語のセッション');
    expect(r.stdout).toContain('👩‍💻 pair');
  });

  it('cuts every registry string to its column: a huge or hostile field cannot widen the table', () => {
    const huge = makeRegistry('cps-cli-term-huge-');
    try {
      const piles = ['a' + '\u0301'.repeat(50_000), '\u202e'.repeat(50_000), '日'.repeat(50_000), '👩‍💻'.repeat(15_000)];
      piles.forEach((pile, i) => {
        for (const [j, field] of ['name', 'cwd', 'kind', 'status', 'waitingFor'].entries()) {
          const pid = 5_100_000 + i * 10 + j;
          huge.write(pid, sessionRecord(pid, { status: 'waiting', [field]: pile }));
        }
      });
      const r = runCli(cli, ['list', '--all', '--config-dir', huge.configDir]);
      expect(r.status, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1 + piles.length * 5);
      for (const line of lines) expect(displayWidth(line), line.slice(0, 40)).toBeLessThan(200);
      expect(withoutEmojiJoiners(r.stdout)).not.toMatch(FORBIDDEN);
    } finally {
      huge.remove();
    }
  });

  it('--json escapes what a terminal would act on, and the data is unchanged', () => {
    const r = runCli(cli, ['list', '--all', '--json', '--config-dir', reg.configDir]);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(FORBIDDEN);
    expect(r.stdout).toContain('\\u202e');
    const names = JSON.parse(r.stdout).records.map((x: { name: string }) => x.name);
    expect(names).toEqual(expect.arrayContaining([...NAMES, 'gone\u202E']));
  });
});

describe.skipIf(!hasScript)('colour: --color, FORCE_COLOR, NO_COLOR, TERM', () => {
  const args = ['list', '--all', '--config-dir', ''];
  const coloured = (r: Ran) => {
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('alive');
    return r.stdout.includes('\x1b[32malive');
  };
  const withDir = () => args.map((a) => (a === '' ? reg.configDir : a));

  it('auto: colour on a terminal only, never through a pipe', () => {
    expect(coloured(onTty(withDir(), colourEnv()))).toBe(true);
    expect(coloured(runCli(cli, withDir(), { env: colourEnv() }))).toBe(false);
    expect(coloured(onTty(withDir(), colourEnv({ TERM: 'dumb' })))).toBe(false);
    expect(coloured(onTty(withDir(), colourEnv({ NO_COLOR: '1' })))).toBe(false);
    // An empty NO_COLOR is no request (no-color.org).
    expect(coloured(onTty(withDir(), colourEnv({ NO_COLOR: '' })))).toBe(true);
  });

  it('--color=always colours through a pipe and beats NO_COLOR; --color=never beats FORCE_COLOR', () => {
    expect(coloured(runCli(cli, [...withDir(), '--color=always'], { env: colourEnv({ NO_COLOR: '1', TERM: 'dumb' }) }))).toBe(true);
    expect(coloured(runCli(cli, [...withDir(), '--color', 'always'], { env: colourEnv() }))).toBe(true);
    expect(coloured(onTty([...withDir(), '--color=never'], colourEnv({ FORCE_COLOR: '1' })))).toBe(false);
    expect(coloured(onTty([...withDir(), '--color=auto'], colourEnv()))).toBe(true);
  });

  it('FORCE_COLOR as Node and chalk read it: on for "", 1, 2, 3, true; off for 0, false; else ignored', () => {
    for (const on of ['', '1', '2', '3', 'true']) {
      expect(coloured(runCli(cli, withDir(), { env: colourEnv({ FORCE_COLOR: on }) })), `FORCE_COLOR=${on}`).toBe(true);
    }
    expect(coloured(runCli(cli, withDir(), { env: colourEnv({ FORCE_COLOR: '1', NO_COLOR: '1' }) }))).toBe(true);
    for (const off of ['0', 'false']) {
      expect(coloured(onTty(withDir(), colourEnv({ FORCE_COLOR: off }))), `FORCE_COLOR=${off}`).toBe(false);
    }
    expect(coloured(onTty(withDir(), colourEnv({ FORCE_COLOR: 'maybe' })))).toBe(true);
    expect(coloured(runCli(cli, withDir(), { env: colourEnv({ FORCE_COLOR: 'maybe' }) }))).toBe(false);
  });

  it('never colours --json or the commands for scripts, whatever is asked', () => {
    const env = colourEnv({ FORCE_COLOR: '1' });
    const json = runCli(cli, [...withDir(), '--json', '--color=always'], { env });
    expect(json.stdout).not.toContain('\x1b[');
    for (const cmd of ['count', 'summary', 'has-interactive']) {
      const r = runCli(cli, [cmd, '--color=always', '--config-dir', reg.configDir], { env });
      expect(r.status, `${cmd}: ${r.stderr}`).toBe(0);
      expect(r.stdout).not.toContain('\x1b[');
    }
  });

  it('a bad --color is a usage error', () => {
    for (const bad of [['--color=sometimes'], ['--color'], ['--color=']]) {
      const r = runCli(cli, ['list', ...bad, '--config-dir', reg.configDir]);
      expect(r.status, bad.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^claude-ps: --color [^\n]+\n$/);
    }
  });
});

describe('asides on stderr', () => {
  it('"no registry" goes to stderr, and stdout stays empty (exit 0)', () => {
    const r = runCli(cli, ['list'], { env: cliEnv({ CLAUDE_CONFIG_DIR: empty }) });
    expect(r).toMatchObject({ status: 0, stdout: '' });
    expect(r.stderr).toMatch(/^No Claude Code session registry here/);
    expect(r.stderr).toContain('claude-ps demo');
  });
});

describe('help tells what each command takes', () => {
  const help = (name: string) => runCli(cli, [name, '--help']).stdout;
  // The options a help text lists, with a value where one is needed.
  const listed = (text: string) =>
    [...text.matchAll(/^ {2}(?:-\w, )? *--([\w-]+)(?: ([A-Z]+))?/gm)].map((m) => ({ name: m[1]!, value: m[2] }));
  const sample: Record<string, string> = { DIR: '/nonexistent', WHEN: 'never', MS: '100', FILE: '/nonexistent/f', TEMPLATE: '{live}', HOW: 'osc', SECONDS: '5' };

  it('every option a command lists is accepted, and the common ones it does not list are refused', () => {
    for (const name of COMMAND_NAMES) {
      const options = listed(help(name));
      expect(options.length, name).toBeGreaterThan(2);
      // All of them at once, before --help (which answers only once every word has been parsed).
      const args = [name, ...options.flatMap((o) => [`--${o.name}`, ...(o.value ? [sample[o.value] ?? 'x'] : [])]), '--help'];
      const r = runCli(cli, args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      for (const common of ['config-dir', 'json', 'color', 'help', 'version']) {
        if (options.some((o) => o.name === common)) continue;
        const refused = runCli(cli, [name, `--${common}`, 'x', '--help']);
        expect(refused.status, `${name} --${common}`).toBe(2);
        expect(refused.stderr).toMatch(new RegExp(`^claude-ps: --${common} does not apply: [^\\n]+\\n$`));
      }
    }
  });

  it('probe and demo say they take no --config-dir, and refuse it', () => {
    for (const name of ['probe', 'demo']) {
      expect(help(name)).toMatch(/^ {2}\(--config-dir DIR does not apply: .+\)$/m);
      expect(listed(help(name)).map((o) => o.name)).not.toContain('config-dir');
    }
    const r = runCli(cli, ['probe', '--config-dir', empty, '1']);
    expect(r).toMatchObject({ status: 2, stdout: '' });
    expect(r.stderr).toBe('claude-ps: --config-dir does not apply: probe asks the kernel about PIDs and reads no registry\n');
  });

  it('names exit codes and environment variables, in general and per command', () => {
    const general = runCli(cli, ['--help']).stdout;
    expect(general).toMatch(/^Exit status: 0 success; 1 a runtime error .*; 2 a usage error/m);
    for (const variable of ['CLAUDE_CONFIG_DIR', 'CLAUDE_PS_BACKEND', 'NO_COLOR', 'FORCE_COLOR', 'TERM', 'CLAUDE_PS_DEBUG']) {
      expect(general).toMatch(new RegExp(`^ {2}${variable} +\\S`, 'm'));
    }
    expect(help('list')).toMatch(/^Exit status: 0 success; 1 a runtime error \(one line on stderr\); 2 a usage error\.$/m);
    expect(help('list')).toMatch(/^ {2}FORCE_COLOR /m);
    expect(help('count')).not.toMatch(/^ {2}FORCE_COLOR /m);
    expect(help('probe')).not.toMatch(/^ {2}CLAUDE_CONFIG_DIR /m);
    expect(help('probe')).toMatch(/Exit 0 when every PID is alive or unverified .* 1 otherwise, 2 on a usage error/s);
  });
});

describe('did you mean', () => {
  it('names the command or flag a typo most likely meant, and nothing for a far-off word', () => {
    const usage = (args: string[]) => {
      const r = runCli(cli, args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      return r.stderr;
    };
    expect(usage(['lsit'])).toBe('claude-ps: unknown command "lsit" (did you mean list?); see claude-ps --help\n');
    expect(usage(['has-interactiv'])).toContain('(did you mean has-interactive?)');
    expect(usage(['help', 'prun'])).toContain('(did you mean prune?)');
    expect(usage(['frobnicate'])).toBe('claude-ps: unknown command "frobnicate"; see claude-ps --help\n');
    expect(usage(['count', '--interactiv'])).toBe('claude-ps: unknown option --interactiv (did you mean --interactive?)\n');
    expect(usage(['prune', '--dryrun'])).toContain('(did you mean --dry-run?)');
    expect(usage(['list', '--conf', empty])).toContain('(did you mean --config-dir?)');
    expect(usage(['list', '--frobnicate'])).toBe('claude-ps: unknown option --frobnicate\n');
  });

  it('keeps every message one line, whatever the arguments hold', () => {
    for (const args of [['a\nb'], ['list', '--x\u2028y'], ['list', '--color', 'a\u202eb'], ['count', '\u001b[2J'], ['probe', '1\n2']]) {
      const r = runCli(cli, args);
      expect(r.status, JSON.stringify(args)).toBe(2);
      expect(r.stderr).toMatch(/^claude-ps: [^\n]+\n$/);
      expect(r.stderr.slice(0, -1)).not.toMatch(FORBIDDEN);
    }
  });
});
