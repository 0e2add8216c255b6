/**
 * What a new user meets first, each with the behaviour that could fail: one JSON escaping rule for
 * every command over a hostile record; a backend request that cannot be met fails on an empty
 * registry too; a sessions folder given as the config dir is never a guard's "no"; candidates that
 * cannot be read are said aloud (as nobody, with 0600 records); statusline --help tells the truth;
 * doctor --json has one shape (the README's example included); doctor and prune --legacy agree; errors
 * name the user's path; the README's --exec notification fires only for changes after the start.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasLiveInteractive, hasLiveInteractiveAsync, MisplacedConfigDirError, MISPLACED_CONFIG_DIR, snapshot, writeSnapshot } from '../../lib/index.js';
import { endAll, hasSetpriv, isRoot, procStartTicks, reapedPid, spawnSleep, until, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { errorSentence } from '../../lib/registry/system-error.js';
import { builtCli, builtCliWithoutAddon, cliEnv, removeCopy, ROOT, runCli, SHIPPED, startCli } from './run-cli.js';

let cli = '';
let work = '';
let live: Spawned;
let waiting: Spawned;

// What a terminal acts on or hides, and JSON.stringify leaves raw: none may reach any JSON output.
const RAW_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/u;
const HOSTILE_ID = '\u009b2J\u202e-evil\u2028';
const HOSTILE_NAME = 'name\u2066\u200f\u0085x';

beforeAll(async () => {
  cli = await builtCli();
  work = mkdtempSync(join(tmpdir(), 'cps-first-'));
  live = spawnSleep();
  waiting = spawnSleep();
});

afterAll(async () => {
  await live?.end();
  await waiting?.end();
  await endAll();
  if (work) rmSync(work, { recursive: true, force: true });
  if (cli) removeCopy(cli);
});

describe('one JSON escaping rule', () => {
  let config = '';
  beforeAll(() => {
    // A hostile config dir name too: every record's path carries it.
    config = join(work, 'cfg-\u202e\u0085');
    mkdirSync(join(config, 'sessions'), { recursive: true });
    const write = (pid: number, fields: Record<string, unknown>) =>
      writeFileSync(join(config, 'sessions', `${pid}.json`), JSON.stringify(sessionRecord(pid, fields)));
    write(live.pid, { procStart: procStartTicks(live.pid), sessionId: HOSTILE_ID, name: HOSTILE_NAME, status: 'waiting', waitingFor: 'ok\u202ey', cwd: '/tmp/\u2067d' });
    write(reapedPid(), { procStart: '1', sessionId: `${HOSTILE_ID}-dead`, name: HOSTILE_NAME });
    writeFileSync(join(config, 'sessions', '999999.json'), '{"pid": 999999, "sess');
  });

  it('every command that prints JSON escapes C1, bidi and line separators, and the data survives', async () => {
    const outputs: [string, string][] = [];
    const add = (label: string, args: string[], input = '') => {
      const r = runCli(cli, [...args, '--config-dir', config], { input });
      expect(r.status, `${label}: ${r.stderr}`).toBe(0);
      outputs.push([label, r.stdout]);
    };
    add('list', ['list', '--json']);
    add('list --all', ['list', '--all', '--json']);
    add('count', ['count', '--json']);
    add('summary', ['summary', '--json']);
    outputs.push(['has-interactive', runCli(cli, ['has-interactive', '--json', '--config-dir', config]).stdout]);
    add('snapshot', ['snapshot']);
    const file = join(work, 'snap.json');
    add('snapshot --output', ['snapshot', '--output', file, '--json']);
    outputs.push(['snapshot file', readFileSync(file, 'utf8')]);
    add('prune', ['prune', '--dry-run', '--json']);
    add('doctor', ['doctor', '--json']);
    add('statusline', ['statusline', '--json']);
    // watch: its first events are the records present at the start.
    const w = startCli(cli, ['watch', '--config-dir', config]);
    let ndjson = '';
    w.stdout!.on('data', (chunk: Buffer) => (ndjson += chunk.toString('utf8')));
    await until(() => ndjson.split('\n').length > 2, 'watch printed both records', 15_000);
    w.kill('SIGTERM');
    await new Promise((resolve) => w.once('exit', resolve));
    for (const line of ndjson.trimEnd().split('\n')) outputs.push(['watch', line]);

    for (const [label, text] of outputs) {
      expect(text.length, label).toBeGreaterThan(0);
      expect(RAW_UNSAFE.test(text), `${label} printed a raw control or format character`).toBe(false);
      JSON.parse(text); // still JSON
    }
    const everything = outputs.map(([, t]) => t).join('\n');
    expect(everything).toContain('\\u009b2J\\u202e-evil\\u2028');
    // The same data for a JSON reader.
    const listed = JSON.parse(outputs.find(([l]) => l === 'list')![1]);
    expect(listed.records[0]).toMatchObject({ sessionId: HOSTILE_ID, name: HOSTILE_NAME, waitingFor: 'ok\u202ey', cwd: '/tmp/\u2067d' });
    expect(listed.records[0].path).toBe(join(config, 'sessions', `${live.pid}.json`));
    const pruned = JSON.parse(outputs.find(([l]) => l === 'prune')![1]);
    expect(pruned.removed[0].sessionId).toBe(`${HOSTILE_ID}-dead`);
    const status = JSON.parse(outputs.find(([l]) => l === 'statusline')![1]);
    expect(status.waiters[0].label).toContain('name');
  }, 60_000);
});

describe('an explicit backend request that cannot be met', () => {
  const COMMANDS = [['list'], ['count'], ['summary'], ['snapshot'], ['prune', '--dry-run'], ['doctor'], ['watch'], ['list', '--json']];

  it('CLAUDE_PS_BACKEND=bogus is a usage error even on an empty or missing registry', () => {
    const empty = mkdtempSync(join(work, 'empty-'));
    for (const configDir of [empty, join(work, 'no-such-config')]) {
      for (const args of COMMANDS) {
        const r = runCli(cli, [...args, '--config-dir', configDir], { env: cliEnv({ CLAUDE_PS_BACKEND: 'bogus' }) });
        expect({ status: r.status, stdout: r.stdout }, args.join(' ')).toEqual({ status: 2, stdout: '' });
        expect(r.stderr).toBe('claude-ps: CLAUDE_PS_BACKEND must be one of native, js, ps (got "bogus")\n');
      }
    }
    const probe = runCli(cli, ['probe', '1'], { env: cliEnv({ CLAUDE_PS_BACKEND: 'bogus' }) });
    expect(probe).toMatchObject({ status: 2, stdout: '' });
    // The statusline keeps its rule: exit 0, one line.
    const line = runCli(cli, ['statusline', '--config-dir', empty], { env: cliEnv({ CLAUDE_PS_BACKEND: 'bogus' }) });
    expect(line).toMatchObject({ status: 0, stdout: '' });
    expect(line.stderr.split('\n')).toHaveLength(2);
  });

  it('CLAUDE_PS_BACKEND=native where the addon cannot load is an error, also on an empty registry', async () => {
    const bare = await builtCliWithoutAddon('cps-first-noaddon-');
    try {
      const empty = mkdtempSync(join(work, 'empty-'));
      for (const args of COMMANDS) {
        const r = runCli(bare, [...args, '--config-dir', empty], { env: cliEnv({ CLAUDE_PS_BACKEND: 'native' }) });
        expect({ status: r.status, stdout: r.stdout }, args.join(' ')).toEqual({ status: 1, stdout: '' });
        expect(r.stderr).toMatch(/^claude-ps: CLAUDE_PS_BACKEND=native, but the addon cannot load: [^\n]+\n$/);
      }
      // Where nothing is asked for, the JS backend serves that copy (the request is what fails).
      expect(runCli(bare, ['count', '--config-dir', empty])).toMatchObject({ status: 0, stdout: '0\n' });
    } finally {
      removeCopy(bare);
    }
  });
});

describe('a sessions folder given as the config dir', () => {
  let reg: RegistryFixture;
  beforeAll(() => {
    reg = makeRegistry('cps-first-misplaced-');
    reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid) }));
    reg.write(waiting.pid, sessionRecord(waiting.pid, { procStart: procStartTicks(waiting.pid), status: 'waiting' }));
  });
  afterAll(() => reg?.remove());

  it('has-interactive refuses it: exit 2, one line naming the parent, never the "no" that deletes', () => {
    for (const args of [[], ['--verbose'], ['--json']]) {
      const r = runCli(cli, ['has-interactive', ...args, '--config-dir', reg.sessions]);
      expect({ status: r.status, stdout: r.stdout }, args.join(' ')).toEqual({ status: 2, stdout: '' });
      expect(r.stderr).toBe(
        `claude-ps: has-interactive: ${reg.sessions} looks like a sessions folder, not a config dir: it has no sessions/ and holds 2 session records (<pid>.json) itself; pass its parent, --config-dir ${reg.configDir}\n`,
      );
    }
    // From CLAUDE_CONFIG_DIR, the line names the variable.
    const env = runCli(cli, ['has-interactive'], { env: cliEnv({ CLAUDE_CONFIG_DIR: reg.sessions }) });
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(new RegExp(`pass its parent, CLAUDE_CONFIG_DIR=${reg.configDir}\\n$`));
    // The README's guard line does not delete it.
    const line = spawnSync('sh', ['-c', `"$0" "$1" has-interactive --config-dir "$2"; [ $? -eq 1 ] && echo DELETE`, process.execPath, cli, reg.sessions], { encoding: 'utf8' });
    expect(line.stdout).toBe('');
    // The right folder still answers yes.
    expect(runCli(cli, ['has-interactive', '--config-dir', reg.configDir]).status).toBe(0);
  });

  it('hasLiveInteractive throws a typed error; a config dir that merely lacks sessions/ is still a no', async () => {
    expect(() => hasLiveInteractive(reg.sessions)).toThrow(MisplacedConfigDirError);
    let thrown: unknown;
    try {
      hasLiveInteractive([mkdtempSync(join(work, 'plain-')), reg.sessions]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: MISPLACED_CONFIG_DIR, path: reg.sessions, parent: reg.configDir, candidates: 2 });
    await expect(hasLiveInteractiveAsync(reg.sessions)).rejects.toBeInstanceOf(MisplacedConfigDirError);
    expect(hasLiveInteractive(mkdtempSync(join(work, 'plain-')))).toBe(false);
    expect(hasLiveInteractive(join(work, 'no-such-config'))).toBe(false);
    expect(hasLiveInteractive(reg.configDir)).toBe(true);
  });

  it('list, count and summary say what they found instead of "Claude Code has not run here"', () => {
    for (const args of [['list'], ['count'], ['summary']]) {
      const r = runCli(cli, [...args, '--config-dir', reg.sessions]);
      expect(r.status, args[0]).toBe(0);
      expect(r.stderr).toContain(`${reg.sessions} looks like a sessions folder, not a config dir`);
      expect(r.stderr).toContain(`--config-dir ${reg.configDir}`);
      expect(r.stderr).not.toContain('has not run');
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
  });
});

describe.skipIf(!isRoot || !hasSetpriv)('candidates that cannot be read are said aloud (as nobody, records at 0600)', () => {
  let dir = '';
  let config = '';
  const sleeps: Spawned[] = [];
  const asNobody = (args: string[]) => {
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(dir, 'cli.cjs'), ...args, '--config-dir', config], {
      encoding: 'utf8', env: cliEnv(), timeout: 20_000, input: '',
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cps-first-nobody-'));
    for (const file of SHIPPED) copyFileSync(join(cli, '..', file), join(dir, file));
    chmodSync(dir, 0o755);
    config = join(dir, 'cfg');
    mkdirSync(join(config, 'sessions'), { recursive: true });
    chmodSync(config, 0o755);
    chmodSync(join(config, 'sessions'), 0o755);
    for (let i = 0; i < 3; i++) {
      const s = spawnSleep();
      sleeps.push(s);
      const file = join(config, 'sessions', `${s.pid}.json`);
      writeFileSync(file, JSON.stringify(sessionRecord(s.pid, { procStart: procStartTicks(s.pid), status: 'busy' })));
      chmodSync(file, 0o600);
    }
  });
  afterAll(async () => {
    for (const s of sleeps) await s.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const NOTE = 'claude-ps: 3 candidate records (<pid>.json) could not be read (permission denied, EACCES): sessions may be missing; `claude-ps doctor` lists them\n';

  it('list, count, summary and snapshot answer, and say in one line on stderr how many and why', () => {
    expect(asNobody(['count'])).toEqual({ status: 0, stdout: '0\n', stderr: NOTE });
    expect(asNobody(['summary'])).toEqual({ status: 0, stdout: 'no sessions\n', stderr: NOTE });
    expect(asNobody(['list'])).toEqual({ status: 0, stdout: 'No live Claude Code sessions.\n', stderr: NOTE });
    expect(asNobody(['snapshot'])).toMatchObject({ status: 0, stderr: NOTE });
    // The guard still says yes (unreadable files of live PIDs), silently.
    expect(asNobody(['has-interactive'])).toEqual({ status: 0, stdout: '', stderr: '' });
    // The statusline keeps its one line.
    const line = asNobody(['statusline']);
    expect(line.status).toBe(0);
    expect(line.stderr.split('\n')).toHaveLength(2);
    expect(line.stderr).toContain('3 candidate records (<pid>.json) could not be read (permission denied, EACCES)');
  });

  it('--json carries the skips, with the reason and the system code', () => {
    const pids = sleeps.map((s) => s.pid).sort((a, b) => a - b);
    const expected = pids.map((pid) => ({ path: join(config, 'sessions', `${pid}.json`), pid, reason: 'unreadable', error: 'EACCES' }));
    for (const args of [['list', '--json'], ['count', '--json'], ['summary', '--json'], ['has-interactive', '--json'], ['statusline', '--json']]) {
      const r = asNobody(args);
      expect(JSON.parse(r.stdout).skipped, args[0]).toEqual(expected);
    }
    expect(JSON.parse(asNobody(['has-interactive', '--json']).stdout)).toMatchObject({ interactive: true, unreadableLivePids: pids });
  });
});

describe('statusline --help tells the truth', () => {
  it('says a render always exits 0 and lists no other exit code for it; a usage error exits 0 with one line', () => {
    const help = runCli(cli, ['statusline', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Exit status of a render: always 0, usage errors included');
    // --install and --uninstall are ordinary commands, and the help says so.
    expect(help.stdout).toContain('--install and --uninstall are not renders: 0 done, 1 refused');
    expect(help.stdout).not.toMatch(/1 a runtime error|2 a usage error/);
    const bad = runCli(cli, ['statusline', '--no-such-option']);
    expect(bad).toMatchObject({ status: 0, stdout: '' });
    expect(bad.stderr.split('\n')).toHaveLength(2);
    // The general help agrees.
    expect(runCli(cli, ['--help']).stdout).toContain('statusline always exits 0');
  });
});

/** Every key path of a JSON value, with the value's type (arrays: their first element's). */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return [`${at}:array`, ...(value.length > 0 ? shape(value[0], `${at}[]`) : [])];
  if (value !== null && typeof value === 'object') {
    return [`${at}:object`, ...Object.entries(value).flatMap(([k, v]) => shape(v, `${at}.${k}`))];
  }
  return [`${at}:${value === null ? 'null' : typeof value}`];
}
const keys = (lines: string[]) => lines.map((l) => l.slice(0, l.lastIndexOf(':'))).sort();

