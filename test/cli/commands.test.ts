/**
 * The built `claude-ps` against a fixture registry of real processes: stdout, stderr and exit code
 * of each command, the --json shapes, usage errors, --help and --version.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { endAll, procStartTicks, reapedPid, spawnSleep, spawnZombie, type Spawned } from '../helpers/processes.js';
import { builtCli, cliEnv, removeCopy, ROOT, runCli, type Ran } from './run-cli.js';

let cli: string;
let reg: RegistryFixture;
let empty: string;
let alive: Spawned; // interactive, busy
let bg: Spawned; // kind bg, waiting
let reused: Spawned; // claimed with a wrong token
let zombie: Spawned & { zombiePid: number };
let dead: number;

const RECORD_KEYS = [
  'pid', 'sessionId', 'kind', 'interactive', 'verdict', 'live', 'status', 'waitingFor', 'name', 'cwd',
  'startedAt', 'updatedAt', 'statusUpdatedAt', 'version', 'entrypoint', 'pidDomain', 'token', 'path',
].sort();

// The fixture's torn 999999999.json, counted on stderr by every reading command.
const SKIP_NOTE = 'claude-ps: 1 candidate record (<pid>.json) could not be read (not JSON): sessions may be missing; `claude-ps doctor` lists them\n';
const SKIP_JSON = [{ path: '', pid: 999_999_999, reason: 'unparseable', error: null }];

const run = (...args: string[]): Ran => runCli(cli, [...args, '--config-dir', reg.configDir]);
const json = (r: Ran) => {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

beforeAll(async () => {
  cli = await builtCli();
  empty = mkdtempSync(join(tmpdir(), 'cps-cli-empty-'));
  reg = makeRegistry('cps-cli-');
  alive = spawnSleep();
  bg = spawnSleep();
  reused = spawnSleep();
  zombie = await spawnZombie();
  dead = reapedPid();
  const token = (pid: number) => procStartTicks(pid)!;
  reg.write(alive.pid, sessionRecord(alive.pid, { procStart: token(alive.pid), status: 'busy', name: 'alpha' }));
  reg.write(
    bg.pid,
    sessionRecord(bg.pid, { procStart: token(bg.pid), kind: 'bg', status: 'waiting', waitingFor: 'approve Bash' }),
  );
  reg.write(reused.pid, sessionRecord(reused.pid, { procStart: String(Number(token(reused.pid)) + 7) }));
  reg.write(zombie.zombiePid, sessionRecord(zombie.zombiePid, { status: 'busy' }));
  reg.write(dead, sessionRecord(dead, { procStart: '12345' }));
  reg.write(0, '{"not": "a record"}', 'notes.json');
  reg.write(999_999_999, '{"pid": 999999999, "sess');
});

afterAll(async () => {
  for (const p of [alive, bg, reused, zombie]) await p?.end();
  await endAll();
  reg?.remove();
  rmSync(empty, { recursive: true, force: true });
  if (cli) removeCopy(cli);
});

describe('list', () => {
  it('shows only live sessions by default, and says on stderr how many dead ones it hid', () => {
    const r = run();
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PID\s+KIND\s+STATUS\s+NAME\s+CWD\s+VERDICT$/);
    expect(lines.slice(1).map((l) => Number(l.split(/\s+/)[0]))).toEqual([alive.pid, bg.pid].sort((a, b) => a - b));
    const aliveLine = lines.find((l) => l.startsWith(`${alive.pid} `))!;
    expect(aliveLine).toMatch(/interactive\s+busy\s+alpha\s+\/home\/user\/project\s+alive$/);
    expect(lines.find((l) => l.startsWith(`${bg.pid} `))).toMatch(/bg\s+waiting \(approve Bash\)/);
    expect(r.stderr).toBe(SKIP_NOTE + '(3 dead records hidden: `claude-ps list --all` shows them, `claude-ps prune` removes them)\n');
    expect(runCli(cli, ['list', '--config-dir', reg.configDir]).stdout).toBe(r.stdout);
  });

  it('--all adds the dead ones with their verdict', () => {
    const r = run('--all');
    expect(r.status).toBe(0);
    const verdicts = Object.fromEntries(
      r.stdout.trimEnd().split('\n').slice(1).map((l) => [Number(l.split(/\s+/)[0]), l.split(/\s+/).at(-1)]),
    );
    expect(verdicts).toEqual({
      [alive.pid]: 'alive',
      [bg.pid]: 'alive',
      [reused.pid]: 'recycled',
      [zombie.zombiePid]: 'zombie',
      [dead]: 'gone',
    });
    expect(r.stderr).toBe(SKIP_NOTE);
  });

  it('--json prints {records} with every documented key, null when unknown', () => {
    const { records, skipped } = json(run('--json'));
    expect(skipped).toEqual([{ ...SKIP_JSON[0], path: reg.path('999999999.json') }]);
    expect(records.map((x: { pid: number }) => x.pid)).toEqual([alive.pid, bg.pid].sort((a, b) => a - b));
    for (const record of records) expect(Object.keys(record).sort()).toEqual(RECORD_KEYS);
    const a = records.find((x: { pid: number }) => x.pid === alive.pid);
    expect(a).toMatchObject({ kind: 'interactive', interactive: true, verdict: 'alive', live: true, status: 'busy' });
    expect(a.waitingFor).toBeNull();
    expect(a.path).toBe(reg.path(`${alive.pid}.json`));
    const all = json(run('--all', '--json')).records;
    expect(all).toHaveLength(5);
  });

  it('without any registry folder says so on stderr (an aside) and points to the demo (exit 0)', () => {
    for (const env of [cliEnv({ CLAUDE_CONFIG_DIR: empty }), cliEnv({ HOME: empty })]) {
      const r = runCli(cli, [], { env });
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/^No Claude Code session registry here \(.*sessions does not exist\)/);
      expect(r.stderr).toContain('claude-ps demo');
      expect(r.stdout).toBe('');
    }
  });
});

describe('count, summary, has-interactive', () => {
  it('count prints the live records of every kind, or the interactive ones', () => {
    // count reads live-only: a torn file whose PID cannot exist is no session that may be missing.
    expect(run('count')).toMatchObject({ status: 0, stdout: '2\n', stderr: '' });
    expect(run('count', '--interactive').stdout).toBe('1\n');
    const skipped: unknown[] = [];
    expect(json(run('count', '--json'))).toEqual({ count: 2, interactive: false, skipped });
    expect(json(run('count', '-i', '--json'))).toEqual({ count: 1, interactive: true, skipped });
  });

  it('summary prints the default line, a template, or every count as JSON', () => {
    expect(run('summary')).toMatchObject({ status: 0, stdout: '1 busy · 1 waiting\n', stderr: SKIP_NOTE });
    expect(run('summary', '--format', '{live} live{dead:, # dead}{idle:, # idle}').stdout).toBe('2 live, 3 dead\n');
    expect(run('summary', '--interactive').stdout).toBe('1 busy\n');
    expect(json(run('summary', '--json'))).toEqual({
      live: 2, interactive: 1, background: 1, busy: 1, waiting: 1, idle: 0, shell: 0, other: 0, dead: 3,
      text: '1 busy · 1 waiting', skipped: [{ ...SKIP_JSON[0], path: reg.path('999999999.json') }],
    });
    const bad = run('summary', '--format', '{bussy}');
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^claude-ps: --format: unknown key \{bussy\} .*\n$/);
  });

  it('has-interactive answers with its exit code and prints nothing unless asked', () => {
    expect(run('has-interactive')).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const answer = runCli(cli, ['has-interactive', '--json', '--config-dir', reg.configDir]);
    expect(JSON.parse(answer.stdout)).toEqual({
      interactive: true, pids: [alive.pid], unreadableLivePids: [], skipped: [{ ...SKIP_JSON[0], path: reg.path('999999999.json') }],
    });
    expect(run('has-interactive', '--verbose').stdout).toBe(`yes: live interactive session PID ${alive.pid}\n`);

    const none = makeRegistry('cps-cli-none-');
    try {
      none.write(bg.pid, sessionRecord(bg.pid, { procStart: procStartTicks(bg.pid), kind: 'daemon' }));
      none.write(dead, sessionRecord(dead));
      const args = ['has-interactive', '--config-dir', none.configDir];
      expect(runCli(cli, args)).toMatchObject({ status: 1, stdout: '', stderr: '' });
      expect(runCli(cli, [...args, '--verbose'])).toMatchObject({ status: 1, stdout: 'no: no live interactive session\n' });
      // A symlink named after a live PID is not something Claude Code writes: still no.
      symlinkSync(reg.path(`${alive.pid}.json`), none.path(`${reused.pid}.json`));
      expect(runCli(cli, [...args, '--json'])).toMatchObject({
        status: 1,
        stdout: JSON.stringify({
          interactive: false, pids: [], unreadableLivePids: [],
          skipped: [{ path: none.path(`${reused.pid}.json`), pid: reused.pid, reason: 'symlink', error: null }],
        }) + '\n',
      });
      // A half-written file whose PID is alive may be a human: the guard says yes.
      none.write(alive.pid, `{"pid": ${alive.pid}, "sessionId": "`);
      const r = runCli(cli, [...args, '--json']);
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ interactive: true, pids: [], unreadableLivePids: [alive.pid] });
      expect(JSON.parse(r.stdout).skipped).toContainEqual({ path: none.path(`${alive.pid}.json`), pid: alive.pid, reason: 'unparseable', error: null });
    } finally {
      none.remove();
    }
  });
});

describe('probe and doctor', () => {
  it('probe prints state and token per PID; exit 1 when one does not exist', () => {
    const r = runCli(cli, ['probe', String(alive.pid), String(dead), '0']);
    expect(r.status).toBe(1);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^PID\s+STATE\s+TOKEN$/);
    expect(rows[1]).toMatch(new RegExp(`^${alive.pid}\\s+alive\\s+${procStartTicks(alive.pid)}$`));
    expect(rows[2]).toMatch(new RegExp(`^${dead}\\s+gone\\s+-$`));
    expect(rows[3]).toMatch(/^0\s+invalid\s+-$/);
    expect(runCli(cli, ['probe', String(alive.pid)]).status).toBe(0);
    expect(JSON.parse(runCli(cli, ['probe', '--json', String(zombie.zombiePid), '-3']).stdout)).toEqual([
      { pid: zombie.zombiePid, state: 'zombie', token: expect.any(String) },
      { pid: -3, state: 'invalid', token: null },
    ]);
    expect(runCli(cli, ['probe', '12x'])).toMatchObject({ status: 2, stdout: '', stderr: 'claude-ps: probe: not a PID: "12x"\n' });
    expect(runCli(cli, ['probe'])).toMatchObject({ status: 2, stderr: 'claude-ps: probe: needs at least one PID\n' });
  });

  it('doctor names the backend, our pidDomain, the folders and every skipped file with its reason', () => {
    const d = json(run('doctor', '--json'));
    expect(d.backend.name).toMatch(/^(native|js|ps)$/);
    expect(d.platform).toBe(process.platform);
    expect(d.pidDomain).toMatch(/^linux:/);
    expect(d.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(d.folders).toEqual([
      {
        configDir: reg.configDir, source: 'option', sessionsDir: reg.sessions, exists: true, candidates: 6, ignored: 1,
        legacy: { files: 0, removable: 0, kept: 0, unrecognised: 0 }, stranded: 0, pruneLeftovers: 0, error: null,
      },
    ]);
    expect(d.verdicts).toEqual({ alive: 2, unverified: 0, foreign: 0, recycled: 1, zombie: 1, gone: 1 });
    expect(d.skipped).toEqual([{ path: reg.path('999999999.json'), pid: 999999999, reason: 'unparseable', error: null }]);
    const text = run('doctor');
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`pidDomain  ${d.pidDomain}`);
    expect(text.stdout).toContain(`${reg.path('999999999.json')}: unparseable`);
    const forced = runCli(cli, ['doctor', '--json'], { env: cliEnv({ CLAUDE_PS_BACKEND: 'js', CLAUDE_CONFIG_DIR: empty }) });
    expect(JSON.parse(forced.stdout)).toMatchObject({
      backend: { name: 'js', reason: 'CLAUDE_PS_BACKEND=js' },
      folders: [{ source: 'CLAUDE_CONFIG_DIR', exists: false }],
    });
  });
});

describe('prune and snapshot', () => {
  it('snapshot writes the documented document to --output, or prints it', () => {
    const out = join(empty, 'snap.json');
    const r = run('snapshot', '--output', out, '--json');
    expect(json(r)).toMatchObject({ output: out });
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc).toMatchObject({ version: 1, host: { platform: process.platform } });
    const pids = Object.values(doc.sessions as Record<string, { pid: number }>).map((s) => s.pid);
    expect(pids).toContain(alive.pid);
    expect(JSON.parse(run('snapshot').stdout).version).toBe(1);
  });

  it('prune --dry-run names the provably dead; prune removes exactly those files', () => {
    const deadPids = [dead, reused.pid, zombie.zombiePid].sort((a, b) => a - b);
    const dry = json(run('prune', '--dry-run', '--json'));
    expect(dry.dryRun).toBe(true);
    expect(dry.removed.map((x: { pid: number }) => x.pid).sort((a: number, b: number) => a - b)).toEqual(deadPids);
    for (const pid of deadPids) expect(existsSync(reg.path(`${pid}.json`))).toBe(true);

    const r = run('prune');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Removed 3 dead records:\nPID\s+VERDICT\s+FILE\n/);
    for (const pid of deadPids) expect(existsSync(reg.path(`${pid}.json`))).toBe(false);
    for (const name of [`${alive.pid}.json`, `${bg.pid}.json`, 'notes.json', '999999999.json']) {
      expect(existsSync(reg.path(name))).toBe(true);
    }
    expect(run('prune')).toMatchObject({ status: 0, stdout: 'Nothing to prune: no provably dead records.\n' });
  });
});

describe('usage, help and version', () => {
  it('a usage error is exit 2 and one line on stderr, nothing on stdout', () => {
    for (const args of [
      ['frobnicate'],
      ['list', '--bogus'],
      ['count', 'extra'],
      ['list', '--config-dir'],
      ['watch', '--interval', 'soon'],
      ['has-interactive', '--json=yes'],
      ['help', 'nope'],
      ['demo', '--config-dir', '/tmp'],
    ]) {
      const r = runCli(cli, args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^claude-ps: [^\n]+\n$/);
    }
  });

  it('a runtime error is exit 1 and one line on stderr', () => {
    const r = run('snapshot', '--output', join(empty, 'no', 'such', 'folder', 'snap.json'));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`claude-ps: cannot write the snapshot ${join(empty, 'no', 'such', 'folder', 'snap.json')}: no such file or folder (ENOENT)\n`);
  });

  it('every command has --help; --version prints the package version', () => {
    for (const name of ['list', 'count', 'summary', 'has-interactive', 'prune', 'snapshot', 'watch', 'probe', 'doctor', 'demo']) {
      const r = runCli(cli, [name, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: claude-ps ${name}`));
      expect(r.stdout).toContain('--config-dir DIR');
    }
    expect(runCli(cli, ['--help']).stdout).toMatch(/^Usage: claude-ps \[command\]/);
    expect(runCli(cli, ['help', 'probe']).stdout).toMatch(/^Usage: claude-ps probe/);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    expect(runCli(cli, ['--version'])).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
    expect(runCli(cli, ['count', '-V']).stdout).toBe(`${version}\n`);
  });
});
