/**
 * `claude-ps watch` ends promptly when the reader of its output goes away, even on a registry where
 * nothing changes (so nothing is ever written that could fail with EPIPE); and only then: output to a
 * file or /dev/null has no reader to lose.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../../helpers/backends.js';
import { hasSetpriv, isRoot, spawnSleep, until, type Spawned } from '../../helpers/processes.js';
import { builtCli, cliEnv, removeCopy } from '../../cli/run-cli.js';
import { cleanUpEachTest, tempRegistry } from './helpers.js';

cleanUpEachTest();
let cli: string;
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(() => removeCopy(cli));

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Runs `claude-ps watch … | READER` in bash; how it ended, and how long the watch outlived its reader. */
function pipeline(configDir: string, reader: string, backend: string) {
  const started = Date.now();
  const r = spawnSync('bash', ['-c', `${quote(process.execPath)} ${quote(cli)} watch --config-dir ${quote(configDir)} | ${reader}; echo "\${PIPESTATUS[0]}"`], {
    env: { ...cliEnv(), CLAUDE_PS_BACKEND: backend },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { signal: r.signal, watchStatus: r.stdout.trim().split('\n').at(-1), stdout: r.stdout, ms: Date.now() - started };
}

describe('watch and a reader that goes away', () => {
  let live: Spawned;
  beforeAll(() => {
    live = spawnSleep();
  });
  afterAll(() => live.end());

  it('`watch | head -1` on a quiet registry ends by itself, with exit 0 (native backend)', () => {
    const reg = tempRegistry();
    reg.write(live.pid);
    const r = pipeline(reg.configDir, 'head -1', 'native');
    expect(r.signal).toBeNull(); // not killed by the 20 s timeout: nothing but the reader's going ended it
    expect(r.watchStatus).toBe('0');
    expect(JSON.parse(r.stdout.split('\n')[0]!)).toMatchObject({ type: 'added', record: { pid: live.pid } });
  });

  it('a reader that leaves before anything was written (an empty registry) ends it too', () => {
    const reg = tempRegistry();
    const r = pipeline(reg.configDir, 'sleep 0.3', 'native');
    expect(r.signal).toBeNull();
    expect(r.watchStatus).toBe('0');
  });

  it('stdout a socket (what Node gives a child) whose peer closes, with nothing more to write: ends', async () => {
    const reg = tempRegistry();
    reg.write(live.pid);
    const child = spawn(process.execPath, [cli, 'watch', '--config-dir', reg.configDir], { env: cliEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await new Promise<void>((r) => child.stdout.once('data', () => r()));
    child.stdout.destroy();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    expect(await exited).toBe(0);
    clearTimeout(timer);
  });

  it.each(BACKENDS.filter((b) => b !== 'native'))('with the %s backend (no addon), the next write ends it', async (backend) => {
    const reg = tempRegistry(true, backend);
    reg.write(live.pid);
    const child = spawn('bash', ['-c', `${quote(process.execPath)} ${quote(cli)} watch --config-dir ${quote(reg.configDir)} | head -1; echo "status \${PIPESTATUS[0]}"`], {
      env: { ...cliEnv(), CLAUDE_PS_BACKEND: backend },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const deadline = Date.now() + 15_000;
    while (!out.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300)); // head has gone; nothing is written yet
    reg.write(4_999_999); // an event: its write meets EPIPE
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    expect(child.signalCode).toBeNull();
    expect(out.trim().split('\n').at(-1)).toBe('status 0');
  });

  it.each(['file', '/dev/null'])('output to a %s has no reader to lose: it keeps running until SIGTERM', async (target) => {
    const reg = tempRegistry();
    reg.write(live.pid);
    const path = target === 'file' ? join(reg.configDir, 'out.ndjson') : '/dev/null';
    const fd = openSync(path, 'w');
    const child = spawn(process.execPath, [cli, 'watch', '--config-dir', reg.configDir], { env: cliEnv(), stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await new Promise((r) => setTimeout(r, 1500));
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    if (target === 'file') expect(JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!).type).toBe('added');
  });
});

describe('doctor', () => {
  it('says where exits come from: the kernel with the addon, the interval probe (and why) without', () => {
    const reg = tempRegistry();
    const ask = (backend: string) =>
      JSON.parse(
        spawnSync(process.execPath, [cli, 'doctor', '--json', '--config-dir', reg.configDir], {
          env: { ...cliEnv(), CLAUDE_PS_BACKEND: backend },
          encoding: 'utf8',
        }).stdout,
      ).exits;
    expect(ask('native')).toEqual({ mode: 'kernel', mechanism: 'pidfd', reason: null });
    expect(ask('js')).toEqual({ mode: 'interval', mechanism: null, reason: 'the native backend does not serve' });
  });
});

describe.skipIf(!isRoot || !hasSetpriv)('watch as nobody', () => {
  const asNobody = ['--reuid=65534', '--regid=65534', '--clear-groups'];

  it('a folder that becomes unlistable is said once on stderr (not an empty registry in silence); a root process\'s exit still comes from the kernel', async () => {
    const reg = tempRegistry();
    const p = spawnSleep();
    reg.write(p.pid);
    chmodSync(reg.configDir, 0o755);
    chmodSync(reg.sessions, 0o755);
    chmodSync(reg.path(p.pid), 0o644);
    const locked = tempRegistry();
    chmodSync(locked.configDir, 0o755);
    chmodSync(locked.sessions, 0o755); // listable at the start; closed to nobody once the watch runs
    const child = spawn('setpriv', [...asNobody, process.execPath, cli, 'watch', '--interval', '100', '--config-dir', reg.configDir, '--config-dir', locked.configDir], {
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let errText = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (errText += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await until(() => out.includes('"added"'), 'added, as nobody');
    chmodSync(locked.sessions, 0o700); // root's now
    writeFileSync(join(locked.sessions, 'x'), ''); // an OS event, so the folder is listed again at once
    await until(() => errText.includes('cannot list'), 'the unlistable folder said on stderr');
    await p.end();
    await until(() => out.includes('"died"'), 'died for a process of root, as nobody');
    await new Promise((r) => setTimeout(r, 2500)); // a few rescans of the locked folder: still said once
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = errText.trim().split('\n');
    expect(lines).toEqual([`claude-ps watch: cannot list ${locked.sessions} (EACCES): the sessions it holds are unknown`]);
  });
});