describe('doctor --json: one shape in every case', () => {
  it('the same keys with the kernel or the interval, with or without records, and in the README example', () => {
    const reg = makeRegistry('cps-first-doctor-');
    try {
      reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid) }));
      reg.write(999_999, '{"torn');
      const kernel = JSON.parse(runCli(cli, ['doctor', '--json', '--config-dir', reg.configDir]).stdout);
      const interval = JSON.parse(runCli(cli, ['doctor', '--json', '--config-dir', reg.configDir], { env: cliEnv({ CLAUDE_PS_BACKEND: 'js' }) }).stdout);
      const missing = JSON.parse(runCli(cli, ['doctor', '--json', '--config-dir', join(work, 'no-such-config')]).stdout);
      expect(kernel.exits).toEqual({ mode: 'kernel', mechanism: 'pidfd', reason: null });
      expect(interval.exits).toEqual({ mode: 'interval', mechanism: null, reason: 'the native backend does not serve' });
      expect(keys(shape(interval))).toEqual(keys(shape(kernel)));
      // A missing folder: no skipped entry to look into, every other key the same.
      expect(keys(shape(missing))).toEqual(keys(shape(kernel)).filter((k) => !k.startsWith('.skipped[]')));
      expect(Object.keys(missing.verdicts).sort()).toEqual(['alive', 'foreign', 'gone', 'recycled', 'unverified', 'zombie']);

      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('### `claude-ps doctor`'));
      const example = section.slice(section.indexOf('```json\n') + 8, section.indexOf('\n```', section.indexOf('```json\n')));
      const documented = JSON.parse(example);
      expect(keys(shape(documented))).toEqual(keys(shape(kernel)));
      // The types too, where the example shows a value of the kind the real output has.
      expect(shape(documented).filter((l) => !l.endsWith(':null')).sort()).toEqual(
        shape(kernel).filter((l) => !l.endsWith(':null') && !l.startsWith('.backend.reason')).sort(),
      );
    } finally {
      reg.remove();
    }
  });
});

