/**
 * `claude-ps statusline` as Claude Code runs it: the built CLI, a registry of real processes, and
 * every kind of stdin (none, closed, a terminal, a pipe left open, a socket left open, huge, not JSON).
 * Whatever happens it exits 0, prints at most one stderr line and never a stack.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, runCli } from '../cli/run-cli.js';
import { endAll, hasSetpriv, isRoot, procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

let cli: string;
let reg: RegistryFixture;
let me: Spawned;
let waiter: Spawned;
let busy: Spawned;
const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

beforeAll(async () => {
  cli = await builtCli();
  [me, waiter, busy] = [spawnSleep(), spawnSleep(), spawnSleep()];
  reg = makeRegistry('cps-statusline-');
  const live = (s: Spawned, fields: Record<string, unknown>) =>
    reg.write(s.pid, sessionRecord(s.pid, { procStart: procStartTicks(s.pid), ...fields }));
  live(me, { sessionId: 'my-session', status: 'busy', name: 'me' });
  live(waiter, { status: 'waiting', waitingFor: 'permission prompt', name: 'api-3f' });
  live(busy, { status: 'busy', name: 'db' });
  reg.write(4_999_999, sessionRecord(4_999_999, { status: 'waiting', name: 'phantom' })); // gone
});

afterAll(async () => {
  for (const s of [me, waiter, busy]) await s?.end();
  await endAll();
  reg?.remove();
  if (cli) removeCopy(cli);
});

const env = (extra: NodeJS.ProcessEnv = {}) => cliEnv({ CLAUDE_CONFIG_DIR: reg.configDir, ...extra });
const statusline = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
  runCli(cli, ['statusline', ...args], { env: options.env ?? env(), input: options.input });

function expectQuietSuccess(r: { status: number | null; stderr: string }): void {
  expect(r.status).toBe(0);
  expect(r.stderr).not.toMatch(/\n./); // at most one line
  expect(r.stderr).not.toMatch(/^\s+at /m); // never a stack
}

describe('claude-ps statusline', () => {
  it('shows the other sessions and leaves out its own (CLAUDE_PID), dead claims filtered', () => {
    const r = statusline([], { env: env({ CLAUDE_PID: String(me.pid) }) });
    expectQuietSuccess(r);
    expect(r.stdout).toBe('⏳ api-3f (permission prompt) · 1 busy\n');
    expect(r.stderr).toBe('');
  });

  it('finds itself by the stdin session_id, else CLAUDE_CODE_SESSION_ID, else counts itself as another', () => {
    const doc = JSON.stringify({ session_id: 'my-session', cwd: '/x', model: { id: 'm' } });
    expect(statusline(['--json'], { input: doc }).stdout).toMatch(/"self":\{"by":"session_id","pid":\d+/);
    const byEnv = statusline([], { env: env({ CLAUDE_CODE_SESSION_ID: 'my-session' }) });
    expect(byEnv.stdout).toBe('⏳ api-3f (permission prompt) · 1 busy\n');
    const none = statusline([]);
    expect(none.stdout).toBe('⏳ api-3f (permission prompt) · 2 busy\n');
  });

  it('prints nothing when no other session runs', () => {
    const alone = makeRegistry('cps-statusline-alone-');
    try {
      alone.write(me.pid, sessionRecord(me.pid, { procStart: procStartTicks(me.pid), status: 'busy' }));
      const r = runCli(cli, ['statusline'], { env: cliEnv({ CLAUDE_CONFIG_DIR: alone.configDir, CLAUDE_PID: String(me.pid) }) });
      expectQuietSuccess(r);
      expect(r.stdout).toBe('');
    } finally {
      alone.remove();
    }
  });

  it('renders a template with its own status', () => {
    const r = statusline(['--format', '{others.waiting:⏳#}{others.busy: ⚡#} [{self.status}]'], { env: env({ CLAUDE_PID: String(me.pid) }) });
    expect(r.stdout).toBe('⏳1 ⚡1 [busy]\n');
  });

  it('ignores invalid, non-object and huge stdin with one stderr line, and still renders', () => {
    for (const [input, why] of [
      ['{"session_id": ', /not JSON/],
      ['[1,2]', /not a JSON object/],
      ['{"session_id":"' + 'x'.repeat(2 * 1024 * 1024) + '"}', /larger than 1048576/],
      ['{"a":'.repeat(150_000) + '1' + '}'.repeat(150_000), /stdin is (not JSON|not a JSON object)|^$/], // deep: parsed or refused, never a crash
    ] as const) {
      const r = statusline([], { input, env: env({ CLAUDE_CODE_SESSION_ID: 'my-session' }) });
      expectQuietSuccess(r);
      expect(r.stderr).toMatch(why);
      expect(r.stdout).toBe('⏳ api-3f (permission prompt) · 1 busy\n');
    }
  });

  it('does not read stdin at all when CLAUDE_PID finds the session (it only carries the session id)', () => {
    const r = statusline(['--json'], { input: '{"session_id": ', env: env({ CLAUDE_PID: String(me.pid) }) });
    expectQuietSuccess(r);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).self.by).toBe('CLAUDE_PID');
  });

  it('exits 0 with one stderr line on a bad template, an unknown option or a CLAUDE_PID that is not a PID', () => {
    for (const [args, extra, why] of [
      [['--format', '{nope}'], {}, /unknown key \{nope\}/],
      [['--bogus'], {}, /unknown option --bogus/],
      [['--format'], {}, /needs a value/],
      [[], { CLAUDE_PID: '12abc' }, /CLAUDE_PID is not a PID/],
    ] as const) {
      const r = statusline([...args], { env: env(extra) });
      expectQuietSuccess(r);
      expect(r.stderr).toMatch(why);
    }
  });

  it('does not wait on a pipe (FIFO) whose writer stays and writes nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cps-statusline-fifo-'));
    try {
      // The writer holds the FIFO open for 30 s; the CLI must be done long before (bounded by the 25 s timeout).
      const script = `mkfifo f; sleep 30 > f & S=$!; ${quote(process.execPath)} ${quote(cli)} statusline < f; echo "rc=$?"; kill $S`;
      const r = spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8', env: env({ CLAUDE_CODE_SESSION_ID: 'my-session' }), timeout: 25_000 });
      expect(r.signal).toBeNull();
      expect(r.stdout).toBe('⏳ api-3f (permission prompt) · 1 busy\nrc=0\n');
      expect(r.stderr).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not wait on a socket left open (a Node parent that never ends its stdin)', async () => {
    const child = spawn(process.execPath, [cli, 'statusline'], { env: env({ CLAUDE_CODE_SESSION_ID: 'my-session' }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const guard = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      child.on('exit', (c) => {
        clearTimeout(guard);
        resolve(c);
      });
    });
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(stdout).toBe('⏳ api-3f (permission prompt) · 1 busy\n');
  });

  it('reads a document that arrives a little later on an open socket', async () => {
    const child = spawn(process.execPath, [cli, 'statusline', '--json'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stdin.write(JSON.stringify({ session_id: 'my-session' }));
    setTimeout(() => child.stdin.end(), 10);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stdout).self.by).toBe('session_id');
  });

  it.skipIf(!hasScript)('never reads a terminal', () => {
    const r = spawnSync('script', ['-qec', `${quote(process.execPath)} ${quote(cli)} statusline; echo "rc=$?"`, '/dev/null'], {
      encoding: 'utf8',
      env: env({ CLAUDE_CODE_SESSION_ID: 'my-session' }),
      timeout: 20_000,
    });
    expect(r.signal).toBeNull();
    expect(r.stdout.replaceAll('\r', '')).toContain('⏳ api-3f (permission prompt) · 1 busy\nrc=0');
  });

  it('reads stdin from a regular file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cps-statusline-stdin-'));
    try {
      const file = join(dir, 'doc.json');
      writeFileSync(file, JSON.stringify({ session_id: 'my-session' }));
      const r = spawnSync('sh', ['-c', `${quote(process.execPath)} ${quote(cli)} statusline --json < ${quote(file)}`], { encoding: 'utf8', env: env() });
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).self.by).toBe('session_id');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('survives a closed stdin and a closed stdout, exit 0', () => {
    const r = spawnSync('sh', ['-c', `${quote(process.execPath)} ${quote(cli)} statusline <&- >&-; echo "rc=$?" >&2`], { encoding: 'utf8', env: env() });
    expect(r.stderr.trim().split('\n').at(-1)).toBe('rc=0');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it.skipIf(!isRoot || !hasSetpriv)('run as nobody on a folder it cannot read: one line, empty statusline, exit 0', () => {
    const locked = makeRegistry('cps-statusline-locked-');
    try {
      chmodSync(locked.configDir, 0o755);
      chmodSync(locked.sessions, 0o700); // root's, not listable by nobody
      const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, cli, 'statusline'], {
        encoding: 'utf8',
        env: cliEnv({ CLAUDE_CONFIG_DIR: locked.configDir }),
        input: '{}',
      });
      expectQuietSuccess(r);
      expect(r.stderr).toMatch(/^claude-ps statusline: .*EACCES/);
      expect(r.stdout).toBe('');
    } finally {
      locked.remove();
    }
  });
});