describe('legacy pid-<n>.json: doctor and prune --legacy agree', () => {
  it('doctor counts what prune removes and what it keeps, and prune says what it kept and why', () => {
    const reg = makeRegistry('cps-first-legacy-');
    try {
      const gone = reapedPid();
      const legacy = (id: string) => JSON.stringify({ session_id: id, cwd: '/home/user/old' });
      writeFileSync(reg.path(`pid-${gone}.json`), legacy('gone'));
      writeFileSync(reg.path(`pid-${live.pid}.json`), legacy('maybe the old writer'));
      writeFileSync(reg.path(`pid-${gone + 1}.json`), '{"notes": "not a legacy record"}');
      const doctor = () => JSON.parse(runCli(cli, ['doctor', '--json', '--config-dir', reg.configDir]).stdout).folders[0].legacy;
      expect(doctor()).toEqual({ files: 2, removable: 1, kept: 1, unrecognised: 1 });
      const text = runCli(cli, ['doctor', '--config-dir', reg.configDir]).stdout;
      expect(text).toContain('2 legacy pid-<n>.json (prune --legacy removes 1: PID gone; 1 kept: a process has that PID, which may be the old writer)');
      expect(text).toContain('1 pid-<n>.json that are no legacy record (never touched)');

      const dry = runCli(cli, ['prune', '--legacy', '--dry-run', '--json', '--config-dir', reg.configDir]);
      expect(JSON.parse(dry.stdout).legacy.map((l: { pid: number }) => l.pid)).toEqual([gone]);
      const real = runCli(cli, ['prune', '--legacy', '--config-dir', reg.configDir]);
      expect(real.status).toBe(0);
      expect(real.stdout).toContain(`pid-${gone}.json`);
      expect(real.stderr).toBe('(1 legacy pid-<n>.json kept: a process has its PID, and without a start token it may be the old writer)\n');
      expect(readdirSync(reg.sessions).sort()).toEqual([`pid-${gone + 1}.json`, `pid-${live.pid}.json`].sort());
      expect(doctor()).toEqual({ files: 1, removable: 0, kept: 1, unrecognised: 1 });
    } finally {
      reg.remove();
    }
  });
});

describe('writeSnapshot and its errors', () => {
  it('writes to a legal name of any length (the temp name fits NAME_MAX)', () => {
    const dir = mkdtempSync(join(work, 'names-'));
    const data = snapshot(join(work, 'no-such-config'));
    for (const name of ['a'.repeat(240), 'b'.repeat(255), 'é'.repeat(127), `${'c'.repeat(250)}.json`]) {
      writeSnapshot(join(dir, name), data);
      expect(JSON.parse(readFileSync(join(dir, name), 'utf8')).version).toBe(1);
    }
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]); // no temp file left
  });

  it('errors are sentences naming the path the user gave, never a temp file', () => {
    const dir = mkdtempSync(join(work, 'errors-'));
    mkdirSync(join(dir, 'a-folder'));
    writeFileSync(join(dir, 'a-file'), '');
    const cases: [string, string][] = [
      [join(dir, 'a-folder'), 'it is a folder (EISDIR)'],
      [join(dir, 'missing', 'snap.json'), 'no such file or folder (ENOENT)'],
      [join(dir, 'a-file', 'snap.json'), 'a part of the path is not a folder (ENOTDIR)'],
      [join(dir, 'x'.repeat(256)), 'the name is too long (ENAMETOOLONG)'],
    ];
    for (const [target, why] of cases) {
      const r = runCli(cli, ['snapshot', '--output', target, '--config-dir', join(work, 'no-such-config')]);
      expect(r).toMatchObject({ status: 1, stdout: '' });
      expect(r.stderr).toBe(`claude-ps: cannot write the snapshot ${target}: ${why}\n`);
      expect(r.stderr).not.toMatch(/\.tmp/);
      expect(() => writeSnapshot(target, snapshot(join(work, 'no-such-config')))).toThrow(`cannot write the snapshot ${target}: ${why}`);
    }
    expect(readdirSync(join(dir, 'a-folder'))).toEqual([]);
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
    // Any system error that reaches the top is told the same way: a sentence with the user's path.
    for (const args of [['watch', '--statusline-dir', join(dir, 'a-file')], ['watch', '--snapshot', join(dir, 'a-folder')]]) {
      const r = runCli(cli, [...args, '--config-dir', join(work, 'no-such-config')]);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^claude-ps: cannot [^\n]+\(E[A-Z]+\)\n$/);
      expect(r.stderr).toContain(args[2]!);
      expect(r.stderr).not.toMatch(/^claude-ps: E[A-Z]+:|\.tmp/);
    }
  });

  it('errorSentence: a rename names its target, other errors keep their message', () => {
    const renamed = Object.assign(new Error("EISDIR: illegal operation on a directory, rename '/x/.t.1.tmp' -> '/x/snap'"), {
      code: 'EISDIR', syscall: 'rename', path: '/x/.t.1.tmp', dest: '/x/snap',
    });
    expect(errorSentence(renamed)).toBe('cannot replace /x/snap: it is a folder (EISDIR)');
    const odd = Object.assign(new Error('EWHAT: something odd, open \'/y\''), { code: 'EWHAT', syscall: 'open', path: '/y' });
    expect(errorSentence(odd)).toBe('cannot open /y: something odd (EWHAT)');
    expect(errorSentence(new Error('a sentence already'))).toBe('a sentence already');
    const temp = Object.assign(new Error("EACCES: permission denied, open '/x/lines/.4242.0123456789ab.tmp'"), {
      code: 'EACCES', syscall: 'open', path: '/x/lines/.4242.0123456789ab.tmp',
    });
    expect(errorSentence(temp)).toBe('cannot write in /x/lines: permission denied (EACCES)');
  });
});

describe("the README's --exec notification", () => {
  it('notifies for a session that starts waiting after the start, not for one already waiting', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const at = readme.indexOf('**A notification when a session waits for you:**');
    const block = readme.slice(readme.indexOf('```sh\n', at) + 6, readme.indexOf('\n```', readme.indexOf('```sh\n', at)));
    expect(block).toMatch(/^claude-ps watch --exec-shell --exec '/);
    const bin = mkdtempSync(join(work, 'bin-'));
    const log = join(bin, 'notified.log');
    writeFileSync(join(bin, 'claude-ps'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
    writeFileSync(join(bin, 'notify-send'), `#!/bin/sh\nprintf '%s|%s\\n' "$1" "$2" >> "${log}"\n`, { mode: 0o755 });
    const reg = makeRegistry('cps-first-exec-');
    reg.write(waiting.pid, sessionRecord(waiting.pid, { procStart: procStartTicks(waiting.pid), name: 'already', status: 'waiting', waitingFor: 'old prompt' }));
    reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid), name: 'later', status: 'busy' }));
    const sh = spawn('sh', ['-c', block], {
      env: { ...cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir }), PATH: `${bin}:${process.env.PATH}` },
      stdio: 'ignore',
      detached: true, // its own process group: ended by that group's id below
    });
    try {
      // The watcher is up once its snapshot of the start has been taken: give it a generous moment.
      await new Promise((r) => setTimeout(r, 3000));
      expect(existsSync(log)).toBe(false);
      reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid), name: 'later', status: 'waiting', waitingFor: 'approve Bash' }));
      await until(() => existsSync(log), 'the notification', 15_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(readFileSync(log, 'utf8')).toBe('Claude: later|approve Bash\n');
    } finally {
      if (sh.pid) process.kill(-sh.pid, 'SIGTERM');
      reg.remove();
    }
  }, 40_000);
});
